"""export_release: what lands on disk, what is refused, and that nothing leaks."""

from __future__ import annotations

import datetime as dt
import io
import json
import zipfile
from pathlib import Path

import openpyxl
import pandas as pd
import pytest

from deid_desktop.core.errors import CheckFailed, UsageError
from deid_desktop.core.export import (
    CROSSWALK_FILE,
    CROSSWALK_README,
    FULL_RECORD_JSON,
    FULL_RECORD_TXT,
    RECORD_JSON,
    RECORD_TXT,
    export_release,
)
from deid_desktop.core.model import ExportMeta, Pathway
from deid_desktop.core.pathways.registry import pathway_spec
from deid_desktop.core.register import read_register
from tests.core import test_export_support as sup
from tests.core.support import sha

NOW = dt.datetime(2026, 11, 29, 13, 30, tzinfo=dt.UTC)
META = ExportMeta(
    purpose="HF readmission study",
    recipient="Univ. Biostat Core",
    retention="3 years",
    dua="DUA-2026-017",
)


def run_export(tmp_path: Path, *, out: str = "release", xw: str = "crosswalk", **kw):
    kw.setdefault("release", sup.release())
    kw.setdefault("verification", sup.verification())
    kw.setdefault("project", sup.project())
    kw.setdefault("meta", META)
    kw.setdefault("now", NOW)
    kw.setdefault("register_path", tmp_path / "reg" / "register.jsonl")
    rel = kw.pop("release")
    ver = kw.pop("verification")
    return export_release(
        rel,
        ver,
        extract_inputs=sup.inputs(tmp_path / "in"),
        out_dir=tmp_path / out,
        crosswalk_dir=None if xw is None else tmp_path / xw,
        input_rows={"demographics": 4, "visits": 5},
        **kw,
    )


def all_text(folder: Path) -> dict[str, str]:
    """Every file's text, XLSX parts unzipped."""
    out: dict[str, str] = {}
    for p in folder.rglob("*"):
        if p.suffix == ".xlsx":
            with zipfile.ZipFile(p) as z:
                for n in z.namelist():
                    out[f"{p.name}:{n}"] = z.read(n).decode("utf-8")
        elif p.is_file():
            out[p.name] = p.read_text(encoding="utf-8")
    return out


def test_release_folder_holds_tables_dictionary_readme_and_record(tmp_path: Path) -> None:
    rec = run_export(tmp_path)
    assert sorted(p.name for p in (tmp_path / "release").iterdir()) == [
        "README.txt",
        "data_dictionary.csv",
        "demographics.csv",
        RECORD_JSON,
        RECORD_TXT,
        "visits.csv",
    ]
    assert sorted(p.name for p in (tmp_path / "crosswalk").iterdir()) == [
        CROSSWALK_README,
        CROSSWALK_FILE,
        FULL_RECORD_JSON,
        FULL_RECORD_TXT,
    ]
    assert rec.record_path == tmp_path / "release" / RECORD_JSON
    # no staging or scratch folder left beside the outputs
    assert sorted(p.name for p in tmp_path.iterdir()) == ["crosswalk", "reg", "release"]


def test_csv_is_utf8_without_bom_with_lf_and_frame_column_order(tmp_path: Path) -> None:
    rel = sup.release()
    rel.tables["demographics"].loc[0, "sex"] = "Zoë"  # non-ASCII survives as UTF-8
    run_export(tmp_path, release=rel)
    raw = (tmp_path / "release" / "demographics.csv").read_bytes()
    assert not raw.startswith(b"\xef\xbb\xbf")
    assert b"\r" not in raw
    assert raw.splitlines()[0] == b"subject_id,dob_year,sex,zip3,lvef"
    assert "Zoë".encode() in raw
    back = pd.read_csv(io.BytesIO(raw), dtype=str, keep_default_na=False)
    assert list(back["zip3"]) == ["021", "100", "941", "000"]  # leading zeros kept
    assert list(back["subject_id"]) == ["S0001", "S0002", "S0003", "S0004"]


def test_formula_cells_are_neutralised_but_plain_numbers_are_not(tmp_path: Path) -> None:
    run_export(tmp_path, meta=ExportMeta(formats=("csv", "xlsx")))
    demo = pd.read_csv(tmp_path / "release" / "demographics.csv", dtype=str, keep_default_na=False)
    assert list(demo["lvef"]) == ["35", "-1.5", '\'=HYPERLINK("x")', ""]
    visits = pd.read_csv(tmp_path / "release" / "visits.csv", dtype=str)
    assert list(visits["visit_type"]) == ["office", "'@phone", "office", "'+home", "office"]
    ws = openpyxl.load_workbook(tmp_path / "release" / "demographics.xlsx").active
    cells = [c for row in ws.iter_rows() for c in row]
    assert not any(c.data_type == "f" for c in cells)  # nothing is a formula in the workbook
    assert [r[4].value for r in ws.iter_rows(min_row=2)] == [
        "35",
        "-1.5",
        '\'=HYPERLINK("x")',
        None,
    ]
    readme = (tmp_path / "release" / "README.txt").read_text()
    assert "3 cells beginning with =, +, -, @" in readme


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("=1+1", "'=1+1"),
        ("+41 22 555", "'+41 22 555"),
        ("-", "'-"),
        ("--1", "'--1"),
        ("-1+2", "'-1+2"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tcmd", "'\tcmd"),
        ("\rcmd", "'\rcmd"),
        ("-1.5", "-1.5"),
        ("+3", "+3"),
        ("-2e-3", "-2e-3"),
        ("a=b", "a=b"),
        ("", ""),
    ],
)
def test_neutralise_table(value: str, expected: str) -> None:
    from deid_desktop.core.export import neutralise_series

    out, n = neutralise_series(sup.text([value, None]))
    assert out.iloc[0] == expected
    assert pd.isna(out.iloc[1])
    assert n == (value != expected)


def test_failed_blocking_check_writes_nothing(tmp_path: Path) -> None:
    before = sup.tree(tmp_path)
    with pytest.raises(CheckFailed) as err:
        run_export(tmp_path, verification=sup.verification("no_direct_values", "no_full_dates"))
    msg = str(err.value)
    assert "2 blocking release checks failed" in msg
    assert "No direct value in any cell (3)" in msg and "No full date (3)" in msg
    assert "Nothing was written" in msg
    assert sup.tree(tmp_path) == before  # not the folders, not the register


def test_failed_warning_check_does_not_block(tmp_path: Path) -> None:
    rec = run_export(tmp_path, verification=sup.verification("rare_zip"))
    failed = [c for c in rec.record["checks"] if not c["passed"]]
    assert failed == [
        {
            "id": "rare_zip",
            "name": "Only allowed ZIP3",
            "rule": "164.514(b)(2)(i)(B)",
            "severity": "warning",
            "passed": False,
            "count": 3,
        }
    ]
    assert rec.record["checks"][0]["id"] == "rare_zip"  # failures listed first


@pytest.mark.parametrize("xw", ["release", "release/crosswalk", "release/a/b"])
def test_crosswalk_in_or_under_release_folder_is_refused(tmp_path: Path, xw: str) -> None:
    before = sup.tree(tmp_path)
    with pytest.raises(CheckFailed) as err:
        run_export(tmp_path, xw=xw)
    assert "164.514(c)" in str(err.value)
    assert sup.tree(tmp_path) == before


def test_release_folder_inside_crosswalk_folder_is_refused(tmp_path: Path) -> None:
    before = sup.tree(tmp_path)
    with pytest.raises(CheckFailed, match="contains the release folder"):
        run_export(tmp_path, out="secure/release", xw="secure")
    assert sup.tree(tmp_path) == before


def test_crosswalk_reached_through_a_symlink_is_still_refused(tmp_path: Path) -> None:
    (tmp_path / "release").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "release")
    with pytest.raises(CheckFailed):
        run_export(tmp_path, xw="link/xw")
    assert sup.tree(tmp_path / "release") == set()


def test_release_with_crosswalk_needs_a_crosswalk_folder(tmp_path: Path) -> None:
    with pytest.raises(UsageError):
        run_export(tmp_path, xw=None)
    assert not (tmp_path / "release").exists()


def test_no_output_file_ever_says_anonym(tmp_path: Path) -> None:
    run_export(tmp_path, meta=ExportMeta(formats=("csv", "xlsx")))
    texts = {**all_text(tmp_path / "release"), **all_text(tmp_path / "crosswalk")}
    assert len(texts) > 8
    offenders = [name for name, t in texts.items() if "anonym" in t.lower()]
    assert offenders == []


@pytest.mark.parametrize("pathway", list(Pathway))
def test_readme_states_the_pathway_label(tmp_path: Path, pathway: Pathway) -> None:
    run_export(tmp_path, release=sup.release(pathway), project=sup.project(pathway))
    readme = (tmp_path / "release" / "README.txt").read_text()
    assert f"This release is {pathway_spec(pathway).label}." in readme
    if pathway == Pathway.SAFE_HARBOR:
        assert "de-identified under HIPAA Safe Harbor (45 CFR 164.514(b)(2))" in readme
    else:
        assert "Safe Harbor (45 CFR 164.514(b)(2))" not in readme.split("What was done")[0]


def test_readme_tells_what_was_done_risk_and_scan_caveat(tmp_path: Path) -> None:
    risk = {
        "quasi_identifiers": ["sex", "zip"],
        "rows": 4,
        "classes": 4,
        "k": 1,
        "k_target": 5,
        "lone": 4,
        "below_k": 4,
        "below_k_classes": 4,
        "prosecutor_max": 1.0,
        "prosecutor_mean": 1.0,
    }
    run_export(tmp_path, risk=risk)
    readme = (tmp_path / "release" / "README.txt").read_text()
    for t in sup.release().transformations:
        assert t in readme
    assert "k (smallest group of records sharing the same values): 1" in readme
    assert "Lone records (a group of one): 4" in readme
    assert "Records in groups smaller than 5: 4" in readme
    assert "Prosecutor risk: maximum 1.0000" in readme
    assert "cannot prove a note clean" in readme
    assert "Recipient: Univ. Biostat Core" in readme and "DUA-2026-017" in readme


def test_data_dictionary_lists_every_released_column(tmp_path: Path) -> None:
    run_export(tmp_path)
    dd = pd.read_csv(tmp_path / "release" / "data_dictionary.csv", dtype=str)
    assert list(dd.columns) == ["table", "column", "class", "transformation", "description"]
    assert list(zip(dd["table"], dd["column"], strict=True)) == [
        ("demographics", "subject_id"),
        ("demographics", "dob_year"),
        ("demographics", "sex"),
        ("demographics", "zip3"),
        ("demographics", "lvef"),
        ("visits", "subject_id"),
        ("visits", "visit_year"),
        ("visits", "visit_type"),
    ]
    row = dd.set_index(["table", "column"])
    dob = row.loc[("demographics", "dob_year")]
    assert dob["transformation"] == (
        "derived from dob: reduced to the year; removed for persons aged 90 or over; "
        "counted in the residual risk"
    )
    assert dob["class"] == "date"
    assert "first three digits" in row.loc[("demographics", "zip3"), "transformation"]
    assert row.loc[("visits", "visit_year"), "transformation"].startswith("derived from visit_date")
    assert row.loc[("demographics", "subject_id"), "class"] == "code"
    assert row.loc[("visits", "visit_type"), "class"] == "clinical"


def test_record_hashes_match_the_files_written(tmp_path: Path) -> None:
    rec = run_export(tmp_path)
    on_disk = json.loads((tmp_path / "release" / RECORD_JSON).read_text())
    assert on_disk == rec.record
    listed = {f["name"]: f for f in on_disk["outputs"]["files"]}
    files = {p.name for p in (tmp_path / "release").iterdir()} - {RECORD_JSON, RECORD_TXT}
    assert set(listed) == files
    for name, f in listed.items():
        p = tmp_path / "release" / name
        assert f["sha256"] == sha(p) and f["bytes"] == p.stat().st_size
    assert on_disk["crosswalk"] == {"held_back": True, "where": "held back with the crosswalk"}
    full = json.loads((tmp_path / "crosswalk" / FULL_RECORD_JSON).read_text())
    assert (
        full == rec.full_record
        and rec.full_record_path == tmp_path / "crosswalk" / FULL_RECORD_JSON
    )
    cw = full["crosswalk"]
    assert cw["sha256"] == sha(tmp_path / "crosswalk" / CROSSWALK_FILE)
    assert cw["folder"] == str(tmp_path / "crosswalk") and cw["rows"] == 4
    assert full["outputs"] == on_disk["outputs"]
    assert [i["sha256"] for i in on_disk["inputs"]] == ["a" * 64, "b" * 64]


def test_record_carries_time_version_parameters_checks_and_meta(tmp_path: Path) -> None:
    rec = run_export(tmp_path).record
    assert rec["time_utc"] == "2026-11-29T13:30:00Z"
    assert rec["app"]["version"]
    assert rec["pathway"] == "safe_harbor"
    assert rec["label"] == pathway_spec(Pathway.SAFE_HARBOR).label
    assert rec["seed"] == "held back with the crosswalk"
    assert rec["zip3_table"] == {
        "zip3_table": {"vintage": "2020 Census DHC P1", "source": "bundled"}
    }
    assert rec["parameters"]["transform"]["age_reference"] == "index"
    assert rec["parameters"]["risk"]["k_target"] == 5
    assert len(rec["checks"]) == 5 and rec["checks_passed"] is True
    assert rec["meta"]["purpose"] == "HF readmission study"
    assert rec["meta"]["retention"] == "3 years" and rec["meta"]["dua"] == "DUA-2026-017"
    assert rec["rows"]["visits"] == {"input": 5, "released": 5, "suppressed": 0}
    assert rec["column_tags"]["demographics"]["zip"] == {
        "class": "quasi",
        "role": "zip",
        "category": None,
    }
    txt = (tmp_path / "release" / RECORD_TXT).read_text()
    assert "2026-11-29T13:30:00Z" in txt and "DUA-2026-017" in txt


def test_record_register_and_readme_hold_no_data_value_and_no_salt(tmp_path: Path) -> None:
    run_export(tmp_path, meta=ExportMeta(formats=("csv", "xlsx")))
    docs = [
        (tmp_path / "release" / n).read_text()
        for n in (RECORD_JSON, RECORD_TXT, "README.txt", "data_dictionary.csv")
    ] + [(tmp_path / "reg" / "register.jsonl").read_text()]
    values = set()
    for frame in [*sup.extract_frames().values(), *sup.release().tables.values()]:
        for col in frame.columns:
            values |= {v for v in frame[col].dropna() if len(v) >= 5}
    values |= set(sup.NAMES) | set(sup.MRNS) | set(sup.KEYS)
    for doc in docs:
        assert [v for v in values if v in doc] == []
        assert sup.SALT.hex() not in doc and "never-in-a-record" not in doc
        assert "salt" not in doc.lower()


def test_register_gets_one_line_per_export_and_reads_back(tmp_path: Path) -> None:
    reg = tmp_path / "reg" / "register.jsonl"
    run_export(tmp_path, out="r1", xw="x1")
    run_export(tmp_path, out="r2", xw="x2", meta=ExportMeta(recipient="Second lab"))
    entries = read_register(reg)
    assert [e["meta"]["recipient"] for e in entries] == ["Univ. Biostat Core", "Second lab"]
    assert entries[1]["record_path"] == str(tmp_path / "r2" / RECORD_JSON)
    assert (
        entries[0]["outputs"] == json.loads((tmp_path / "r1" / RECORD_JSON).read_text())["outputs"]
    )
    assert len(reg.read_text().splitlines()) == 2


def test_two_exports_differ_only_by_time_and_folders(tmp_path: Path) -> None:
    a = run_export(tmp_path, out="a", xw="xa", meta=ExportMeta(formats=("csv", "xlsx")))
    b = run_export(
        tmp_path,
        out="b",
        xw="xb",
        meta=ExportMeta(formats=("csv", "xlsx")),
        now=NOW + dt.timedelta(days=3, seconds=7),
    )
    for name in [p.name for p in (tmp_path / "a").iterdir()]:
        if name not in {RECORD_JSON, RECORD_TXT}:
            assert sha(tmp_path / "a" / name) == sha(tmp_path / "b" / name), name
    assert sha(tmp_path / "xa" / CROSSWALK_FILE) == sha(tmp_path / "xb" / CROSSWALK_FILE)
    ra, rb = dict(a.record), dict(b.record)
    assert ra.pop("time_utc") != rb.pop("time_utc")
    assert ra.pop("outputs")["files"] == rb.pop("outputs")["files"]
    assert ra == rb  # the release's record names neither crosswalk folder
    fa, fb = dict(a.full_record), dict(b.full_record)
    assert fa.pop("time_utc") != fb.pop("time_utc")
    assert fa.pop("outputs")["files"] == fb.pop("outputs")["files"]
    assert fa.pop("crosswalk").pop("folder") != fb.pop("crosswalk").pop("folder")
    assert fa == fb


def test_xlsx_too_large_is_refused_before_writing(tmp_path: Path, monkeypatch) -> None:
    from deid_desktop.core.export import tables

    monkeypatch.setattr(tables, "XLSX_MAX_ROWS", 4)
    before = sup.tree(tmp_path)
    with pytest.raises(UsageError, match="visits"):
        run_export(tmp_path, meta=ExportMeta(formats=("csv", "xlsx")))
    assert sup.tree(tmp_path) == before


def test_existing_release_needs_overwrite_and_foreign_folders_are_never_overwritten(
    tmp_path: Path,
) -> None:
    run_export(tmp_path)
    first = sha(tmp_path / "release" / RECORD_JSON)
    with pytest.raises(UsageError, match="not empty"):
        run_export(tmp_path, now=NOW + dt.timedelta(hours=1))
    assert sha(tmp_path / "release" / RECORD_JSON) == first
    run_export(tmp_path, now=NOW + dt.timedelta(hours=1), overwrite=True)
    assert sha(tmp_path / "release" / RECORD_JSON) != first
    assert sorted(p.name for p in tmp_path.iterdir()) == ["crosswalk", "reg", "release"]
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "thesis.docx").write_bytes(b"precious")
    with pytest.raises(UsageError, match="not written by deid-desktop"):
        run_export(tmp_path, out="docs", xw="xw2", overwrite=True)
    assert (tmp_path / "docs" / "thesis.docx").read_bytes() == b"precious"
    assert not (tmp_path / "xw2").exists()


def test_empty_existing_folders_are_used(tmp_path: Path) -> None:
    (tmp_path / "release").mkdir()
    (tmp_path / "crosswalk").mkdir()
    run_export(tmp_path)
    assert (tmp_path / "release" / "README.txt").exists()


def test_register_inside_the_release_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="register"):
        run_export(tmp_path, register_path=tmp_path / "release" / "register.jsonl")
    assert sup.tree(tmp_path) == set()


def test_xlsx_cells_are_text_escaped_and_control_characters_recorded(tmp_path: Path) -> None:
    rel = sup.release()
    rel.tables["visits"].loc[0, "visit_type"] = "a<b>&c"
    rel.tables["visits"].loc[2, "visit_type"] = "bell\x07"
    rec = run_export(tmp_path, release=rel, meta=ExportMeta(formats=("csv", "xlsx")))
    ws = openpyxl.load_workbook(tmp_path / "release" / "visits.xlsx").active
    rows = [[c.value for c in r] for r in ws.iter_rows()]
    assert rows[0] == ["subject_id", "visit_year", "visit_type"]
    assert rows[1] == ["S0001", "2024", "a<b>&c"]
    assert rows[3][2] == "bell"
    assert all(c.data_type == "s" for r in ws.iter_rows() for c in r if c.value is not None)
    assert rec.record["xlsx_control_characters_removed"] == {"visits": 1}
    demo = openpyxl.load_workbook(tmp_path / "release" / "demographics.xlsx").active
    assert [r[1].value for r in demo.iter_rows(min_row=2)] == [None, "1975", "1988", "1950"]
    assert ws.title == "visits"
