"""Project settings by dotted key (`deid show` / `deid set`), in core."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deid_desktop.core.errors import UsageError
from deid_desktop.core.model import FreeTextAction, OffsetMode, Pathway, Project
from deid_desktop.core.project.settings import Setting, apply_settings, as_text
from deid_desktop.core.project.settings import settings as settings_of
from tests.core.test_project import make_project
from tests.core.test_project_schema import any_project


def keys(p: Project) -> list[str]:
    return [s.key for s in settings_of(p)]


def test_every_release_changing_decision_is_listed() -> None:
    listed = keys(make_project())
    for key in (
        "name",
        "pathway",
        "seed",
        "transform.age_reference",
        "transform.zip3_table",
        "transform.free_text.demographics.notes",
        "linkable.offset_days",
        "linkable.offset_mode",
        "linkable.key_length",
        "linkable.zip_rule",
        "risk.quasi_identifiers",
        "risk.k_target",
        "risk.sensitive",
        "risk.age_bands",
        "risk.drop_zip3",
        "risk.suppress_below_k",
        "export.purpose",
        "export.recipient",
        "export.retention",
        "export.dua",
        "export.formats",
    ):
        assert key in listed
    # identity and tags are not settings (`deid tag` owns the tags)
    assert not [k for k in listed if k.startswith(("tables", "project_id", "schema_version"))]


def test_a_free_text_column_without_a_choice_shows_suppress() -> None:
    p = make_project()
    p = replace(p, transform=replace(p.transform, free_text={}))
    shown = {s.key: s.value for s in settings_of(p)}
    assert shown["transform.free_text.demographics.notes"] == "suppress"


def test_set_changes_each_kind_of_value() -> None:
    p, changes = apply_settings(
        make_project(),
        [
            "seed=12345",
            "risk.k=3",  # alias of risk.k_target
            "pathway=limited-data-set",
            "linkable.offset_mode=KEYED",
            "risk.age_bands=0, 18,65",
            "risk.quasi_identifiers=",
            "risk.drop_zip3=no",
            "transform.zip3_table=",
            "transform.free_text.demographics.notes=suppress",
            "export.purpose=a=b",  # the first = splits
        ],
    )
    assert p.seed == 12345 and p.risk.k_target == 3
    assert p.pathway is Pathway.LIMITED_DATA_SET
    assert p.linkable.offset_mode is OffsetMode.KEYED
    assert p.risk.age_bands == (0, 18, 65) and p.risk.quasi_identifiers == ()
    assert p.risk.drop_zip3 is False and p.transform.zip3_table is None
    assert p.transform.free_text == {"demographics.notes": FreeTextAction.SUPPRESS}
    assert p.export.purpose == "a=b"
    assert ("seed", "7", "12345") in [(c.key, c.old, c.new) for c in changes]
    assert ("risk.k_target", "10", "3") in [(c.key, c.old, c.new) for c in changes]


@pytest.mark.parametrize(
    ("change", "says", "hint"),
    [
        ("risk.kk=3", "There is no setting 'risk.kk'", "Did you mean risk.k_target?"),
        ("sed=1", "There is no setting 'sed'", "Did you mean seed?"),
        ("transform.free_text.demographics.lvef=redact", "no setting", "deid show"),
        ("tables=[]", "no setting", "deid show"),
        ("project_id=" + "0" * 32, "no setting", "deid show"),
        ("seed", "is not a setting", "KEY=VALUE"),
        ("risk.k_target=0", "risk.k_target must be a whole number from 1 to 1000000", "deid show"),
        ("risk.k_target=five", "risk.k_target must be a whole number", "deid show"),
        ("linkable.key_length=8", "linkable.key_length must be a whole number from 12 to 64", ""),
        ("risk.age_bands=18,0", "risk.age_bands must list its values in increasing order", ""),
        ("risk.age_bands=0,x", "risk.age_bands[1] must be a whole number", ""),
        ("pathway=anonymous", "pathway is not a known pathway; expected one of safe_harbor", ""),
        ("transform.age_reference=discharge", 'must be "index" or a date written YYYY-MM-DD', ""),
        ("export.formats=pdf", "export.formats[0] must be one of csv, xlsx", ""),
        ("risk.drop_zip3=maybe", "risk.drop_zip3 must be true or false", ""),
        ("transform.free_text.demographics.notes=shred", "suppress, redact", ""),
    ],
)
def test_unknown_keys_and_bad_values_are_usage_errors(change: str, says: str, hint: str) -> None:
    with pytest.raises(UsageError) as err:
        apply_settings(make_project(), ["seed=1", change])
    assert says in err.value.message
    assert hint in (err.value.hint or "")
    assert err.value.exit_code == 2


def test_a_bad_value_is_not_echoed() -> None:
    with pytest.raises(UsageError) as err:
        apply_settings(make_project(), ["pathway=SYN-8298957", "seed=1"])
    assert "SYN-8298957" not in str(err.value)


def _takes_back(s: Setting) -> bool:
    """Whether KEY=TEXT can say this value (set strips spaces, splits lists at commas,
    reads "none" as null and the first "=" as the end of the key)."""
    if s.key != s.key.strip() or "=" in s.key or s.key == "transform.zip3_table":
        return False
    rule = s.field.rule  # files may hold values `deid set` no longer offers (key length 8)
    if (rule.edit_lo is not None and s.value < rule.edit_lo) or (
        rule.edit_hi is not None and s.value > rule.edit_hi
    ):
        return False
    parts = [as_text(v) for v in s.value] if isinstance(s.value, list) else [s.text]
    if isinstance(s.value, list) and "" in parts:
        return False
    return all("," not in t and t == t.strip() and t.lower() not in ("none", "null") for t in parts)


@settings(max_examples=80, deadline=None)
@given(any_project(), st.data())
def test_what_show_prints_set_takes_back(p: Project, data: st.DataObject) -> None:
    """Every value `deid show` prints, given to `deid set`, leaves the decisions as they
    were (a Census file path is checked on disk, so it is left out)."""
    shown = [s for s in settings_of(p) if _takes_back(s)]
    picked = data.draw(st.lists(st.sampled_from(shown), unique_by=lambda s: s.key, max_size=8))
    again, _ = apply_settings(p, [f"{s.key}={s.text}" for s in picked])
    assert [(s.key, s.value) for s in settings_of(again)] == [
        (s.key, s.value) for s in settings_of(p)
    ]
