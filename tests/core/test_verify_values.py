"""The value check of the gate: a released column that still looks like an identifier
fails the release whatever its tag; the demo (three pathways), Synthea and the adult
data pass with their tags; the detail names columns and kinds, never a value."""

from __future__ import annotations

import base64
import codecs
import hashlib
import json
import uuid
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

from deid_desktop.core.demo import demo_project, make_demo_frames
from deid_desktop.core.io import read_table
from deid_desktop.core.model import (
    ColumnClass,
    ExportMeta,
    Extract,
    Pathway,
    Project,
    Release,
    TableSpec,
    TransformOptions,
)
from deid_desktop.core.pathways import build_release
from deid_desktop.core.resources import resource
from deid_desktop.core.tagging import suggest_tags
from deid_desktop.core.tagging.retag import keyed_tags
from deid_desktop.core.tagging.values import SAMPLE_SIZE
from deid_desktop.core.verify import Verification, checks_for, verify_release
from deid_desktop.core.verify.values import (
    DIGESTS,
    DIRECT_FROM_VALUES,
    ENCODED,
    NAMES,
    RECORD_CODES,
    SHIFTED,
    UNIQUE_CODES,
    ZIPS,
)
from tests.core.support import loaded, synthea_project

SALT = bytes(range(3, 35))
SH_ID = "no_identifier_values"
LDS_ID = "lds_no_identifier_values"
CHECK_ID = {Pathway.SAFE_HARBOR: SH_ID, Pathway.LINKABLE: SH_ID, Pathway.LIMITED_DATA_SET: LDS_ID}


@pytest.fixture(scope="module")
def demo() -> tuple[Extract, Project]:
    frames = make_demo_frames()
    project = demo_project(frames, dict.fromkeys(frames, "0" * 64), 20260423)
    project = replace(project, export=replace(project.export, dua="DUA-TEST-1"))
    extract = Extract(
        loaded("demographics", frames["demographics"]),
        (loaded("baseline", frames["baseline"]), loaded("visits", frames["visits"])),
    )
    return extract, project


def _verify(extract: Extract, project: Project) -> tuple[Release, Verification]:
    release = build_release(extract, project, salt=SALT)
    return release, verify_release(extract, release, project)


def _retagged(project: Project, column: str) -> Project:
    """``column`` of the demographics table re-tagged clinical, as a user could."""
    spec = project.table("demographics")
    tags = tuple(
        replace(t, cls=ColumnClass.CLINICAL, role=None, category=None) if t.name == column else t
        for t in spec.columns
    )
    assert tags != spec.columns
    tables = tuple(replace(s, columns=tags) if s.name == spec.name else s for s in project.tables)
    return replace(project, tables=tables)


def _values_of(frame: pd.DataFrame, column: str) -> list[str]:
    return [v for v in frame[column].dropna().astype(str).unique() if len(v) >= 4]


def test_registered_for_every_pathway() -> None:
    assert SH_ID in {c.id for c in checks_for(Pathway.SAFE_HARBOR)}
    assert SH_ID in {c.id for c in checks_for(Pathway.LINKABLE)}
    assert LDS_ID in {c.id for c in checks_for(Pathway.LIMITED_DATA_SET)}
    assert SH_ID not in {c.id for c in checks_for(Pathway.LIMITED_DATA_SET)}
    for pathway, check_id in CHECK_ID.items():
        check = next(c for c in checks_for(pathway) if c.id == check_id)
        assert check.severity == "blocking"


@pytest.mark.parametrize("pathway", list(Pathway))
def test_demo_with_its_tags_passes(demo: tuple[Extract, Project], pathway: Pathway) -> None:
    extract, project = demo
    release, verdict = _verify(extract, replace(project, pathway=pathway))
    assert verdict.passed, [o.check.id for o in verdict.blocking_failures]
    outcome = verdict.outcome(CHECK_ID[pathway])
    assert (outcome.passed, outcome.count, outcome.detail["columns"]) == (True, 0, [])
    # race ("White" ...), visit_type ("Day 7" ...) and dob_year were read and passed
    assert release.id_column in outcome.detail["not_read"]
    assert outcome.detail["columns_read"] == sum(
        len(f.columns) - 1 for f in release.tables.values()
    ) - len(outcome.detail["not_read"][1:])


RETAGGED = [
    # (pathway, column re-tagged clinical, kind found, or None when the pathway keeps it)
    *[
        (pathway, column, kind)
        for pathway in (Pathway.SAFE_HARBOR, Pathway.LINKABLE)
        for column, kind in (
            ("mrn", UNIQUE_CODES),
            ("phone", "US phone numbers"),
            ("last_name", NAMES),
            ("first_name", NAMES),
            ("zip", ZIPS),
        )
    ],
    (Pathway.LIMITED_DATA_SET, "mrn", UNIQUE_CODES),
    (Pathway.LIMITED_DATA_SET, "phone", "US phone numbers"),
    (Pathway.LIMITED_DATA_SET, "last_name", NAMES),
    (Pathway.LIMITED_DATA_SET, "first_name", NAMES),
]


@pytest.mark.parametrize(("pathway", "column", "kind"), RETAGGED)
def test_demo_identifier_retagged_clinical_fails(
    demo: tuple[Extract, Project], pathway: Pathway, column: str, kind: str
) -> None:
    extract, project = demo
    release, verdict = _verify(extract, _retagged(replace(project, pathway=pathway), column))
    assert column in release.tables["demographics"].columns  # the tags let it through
    outcome = verdict.outcome(CHECK_ID[pathway])
    assert not outcome.passed and not verdict.passed
    assert CHECK_ID[pathway] in {o.check.id for o in verdict.blocking_failures}
    assert outcome.count == 1
    assert outcome.detail["columns"] == [f"demographics.{column}"]
    found = outcome.detail["found"][f"demographics.{column}"]
    assert found["kind"] == kind
    assert found["share"] >= 0.5
    assert found["sampled"] == SAMPLE_SIZE  # 2,432 rows: an even sample, not every row
    text = json.dumps(verdict.to_dict())
    leaked = [v for v in _values_of(release.tables["demographics"], column) if v in text]
    assert not leaked, f"{len(leaked)} values of {column} in the verification"


def test_limited_data_set_keeps_its_zip(demo: tuple[Extract, Project]) -> None:
    extract, project = demo
    for tagged in (project, _retagged(project, "zip")):
        release, verdict = _verify(extract, replace(tagged, pathway=Pathway.LIMITED_DATA_SET))
        assert release.tables["demographics"]["zip"].str.fullmatch(r"\d{5}").all()
        outcome = verdict.outcome(LDS_ID)
        assert outcome.passed, outcome.detail


# ------------------------------------------------------------- kinds, in any column


def _with_column(
    demo: tuple[Extract, Project], table: str, values: list[str], name: str = "extra"
) -> Verification:
    """The demo's Safe Harbor release with one more released column ``name`` (as if
    tagged clinical): ``values`` repeated over the table's rows."""
    extract, project = demo
    release = build_release(extract, project)
    frame = release.tables[table].copy()
    frame[name] = pd.array(
        [values[i % len(values)] for i in range(len(frame))], dtype=frame.dtypes.iloc[0]
    )
    tables = {**release.tables, table: frame}
    return verify_release(extract, replace(release, tables=tables), project)


def _unique(template: str, n: int = 3000) -> list[str]:
    return [template.format(i=i, a=i % 256, b=(i // 256) % 256) for i in range(n)]


#: 1,600 names (40 common given names by 40 common surnames), as persons have them.
_NAMES = [
    (g.title(), n.title())
    for g in resource("names", "given_names.txt").read_text().split()[:40]
    for n in resource("names", "surnames.txt").read_text().split()[:40]
]

KINDS = [
    ("e-mails", _unique("person{i}@example.org"), "e-mail addresses"),
    ("ssns", [f"{100 + i % 800:03d}-{10 + i % 90}-{i:04d}" for i in range(3000)],
     "Social Security numbers"),
    ("urls", _unique("https://example.org/patient/{i}"), "web addresses (URLs)"),
    ("ips", _unique("10.1.{b}.{a}"), "IP addresses"),
    ("uuids", [str(uuid.UUID(int=i * 7919 + 1)) for i in range(3000)], "UUID-style codes"),
    ("record numbers", _unique("MRN{i:07d}", 7000), UNIQUE_CODES),
    # a name's unsalted SHA cut to 16: persons of one name share it (a quarter repeat)
    ("name digests", [hashlib.sha256(f"name{i}".encode()).hexdigest()[:16] for i in range(1500)],
     DIGESTS),
    # an MD5 of each MRN has a UUID's 32 hexadecimal digits
    ("md5s", [hashlib.md5(f"MRN{i}".encode()).hexdigest() for i in range(3000)],
     "UUID-style codes"),
    ("account numbers", _unique("{i:09d}", 7000), UNIQUE_CODES),
    # names written so that anyone can read them back (each name over a few persons)
    ("base64 names", [base64.b64encode(f"{g} {s}".encode()).decode() for g, s in _NAMES],
     ENCODED),
    ("base32 surnames", [base64.b32encode(s.encode()).decode() for _g, s in _NAMES], ENCODED),
    ("rot13 names", [codecs.encode(f"{g} {s}", "rot13") for g, s in _NAMES], SHIFTED),
    # an unsalted SHA of each name in base64, cut to 22 characters
    ("base64 name digests",
     [base64.b64encode(hashlib.sha256(f"{g}{s}".encode()).digest()).decode()[:22]
      for g, s in _NAMES], DIGESTS),
    # repeating per person, as in an event table: not unique, still record numbers
    ("repeated record numbers", _unique("AB-{i:06d}", 1500), RECORD_CODES),
    ("surnames", ["Smith", "Johnson", "Garcia", "Miller", "Davis", "Lopez", "Wilson",
                  "Anderson", "Taylor", "Moore", "Jackson", "Martin", "Thompson"], NAMES),
    ("zips", _unique("{i:05d}", 900), ZIPS),
    # numbers with a trace (15%) of e-mails: the tagger would not call it clinical
    ("numbers and some e-mails",
     [f"person{i}@example.org" if i % 20 < 3 else f"{i / 10:.1f}" for i in range(7000)],
     DIRECT_FROM_VALUES),
]  # fmt: skip


@pytest.mark.parametrize(("label", "values", "kind"), KINDS, ids=[k[0] for k in KINDS])
def test_each_kind_is_found_in_an_event_table(
    demo: tuple[Extract, Project], label: str, values: list[str], kind: str
) -> None:
    verdict = _with_column(demo, "visits", values)
    outcome = verdict.outcome(SH_ID)
    assert not outcome.passed, label
    assert outcome.detail["columns"] == ["visits.extra"]
    assert outcome.detail["found"]["visits.extra"]["kind"] == kind
    assert outcome.detail["found"]["visits.extra"]["sampled"] <= SAMPLE_SIZE
    text = json.dumps(outcome.detail)
    assert not [v for v in values if len(v) >= 5 and v in text]


NOT_IDENTIFIERS = [
    ("race", ["White", "Black or African American", "Asian", "Other"]),
    ("visit type", ["Day 7", "Day 30", "Day 90", "Day 180", "Month 12"]),
    ("years", [str(y) for y in range(1930, 2024)]),
    # 3 in 4 five-digit, like Synthea's incomes: below the tagger's 95% for ZIP codes
    ("5-digit incomes", [str(20000 + 37 * i if i % 4 else 100000 + i) for i in range(3000)]),
    ("decimals", [f"{v / 10:.1f}" for v in range(100, 3100)]),
    ("nyha", ["I", "II", "III", "IV"]),
    # a few hexadecimal lot numbers of a device, over many rows: not a code per person
    ("hex lot numbers", [f"{0xA0B1C2D3 + 977 * i:x}" for i in range(20)]),
    ("empty", [""]),
    # clinical words that fit base64's alphabet (8 letters or more) are no encoded text
    (
        "long clinical words",
        [
            "Hypertension",
            "Diabetes",
            "Pneumonia",
            "Cardiomyopathy",
            "Arrhythmia",
            "Dyspnoea",
            "Hyperkalemia",
            "Orthopnea",
            "Furosemide",
            "Spironolactone",
            "Metoprolol",
            "Lisinopril",
            "Atorvastatin",
            "Warfarin",
            "Apixaban",
            "Rivaroxaban",
            "Carvedilol",
            "Sacubitril",
            "Valsartan",
            "Dapagliflozin",
        ],
    ),
    # a few base64 lot numbers of a device over many rows: not a token per person
    (
        "base64 lot numbers",
        [base64.b64encode(bytes([i, 7, 3 * i, 200, 9, i])).decode() for i in range(12)],
    ),
]


@pytest.mark.parametrize(("label", "values"), NOT_IDENTIFIERS, ids=[k[0] for k in NOT_IDENTIFIERS])
def test_categories_numbers_and_years_pass(
    demo: tuple[Extract, Project], label: str, values: list[str]
) -> None:
    outcome = _with_column(demo, "visits", values).outcome(SH_ID)
    assert outcome.passed, (label, outcome.detail)


def test_five_digit_numbers_are_zips_unless_the_name_says_otherwise(
    demo: tuple[Extract, Project],
) -> None:
    incomes = [f"{48000 + 731 * i}" for i in range(12)]  # as in test_verify: all 5 digits
    assert _with_column(demo, "demographics", incomes, "INCOME").outcome(SH_ID).passed
    unnamed = _with_column(demo, "demographics", incomes, "x1").outcome(SH_ID)
    assert unnamed.detail["found"]["demographics.x1"]["kind"] == ZIPS
    # named for a postal code: half is enough
    some = [f"{2100 + i:05d}" if i % 5 < 3 else "unknown" for i in range(40)]
    named = _with_column(demo, "demographics", some, "home_postcode").outcome(SH_ID)
    assert named.detail["found"]["demographics.home_postcode"]["kind"] == ZIPS
    assert _with_column(demo, "demographics", some, "x1").outcome(SH_ID).passed


# ------------------------------------------------------------- real extracts


@pytest.fixture(scope="module")
def synthea(public_data: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple:
    src = public_data / "synthea" / "unmc_crane_2023"
    return synthea_project(src, tmp_path_factory.mktemp("synthea_values"), Pathway.SAFE_HARBOR)


@pytest.mark.parametrize("pathway", list(Pathway))
def test_synthea_passes(synthea: tuple, pathway: Pathway) -> None:
    project, extract = synthea
    release, verdict = _verify(extract, replace(project, pathway=pathway))
    outcome = verdict.outcome(CHECK_ID[pathway])
    assert outcome.passed, outcome.detail["found"]
    assert outcome.detail["columns_read"] >= 30
    if pathway is Pathway.SAFE_HARBOR:
        assert verdict.passed, [o.check.id for o in verdict.blocking_failures]
        # 5-digit incomes (75% of them) are not ZIP codes
        assert "INCOME" in release.tables["patients"].columns
    if pathway is Pathway.LIMITED_DATA_SET:
        assert "patients.ZIP" in outcome.detail["not_read"]


def test_synthea_ssn_and_names_retagged_fail(synthea: tuple) -> None:
    project, extract = synthea
    spec = project.table("patients")
    loosened = tuple(
        replace(t, cls=ColumnClass.CLINICAL, role=None, category=None)
        if t.name in ("SSN", "FIRST", "LAST", "PASSPORT")
        else t
        for t in spec.columns
    )
    tables = tuple(replace(s, columns=loosened) if s is spec else s for s in project.tables)
    _, verdict = _verify(extract, replace(project, tables=tables))
    found = verdict.outcome(SH_ID).detail["found"]
    assert found["patients.SSN"]["kind"] == "Social Security numbers"
    assert found["patients.FIRST"]["kind"] == NAMES
    assert found["patients.LAST"]["kind"] == NAMES
    assert "patients.PASSPORT" in found


@pytest.mark.parametrize("name", ["adult.csv", "adult_uci_raw.csv"])
def test_adult_passes(public_data: Path, name: str) -> None:
    table = read_table(public_data / "adult" / name)
    frame = table.frame.copy()
    frame.insert(0, "person_id", pd.array([f"P{i}" for i in range(len(frame))], dtype="string"))
    tags = keyed_tags(suggest_tags(frame, table="adult", is_person=True), "person_id")
    project = Project(
        uuid.uuid4().hex,
        "adult",
        (TableSpec("adult", name, "0" * 64, "person_id", True, tags, rows=len(frame)),),
        transform=TransformOptions(age_reference="2024-01-01"),
        export=ExportMeta(dua="DUA-TEST-1"),
    )
    extract = Extract(loaded("adult", frame), ())
    for pathway in Pathway:
        _, verdict = _verify(extract, replace(project, pathway=pathway))
        outcome = verdict.outcome(CHECK_ID[pathway])
        assert outcome.passed, (pathway, outcome.detail["found"])
        assert outcome.detail["columns_read"] >= 8
