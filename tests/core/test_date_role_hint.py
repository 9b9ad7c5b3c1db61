"""A column tagged clinical that keeps a date role is read as a date: when its values are
no dates, the message says which role does it and how to remove it."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import pytest

from deid_desktop.core.errors import InputError
from deid_desktop.core.io.extract import prepare_extract
from deid_desktop.core.model import Role
from tests.core.support import CL, TEXT
from tests.core.test_safe_harbor_support import PEOPLE_TAGS, make_case, replace_frame, tag


def test_a_clinical_column_with_a_birth_date_role_names_the_role_and_the_fix() -> None:
    extract, project = make_case(6)
    people = extract.person.frame.assign(**{"dob flag": pd.array(["0"] * 6, dtype=TEXT)})
    extract = replace_frame(extract, "people", people)
    flag = tag("dob flag", CL, role=Role.BIRTH_DATE)
    spec = replace(project.table("people"), columns=(*PEOPLE_TAGS, flag))
    project = replace(project, tables=tuple(spec if t.is_person else t for t in project.tables))
    with pytest.raises(InputError) as caught:
        prepare_extract(extract, project)
    assert caught.value.column == "dob flag"
    assert "tagged clinical but keeps the role 'birth date'" in caught.value.hint
    assert "`deid tag PROJECT 'people.dob flag=clinical:none'`" in caught.value.hint


def test_a_date_column_with_bad_values_is_told_as_before() -> None:
    extract, project = make_case(6)
    people = extract.person.frame.assign(dob=pd.array(["0"] * 6, dtype=TEXT))
    with pytest.raises(InputError) as caught:
        prepare_extract(replace_frame(extract, "people", people), project)
    assert "keeps the role" not in caught.value.hint
    assert caught.value.hint.endswith("tag the column as something other than a date.")
