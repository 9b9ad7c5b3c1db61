"""Project files: round trip, strict validation, integrity, migrations, atomic save, paths.

Projects here are built by hand (no loading, no tagging), so these tests stand alone.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deid_desktop.core import project as proj
from deid_desktop.core.errors import ProjectError
from deid_desktop.core.model import (
    SCHEMA_VERSION,
    ColumnClass,
    ColumnTag,
    ExportMeta,
    FreeTextAction,
    Generalization,
    GeneralizedColumn,
    IdentifierCategory,
    LinkableOptions,
    OffsetMode,
    Pathway,
    Project,
    RiskSettings,
    Role,
    TableSpec,
    TransformOptions,
)
from deid_desktop.core.project import (
    MIGRATIONS,
    content_sha256,
    load_project,
    project_from_dict,
    project_to_dict,
    resolve_path,
    save_project,
    store_path,
)


def make_project() -> Project:
    """A project using every field with non-default values."""
    person = TableSpec(
        name="demographics",
        path="demographics.csv",
        sha256="a" * 64,
        key="patient_id",
        is_person=True,
        columns=(
            ColumnTag(
                "patient_id",
                ColumnClass.DIRECT,
                Role.PERSON_KEY,
                IdentifierCategory.R,
                evidence=("column name looks like a person key",),
            ),
            ColumnTag("mrn", ColumnClass.DIRECT, None, IdentifierCategory.H),
            ColumnTag("dob", ColumnClass.DATE, Role.BIRTH_DATE, date_format="%Y-%m-%d"),
            ColumnTag("zip", ColumnClass.QUASI, Role.ZIP, unsure=True),
            ColumnTag("notes", ColumnClass.FREE_TEXT),
            ColumnTag("lvef", ColumnClass.CLINICAL),
        ),
        rows=10,
    )
    visits = TableSpec(
        name="visits",
        path="sub/visits.xlsx",
        sha256="b" * 64,
        key="patient_id",
        is_person=False,
        columns=(
            ColumnTag("patient_id", ColumnClass.DIRECT, Role.PERSON_KEY, IdentifierCategory.R),
            ColumnTag("visit_date", ColumnClass.DATE, date_format="%m/%d/%Y"),
        ),
        sheet="Visits",
        rows=25,
    )
    return Project(
        project_id="0123456789abcdef0123456789abcdef",
        name="Trial Zoë",
        tables=(person, visits),
        pathway=Pathway.LINKABLE,
        seed=7,
        transform=TransformOptions(
            age_reference="2024-01-01",
            zip3_table="/data/census.csv",
            free_text={"demographics.notes": FreeTextAction.REDACT},
        ),
        linkable=LinkableOptions(
            offset_days=90, offset_mode=OffsetMode.RANDOM, key_length=20, zip_rule="drop"
        ),
        risk=RiskSettings(
            quasi_identifiers=("age", "sex"),
            k_target=10,
            sensitive=("dx",),
            age_bands=(0, 18, 65, 90),
            drop_zip3=True,
            suppress_below_k=True,
        ),
        export=ExportMeta(
            purpose="HF outcomes",
            recipient="Lab",
            retention="1 year",
            dua="DUA-1",
            formats=("csv", "xlsx"),
        ),
    )


def stamped(body: dict[str, Any]) -> str:
    """A project file's text for ``body``, with a valid integrity field."""
    doc = dict(body)
    doc["content_sha256"] = content_sha256(doc)
    return json.dumps(doc, indent=2)


# -------------------------------------------------------------------------- round trips


def test_dict_round_trip_keeps_every_field() -> None:
    p = make_project()
    assert project_from_dict(project_to_dict(p)) == p
    # and the data is plain JSON
    assert json.loads(json.dumps(project_to_dict(p))) == project_to_dict(p)


def test_default_project_round_trips() -> None:
    p = Project(project_id="f" * 32, name="", tables=make_project().tables)
    assert project_from_dict(project_to_dict(p)) == p


def test_file_round_trip_and_file_shape(tmp_path: Path) -> None:
    p = make_project()
    path = tmp_path / "trial.deid.json"
    save_project(p, path)
    assert load_project(path) == p
    text = path.read_text(encoding="utf-8")
    doc = json.loads(text)
    assert doc["schema_version"] == SCHEMA_VERSION
    assert doc["format"] == "deid-desktop project"
    assert doc["content_sha256"] == content_sha256(doc)
    assert text.endswith("}\n") and "Zoë" in text  # readable UTF-8, not \\u escapes
    assert list(doc) == sorted(doc)  # stable: sorted keys
    assert sorted(os.listdir(tmp_path)) == ["trial.deid.json"]  # no temp file left


def test_saving_twice_gives_identical_bytes(tmp_path: Path) -> None:
    p = make_project()
    save_project(p, tmp_path / "a.deid.json")
    save_project(p, tmp_path / "b.deid.json")
    assert (tmp_path / "a.deid.json").read_bytes() == (tmp_path / "b.deid.json").read_bytes()


def test_save_is_atomic_when_the_rename_fails(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "trial.deid.json"
    save_project(make_project(), path)
    before = path.read_bytes()

    def broken_replace(src: Any, dst: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    changed = Project(project_id="e" * 32, name="other", tables=make_project().tables)
    with pytest.raises(ProjectError, match="could not be written"):
        save_project(changed, path)
    assert path.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["trial.deid.json"]


def test_save_refuses_a_project_it_could_not_load_back(tmp_path: Path) -> None:
    p = make_project()
    bad_tag = ColumnTag("zip", ColumnClass.QUASI, Role.ZIP, IdentifierCategory.B)
    bad = p.with_table(p.person_table.with_column(bad_tag))
    with pytest.raises(ProjectError, match=r"columns\[zip\]\.category"):
        save_project(bad, tmp_path / "x.deid.json")
    assert not (tmp_path / "x.deid.json").exists()


def test_save_into_a_missing_folder_is_a_plain_error(tmp_path: Path) -> None:
    with pytest.raises(ProjectError, match="folder for the project file does not exist"):
        save_project(make_project(), tmp_path / "nope" / "x.deid.json")


# -------------------------------------------------------------------- strict validation


def _body() -> dict[str, Any]:
    return project_to_dict(make_project())


def _set(path: str, value: Any) -> Any:
    """A mutation setting a dotted path (list items by index) to ``value``."""

    def mutate(d: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node: Any = d
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value

    return mutate


def _delete(path: str) -> Any:
    def mutate(d: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node: Any = d
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        del node[last]

    return mutate


def _dupe_table(d: dict[str, Any]) -> None:
    d["tables"][1]["name"] = "demographics"


def _no_person(d: dict[str, Any]) -> None:
    d["tables"][0]["is_person"] = False


def _two_persons(d: dict[str, Any]) -> None:
    d["tables"][1]["is_person"] = True


def _bad_free_text(d: dict[str, Any]) -> None:
    d["transform"]["free_text"]["demographics.notes"] = "shred"


def _dupe_column(d: dict[str, Any]) -> None:
    d["tables"][0]["columns"][1]["name"] = "patient_id"


CLS = "tables[demographics].columns[patient_id].class"
MALFORMED = [
    # unknown enum values
    ("unknown class", _set("tables.0.columns.0.class", "secret"), CLS, "direct, quasi, date"),
    ("unknown role", _set("tables.0.columns.3.role", "postcode"),
     "tables[demographics].columns[zip].role", "person_key"),
    ("unknown category", _set("tables.0.columns.1.category", "Z"),
     "tables[demographics].columns[mrn].category", "A, B, C"),
    ("category on a quasi column", _set("tables.0.columns.3.category", "B"),
     "tables[demographics].columns[zip].category", "only allowed for direct"),
    ("unknown pathway", _set("pathway", "anonymous"), "pathway", "safe_harbor, linkable"),
    ("unknown offset mode", _set("linkable.offset_mode", "sometimes"),
     "linkable.offset_mode", "keyed, random"),
    ("unknown free-text action", _bad_free_text, "transform.free_text.demographics.notes",
     "suppress, redact"),
    ("unknown zip rule", _set("linkable.zip_rule", "zip5"), "linkable.zip_rule", "zip3, drop"),
    ("unknown export format", _set("export.formats", ["pdf"]), "export.formats[0]", "csv, xlsx"),
    # wrong types
    ("seed as text", _set("seed", "7"), "seed", "whole number"),
    ("seed as bool", _set("seed", True), "seed", "whole number"),
    ("rows as float", _set("tables.0.rows", 10.0), "tables[demographics].rows", "whole number"),
    ("is_person as text", _set("tables.0.is_person", "yes"),
     "tables[demographics].is_person", "true or false"),
    ("evidence as text", _set("tables.0.columns.0.evidence", "name"),
     "tables[demographics].columns[patient_id].evidence", "must be a list"),
    ("tables as object", _set("tables", {}), "tables", "must be a list"),
    ("column as list", _set("tables.0.columns.0", []),
     "tables[demographics].columns[0]", "JSON object"),
    ("name as number", _set("name", 3), "name", "must be text"),
    ("k below one", _set("risk.k_target", 0), "risk.k_target", "from 1"),
    ("age bands unsorted", _set("risk.age_bands", [18, 0]), "risk.age_bands", "increasing"),
    ("age reference not a date", _set("transform.age_reference", "discharge"),
     "transform.age_reference", "YYYY-MM-DD"),
    ("age reference impossible date", _set("transform.age_reference", "2024-02-30"),
     "transform.age_reference", "YYYY-MM-DD"),
    ("bad sha256", _set("tables.1.sha256", "xyz"), "tables[visits].sha256", "hexadecimal"),
    ("bad project id", _set("project_id", "not-a-uuid"), "project_id", "hexadecimal"),
    # missing and unknown keys
    ("missing pathway", _delete("pathway"), "pathway", "is missing"),
    ("missing table hash", _delete("tables.0.sha256"), "tables[demographics].sha256", "missing"),
    ("missing k", _delete("risk.k_target"), "risk.k_target", "is missing"),
    ("missing class", _delete("tables.1.columns.1.class"),
     "tables[visits].columns[visit_date].class", "is missing"),
    ("unknown field", _set("colour", "blue"), "colour", "not a known field"),
    ("unknown column field", _set("tables.0.columns.0.weight", 1),
     "tables[demographics].columns[patient_id].weight", "not a known field"),
    # structure
    ("duplicate table names", _dupe_table, "tables[demographics].name", "repeats"),
    ("no person table", _no_person, "tables", "exactly one person table"),
    ("two person tables", _two_persons, "tables", "it holds 2"),
    ("duplicate column", _dupe_column, "tables[demographics].columns[patient_id]", "already"),
    ("key not a column", _set("tables.1.key", "subject"), "tables[visits].key",
     "one of the table's columns"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("mutate", "field", "says"), [m[1:] for m in MALFORMED], ids=[m[0] for m in MALFORMED]
)
def test_malformed_project_names_the_field(mutate: Any, field: str, says: str) -> None:
    body = _body()
    mutate(body)
    with pytest.raises(ProjectError) as err:
        project_from_dict(body, file="trial.deid.json")
    message = str(err.value)
    assert field in message
    assert says in message
    assert "trial.deid.json" in message
    assert "Traceback" not in message


def test_malformed_file_is_a_project_error_not_a_traceback(tmp_path: Path) -> None:
    body = _body()
    body["tables"][0]["columns"][0]["class"] = "secret"
    path = tmp_path / "t.deid.json"
    path.write_text(stamped(body), encoding="utf-8")
    with pytest.raises(ProjectError, match=r"columns\[patient_id\]\.class") as err:
        load_project(path)
    assert err.value.exit_code == 4
    assert str(path) in str(err.value)


def test_errors_never_echo_the_bad_value() -> None:
    body = _body()
    body["tables"][0]["columns"][0]["class"] = "SYN-8298957"
    body["pathway"] = "(858) 555-0196"
    with pytest.raises(ProjectError) as err:
        project_from_dict(body)
    assert "SYN-8298957" not in str(err.value)
    body["tables"][0]["columns"][0]["class"] = "direct"
    with pytest.raises(ProjectError) as err:
        project_from_dict(body)
    assert "555-0196" not in str(err.value)


@pytest.mark.parametrize(
    ("content", "says", "line"),
    [
        ('{\n  "schema_version": 1,\n  "name": \n}\n', "not valid JSON", 4),
        ('{"schema_version": 1, "name": "x",}', "not valid JSON", 1),
        ("", "not valid JSON", 1),
        ("[1, 2]", "not a deid-desktop project", None),
        ('{"name": "x"}', "no schema_version", None),
        ('{"schema_version": "1"}', "schema_version must be a whole number", None),
        ('{"schema_version": 99}', "newer version of deid-desktop", None),
        ('{"schema_version": -1}', "0 or more", None),
    ],
)
def test_unreadable_project_text(tmp_path: Path, content: str, says: str, line: int | None) -> None:
    path = tmp_path / "p.deid.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ProjectError, match=says) as err:
        load_project(path)
    assert err.value.row == line
    if line is not None:
        assert f"line {line}" in str(err.value)


def test_not_utf8_missing_and_folder(tmp_path: Path) -> None:
    path = tmp_path / "p.deid.json"
    path.write_bytes(b'{"name": "\xff\xfe"}')
    with pytest.raises(ProjectError, match="not UTF-8"):
        load_project(path)
    with pytest.raises(ProjectError, match="not found"):
        load_project(tmp_path / "missing.deid.json")
    with pytest.raises(ProjectError, match="is a folder"):
        load_project(tmp_path)


# ---------------------------------------------------------------------------- integrity


def test_a_hand_edited_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "trial.deid.json"
    save_project(make_project(), path)
    doc = json.loads(path.read_text(encoding="utf-8"))
    # someone turns the MRN column into "clinical" in a text editor: it would be released
    doc["tables"][0]["columns"][1]["class"] = "clinical"
    doc["tables"][0]["columns"][1]["category"] = None
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    with pytest.raises(ProjectError, match="was changed outside deid-desktop") as err:
        load_project(path)
    assert "deid init" in err.value.hint
    # The app may load it after asking the user; saving re-stamps it.
    edited = load_project(path, trust_edits=True)
    assert edited.person_table.column("mrn").cls is ColumnClass.CLINICAL
    save_project(edited, path)
    assert load_project(path) == edited


def test_a_file_without_its_integrity_field_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "trial.deid.json"
    path.write_text(json.dumps(_body()), encoding="utf-8")
    with pytest.raises(ProjectError, match="no integrity field"):
        load_project(path)


def test_whitespace_and_key_order_are_not_tampering(tmp_path: Path) -> None:
    path = tmp_path / "trial.deid.json"
    save_project(make_project(), path)
    doc = json.loads(path.read_text(encoding="utf-8"))
    reordered = dict(reversed(list(doc.items())))
    path.write_text(json.dumps(reordered, separators=(",", ":")), encoding="utf-8")
    assert load_project(path) == make_project()


# --------------------------------------------------------------------------- migrations


def version_0_body() -> dict[str, Any]:
    """The pre-release draft layout: ``tag`` for the class, risk settings at top level."""
    return {
        "schema_version": 0,
        "project_id": "0123456789abcdef0123456789abcdef",
        "name": "Old trial",
        "pathway": "safe_harbor",
        "seed": 11,
        "tables": [
            {
                "name": "demographics",
                "path": "demographics.csv",
                "sha256": "c" * 64,
                "key": "patient_id",
                "is_person": True,
                "columns": [
                    {"name": "patient_id", "tag": "direct", "role": "person_key",
                     "category": "R"},
                    {"name": "age", "tag": "quasi", "role": "age"},
                    {"name": "notes", "tag": "free_text"},
                ],
            }
        ],
        "quasi_identifiers": ["age"],
        "k_target": 3,
    }  # fmt: skip


def test_migrations_cover_every_older_version() -> None:
    assert sorted(MIGRATIONS) == list(range(SCHEMA_VERSION))


def test_version_0_project_is_migrated() -> None:
    p = project_from_dict(version_0_body())
    assert p.schema_version == SCHEMA_VERSION
    assert p.seed == 11 and p.name == "Old trial"
    assert p.risk == RiskSettings(quasi_identifiers=("age",), k_target=3)
    assert p.person_table.column("age") == ColumnTag("age", ColumnClass.QUASI, Role.AGE)
    assert p.person_table.column("notes").cls is ColumnClass.FREE_TEXT
    assert p.transform == TransformOptions() and p.linkable == LinkableOptions()


def test_version_0_file_loads_and_saves_as_current(tmp_path: Path) -> None:
    path = tmp_path / "old.deid.json"
    path.write_text(json.dumps(version_0_body()), encoding="utf-8")  # v0 had no hash
    p = load_project(path)
    save_project(p, path)
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["schema_version"] == SCHEMA_VERSION and "content_sha256" in doc
    assert load_project(path) == p


def test_migration_output_is_still_validated() -> None:
    body = version_0_body()
    body["tables"][0]["columns"][1]["tag"] = "secret"
    with pytest.raises(ProjectError, match=r"columns\[age\]\.class"):
        project_from_dict(body)


def test_unknown_old_version_is_refused(monkeypatch) -> None:
    monkeypatch.setattr(proj.migrations, "MIGRATIONS", {})
    with pytest.raises(ProjectError, match="format version 0"):
        project_from_dict(version_0_body())


# -------------------------------------------------------------------------------- paths


def test_inputs_in_the_project_folder_are_stored_relative(tmp_path: Path) -> None:
    project_path = tmp_path / "study" / "trial.deid.json"
    assert store_path(tmp_path / "study" / "demographics.csv", project_path) == ("demographics.csv")
    assert store_path(tmp_path / "study" / "raw" / "v.csv", project_path) == "raw/v.csv"


def test_inputs_elsewhere_are_stored_absolute(tmp_path: Path) -> None:
    project_path = tmp_path / "study" / "trial.deid.json"
    stored = store_path(tmp_path / "data" / "demographics.csv", project_path)
    assert stored == (tmp_path / "data" / "demographics.csv").as_posix()
    assert resolve_path(project_path, stored) == tmp_path / "data" / "demographics.csv"


def test_resolve_path(tmp_path: Path) -> None:
    project_path = tmp_path / "study" / "trial.deid.json"
    assert resolve_path(project_path, "raw/v.csv") == tmp_path / "study" / "raw" / "v.csv"
    assert resolve_path(project_path, "/abs/v.csv") == Path("/abs/v.csv")
    # a Windows absolute path is not joined onto the project folder
    assert "study" not in str(resolve_path(project_path, "C:/data/v.csv"))


def test_moving_the_whole_folder_keeps_relative_inputs(tmp_path: Path) -> None:
    a = tmp_path / "a"
    a.mkdir()
    stored = store_path(a / "x.csv", a / "p.deid.json")
    b = tmp_path / "b"
    assert resolve_path(b / "p.deid.json", stored) == b / "x.csv"


def test_save_as_elsewhere_keeps_pointing_at_the_same_inputs(tmp_path: Path) -> None:
    old = tmp_path / "study" / "trial.deid.json"
    p = make_project()
    moved = proj.rebase_paths(p, old, tmp_path / "archive" / "copy.deid.json")
    for before, after in zip(p.tables, moved.tables, strict=True):
        assert resolve_path(tmp_path / "archive" / "copy.deid.json", after.path) == resolve_path(
            old, before.path
        )
        assert after.path.startswith(tmp_path.as_posix())  # outside its folder: absolute
    back = proj.rebase_paths(moved, tmp_path / "archive" / "copy.deid.json", old)
    assert back == p  # and relative again beside the inputs


def test_save_as_elsewhere_keeps_pointing_at_the_same_hierarchy_files(tmp_path: Path) -> None:
    old = tmp_path / "study" / "trial.deid.json"
    new = tmp_path / "archive" / "copy.deid.json"
    chosen = Generalization(
        (
            GeneralizedColumn("race", 1, path="hierarchies/race-1.csv", sha256="0" * 64),
            GeneralizedColumn("age", 2, builtin="age"),
        )
    )
    p = dataclasses.replace(make_project(), generalization=chosen)
    moved = proj.rebase_paths(p, old, new)
    race, age = moved.generalization.columns
    assert resolve_path(new, race.path) == tmp_path / "study" / "hierarchies" / "race-1.csv"
    assert age == chosen.columns[1] and race.sha256 == "0" * 64
    assert proj.rebase_paths(moved, new, old) == p


def test_project_dict_is_independent_of_later_edits() -> None:
    p = make_project()
    body = project_to_dict(p)
    saved = copy.deepcopy(body)
    body["transform"]["free_text"]["x.y"] = "suppress"
    assert project_to_dict(p) == saved


# ------------------------------------------------------------------------- properties

_names = st.text(min_size=1, max_size=12).filter(lambda s: s.strip() != "")


@st.composite
def projects(draw: st.DrawFn) -> Project:
    tables = []
    table_names = draw(st.lists(_names, min_size=1, max_size=3, unique=True))
    for i, tname in enumerate(table_names):
        cols = draw(st.lists(_names, min_size=1, max_size=5, unique=True))
        tags = []
        for c in cols:
            cls = draw(st.sampled_from(ColumnClass))
            tags.append(
                ColumnTag(
                    c,
                    cls,
                    draw(st.none() | st.sampled_from(Role)),
                    draw(st.none() | st.sampled_from(IdentifierCategory))
                    if cls is ColumnClass.DIRECT
                    else None,
                    evidence=tuple(draw(st.lists(st.text(max_size=20), max_size=2))),
                    unsure=draw(st.booleans()),
                    date_format=draw(st.none() | st.just("%Y-%m-%d")),
                )
            )
        tables.append(
            TableSpec(
                name=tname,
                path=draw(_names),
                sha256=draw(st.text("0123456789abcdef", min_size=64, max_size=64)),
                key=cols[0],
                is_person=i == 0,
                columns=tuple(tags),
                sheet=draw(st.none() | _names),
                rows=draw(st.none() | st.integers(0, 10**9)),
            )
        )
    return Project(
        project_id=draw(st.text("0123456789abcdef", min_size=32, max_size=32)),
        name=draw(st.text(max_size=20)),
        tables=tuple(tables),
        pathway=draw(st.sampled_from(Pathway)),
        seed=draw(st.integers(0, 2**63 - 1)),
        risk=RiskSettings(
            quasi_identifiers=tuple(draw(st.lists(_names, max_size=3))),
            k_target=draw(st.integers(1, 100)),
            age_bands=tuple(sorted(set(draw(st.lists(st.integers(0, 120), max_size=5))))),
        ),
    )


@settings(max_examples=60, deadline=None)
@given(projects())
def test_any_valid_project_round_trips_through_its_text(p: Project) -> None:
    assert proj.project_from_json(proj.project_to_json(p)) == p


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=6,
)


def _paths(node: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, (*prefix, i))
    return out


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_any_corruption_is_a_project_error_never_a_traceback(data: st.DataObject) -> None:
    body = _body()
    path = data.draw(st.sampled_from([p for p in _paths(body) if p]))
    node: Any = body
    for part in path[:-1]:
        node = node[part]
    if data.draw(st.booleans()) and isinstance(node, dict):
        del node[path[-1]]
    else:
        node[path[-1]] = data.draw(_json_values)
    with contextlib.suppress(ProjectError):  # valid by chance, or a plain ProjectError
        project_from_dict(body)
