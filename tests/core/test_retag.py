"""Re-tagging by hand (core/tagging/retag.py): the rule the GUI and `deid tag` share."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deid_desktop.core.errors import UsageError
from deid_desktop.core.model import ColumnClass, ColumnTag, IdentifierCategory, Role, TableSpec
from deid_desktop.core.tagging.retag import (
    KEEP,
    SET_BY_HAND,
    edited_tag,
    retag,
    suggested_tag,
)

C, R, IC = ColumnClass, Role, IdentifierCategory


def table() -> TableSpec:
    return TableSpec(
        name="people",
        path="people.csv",
        sha256="0" * 64,
        key="pid",
        is_person=True,
        columns=(
            ColumnTag("pid", C.DIRECT, R.PERSON_KEY, IC.R),
            ColumnTag("mrn", C.DIRECT, None, IC.H, evidence=("name matches 'mrn'",)),
            ColumnTag("seen", C.DATE, None, date_format="%Y-%m-%d"),
            ColumnTag("age", C.QUASI, R.AGE),
        ),
    )


def test_an_edit_keeps_what_the_user_did_not_change_and_says_it_was_by_hand() -> None:
    spec = table()
    mrn = edited_tag(spec.column("mrn"), cls=C.DIRECT)
    assert (mrn.category, mrn.evidence[0], mrn.unsure) == (IC.H, SET_BY_HAND, False)
    assert edited_tag(mrn, role=R.SENSITIVE).evidence.count(SET_BY_HAND) == 1
    assert edited_tag(spec.column("mrn"), cls=C.QUASI).category is None  # direct only
    assert edited_tag(spec.column("seen"), cls=C.CLINICAL).date_format is None
    assert edited_tag(spec.column("seen"), role=R.INDEX_DATE).date_format == "%Y-%m-%d"
    assert edited_tag(spec.column("age"), cls=C.CLINICAL).role is R.AGE


@pytest.mark.parametrize(
    "change", [{"cls": C.CLINICAL}, {"role": None}, {"cls": C.QUASI, "role": R.PERSON_KEY}]
)
def test_the_person_key_cannot_be_re_tagged(change: dict[str, object]) -> None:
    with pytest.raises(UsageError, match="'pid' is the person key of table 'people'") as info:
        retag(table(), "pid", **change)  # type: ignore[arg-type]
    assert "give that column the person-key role" in (info.value.hint or "")


def test_picking_another_person_key_moves_the_key() -> None:
    spec = retag(table(), "mrn", role=R.PERSON_KEY)
    assert spec.key == "mrn"
    assert (spec.column("mrn").cls, spec.column("mrn").role) == (C.DIRECT, R.PERSON_KEY)
    assert spec.column("mrn").category is IC.H  # its own category kept
    old = spec.column("pid")
    assert (old.cls, old.role, old.category) == (C.DIRECT, None, IC.R)
    # a quasi column picked as the key becomes a direct identifier (category R)
    spec = retag(table(), "age", role=R.PERSON_KEY)
    assert (spec.key, spec.column("age").cls, spec.column("age").category) == (
        "age",
        C.DIRECT,
        IC.R,
    )


def test_a_suggestion_never_moves_the_person_key() -> None:
    spec = table()
    as_key = ColumnTag("mrn", C.DIRECT, R.PERSON_KEY, IC.H)
    assert suggested_tag(spec, as_key) == ColumnTag("mrn", C.DIRECT, None, IC.H)
    assert suggested_tag(spec, ColumnTag("pid", C.QUASI)) is None
    assert suggested_tag(spec, spec.column("pid")) == spec.column("pid")


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["pid", "mrn", "seen", "age"]),
            st.one_of(st.none(), st.sampled_from(list(C))),
            st.one_of(st.just(KEEP), st.none(), st.sampled_from(list(R))),
        ),
        max_size=12,
    )
)
def test_any_sequence_of_edits_leaves_exactly_one_direct_person_key(edits: list) -> None:  # type: ignore[type-arg]
    spec = table()
    for column, cls, role in edits:
        try:
            spec = retag(spec, column, cls=cls, role=role)
        except UsageError:
            continue  # refused: nothing changed
        keys = [c.name for c in spec.columns if c.role is R.PERSON_KEY]
        assert keys == [spec.key]
        assert spec.column(spec.key).cls is C.DIRECT
