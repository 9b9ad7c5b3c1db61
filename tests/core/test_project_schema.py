"""The declarative project schema: every declared field round-trips, whatever its value.

The strategy below is built from the schema itself (``fields_of`` + ``RULES``), so a
field added to the model is generated, written and read back here with no edit; a field
with a custom check needs an example strategy in ``CHECKED`` (the test says so).
"""

from __future__ import annotations

import dataclasses
import json
from enum import StrEnum
from typing import Any, get_args, get_origin

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deid_desktop.core.errors import ProjectError
from deid_desktop.core.model import ColumnTag, Project, RiskSettings, TableSpec, TransformOptions
from deid_desktop.core.project import project_from_dict, project_from_json, project_to_dict
from deid_desktop.core.project import project_to_json as to_json
from deid_desktop.core.project.schema import RULES, Rule, fields_of, unwrap_optional
from tests.core.test_project import _body, make_project, projects

#: Strategies for text fields whose rule carries a check the generic text cannot meet.
CHECKED: dict[tuple[type, str], st.SearchStrategy[Any]] = {
    (Project, "project_id"): st.text("0123456789abcdef", min_size=32, max_size=32),
    (TableSpec, "sha256"): st.text("0123456789abcdef", min_size=64, max_size=64),
    (TransformOptions, "age_reference"): st.just("index")
    | st.dates().map(lambda d: d.isoformat()).filter(lambda s: len(s) == 10),
}


def _checked(cls: type, attr: str) -> st.SearchStrategy[Any]:
    if (cls, attr) not in CHECKED:
        pytest.fail(f"{cls.__name__}.{attr} has a check: add an example strategy to CHECKED")
    return CHECKED[(cls, attr)]


def value_of(hint: Any, rule: Rule, owner: type, attr: str) -> st.SearchStrategy[Any]:
    inner, nullable = unwrap_optional(hint)
    base = _value(inner, rule, owner, attr)
    return st.none() | base if nullable else base


def _value(hint: Any, rule: Rule, owner: type, attr: str) -> st.SearchStrategy[Any]:
    if dataclasses.is_dataclass(hint):
        return record_of(hint)
    if isinstance(hint, type) and issubclass(hint, StrEnum):
        return st.sampled_from(list(hint))
    if hint is bool:
        return st.booleans()
    if hint is int:
        return st.integers(
            rule.lo if rule.lo is not None else -(2**63),
            rule.hi if rule.hi is not None else 2**63 - 1,
        )
    if hint is str:
        if rule.check is not None:
            return _checked(owner, attr)
        if rule.choices:
            return st.sampled_from(rule.choices)
        text = st.text(max_size=12)
        return text.filter(lambda s: s.strip() != "") if rule.nonempty else text
    if get_origin(hint) is tuple:
        item = value_of(get_args(hint)[0], rule.item or Rule(), owner, attr)
        items = st.lists(item, min_size=1 if rule.nonempty else 0, max_size=4)
        if rule.increasing:
            items = items.map(lambda v: sorted(set(v))).filter(lambda v: not rule.nonempty or v)
        return items.map(tuple)
    if get_origin(hint) is dict:
        value = value_of(get_args(hint)[1], rule.item or Rule(), owner, attr)
        return st.dictionaries(st.text(max_size=12), value, max_size=3)
    raise AssertionError(f"no strategy for {hint!r} ({owner.__name__}.{attr})")


def record_of(cls: type) -> st.SearchStrategy[Any]:
    parts = {
        f.attr: value_of(f.hint, f.rule, cls, f.attr) for f in fields_of(cls) if not f.rule.internal
    }
    return st.builds(cls, **parts)


@st.composite
def any_project(draw: st.DrawFn) -> Project:
    """Every field drawn from the schema; tables (whose rules span fields: one person
    table, the key among the columns, categories only on direct identifiers) from the
    hand-written strategy of test_project."""
    tables = draw(projects()).tables
    parts = {
        f.attr: draw(value_of(f.hint, f.rule, Project, f.attr))
        for f in fields_of(Project)
        if not f.rule.internal and f.attr != "tables"
    }
    return Project(tables=tables, **parts)


@settings(max_examples=150, deadline=None)
@given(any_project())
def test_every_declared_field_round_trips(p: Project) -> None:
    body = project_to_dict(p)
    assert json.loads(json.dumps(body)) == body  # plain JSON
    assert project_from_dict(body) == p
    assert project_from_json(to_json(p)) == p


def _declared(cls: type, seen: set[tuple[type, str]]) -> None:
    for f in fields_of(cls):
        seen.add((cls, f.attr))
        inner, _ = unwrap_optional(f.hint)
        args = get_args(inner) if get_origin(inner) in (tuple, dict) else (inner,)
        for a in args:
            if dataclasses.is_dataclass(a):
                _declared(a, seen)


def test_the_rule_table_names_only_declared_fields() -> None:
    seen: set[tuple[type, str]] = set()
    _declared(Project, seen)
    assert {(cls, attr) for cls, rules in RULES.items() for attr in rules} <= seen
    assert (ColumnTag, "cls") in seen  # nested records are reached


def test_a_stale_rule_row_fails_loudly(monkeypatch: pytest.MonkeyPatch) -> None:
    @dataclasses.dataclass(frozen=True)
    class Thing:
        size: int = 1

    monkeypatch.setitem(RULES, Thing, {"sise": Rule(lo=0)})
    with pytest.raises(TypeError, match="sise"):
        fields_of(Thing)


def test_the_file_writes_the_json_keys_of_the_table() -> None:
    body = project_to_dict(make_project())
    tag = body["tables"][0]["columns"][0]
    assert "class" in tag and "cls" not in tag
    assert "transform" in body and "safe_harbor" not in body


@pytest.mark.parametrize(
    ("path", "value", "says"),
    [
        (("risk", "k_target"), 0, "risk.k_target must be a whole number from 1 to 1000000"),
        (("risk", "k_target"), "5", "risk.k_target must be a whole number from 1 to 1000000"),
        (("linkable", "offset_days"), 4000, "linkable.offset_days must be a whole number from 1"),
        (("risk", "age_bands"), [0, -1], "risk.age_bands[1] must be a whole number, 0 or more"),
        (("export", "formats"), [], "export.formats must list at least one item"),
        (("transform", "zip3_table"), 3, "transform.zip3_table must be text or null"),
        (("risk", "drop_zip3"), None, "risk.drop_zip3 must be true or false"),
    ],
)
def test_a_bad_value_names_its_path_and_its_rule(
    path: tuple[str, ...], value: Any, says: str
) -> None:
    body = _body()
    node = body
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value
    with pytest.raises(ProjectError) as err:
        project_from_dict(body)
    assert says in str(err.value)


def test_an_optional_field_may_be_absent_from_an_older_file(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``Rule(optional=True)``: a file without the field opens with the model's default."""
    body = _body()
    del body["risk"]["drop_zip3"]
    with pytest.raises(ProjectError, match=r"risk\.drop_zip3 is missing"):
        project_from_dict(body)
    rules = dict(RULES[RiskSettings])
    rules["drop_zip3"] = Rule(optional=True)
    monkeypatch.setitem(RULES, RiskSettings, rules)
    fields_of.cache_clear()
    try:
        assert project_from_dict(body).risk.drop_zip3 is RiskSettings().drop_zip3
    finally:
        monkeypatch.undo()
        fields_of.cache_clear()
