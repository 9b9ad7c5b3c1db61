"""`deid demo`, `deid init`, `deid tags`, `deid tag` end to end, in fresh processes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from deid_desktop.core import demo
from deid_desktop.core.project import load_project
from tests.e2e._cli import main_captured, run_deid

COLUMN_KEYS = {"name", "class", "role", "category", "unsure", "evidence"}
TABLE_KEYS = {"name", "path", "key", "is_person", "columns"}


def deid(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_deid(*args, cwd=cwd)


def deid_in_process(
    *args: str | Path, cwd: Path, capsys: pytest.CaptureFixture[str], monkeypatch
) -> tuple[int, str, str]:
    """The same entry point in this process (for long tables of usage cases)."""
    monkeypatch.chdir(cwd)
    return main_captured(capsys, *args)


def tags_of(project: Path, cwd: Path) -> dict[str, Any]:
    out = deid("tags", project, "--json", cwd=cwd)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def column(doc: dict[str, Any], table: str, name: str) -> dict[str, Any]:
    t = next(t for t in doc["tables"] if t["name"] == table)
    return next(c for c in t["columns"] if c["name"] == name)


@pytest.fixture(scope="module")
def demo_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cli")
    out = deid("demo", "--out", "demo", cwd=root)
    assert out.returncode == 0, out.stderr
    return root / "demo"


@pytest.fixture
def initialised(demo_dir: Path, tmp_path: Path) -> Path:
    for f in demo.TABLE_FILES.values():
        (tmp_path / f).write_bytes((demo_dir / f).read_bytes())
    out = deid(
        "init", "demographics.csv", "baseline.csv", "visits.csv", "-o", "trial.deid.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    return tmp_path / "trial.deid.json"


# ----------------------------------------------------------------------------- deid --help

HEAVY_MODULES = ("pandas", "numpy", "pyarrow", "keyring", "cryptography")


@pytest.mark.parametrize("command", [[], ["salt"], ["risk"], ["pathway"], ["salt", "rotate"]])
def test_help_loads_no_heavy_library(command: list[str]) -> None:
    """`deid --help` (and a subcommand's) builds every parser: it must not wait for pandas,
    numpy, pyarrow, the keyring or cryptography to load."""
    code = (
        "import sys\n"
        "from deid_desktop.cli import build_parser, main\n"
        "build_parser()\n"
        "try:\n"
        f"    main({[*command, '--help']!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        f"loaded = [m for m in {HEAVY_MODULES!r} if m in sys.modules]\n"
        "print('LOADED', *loaded, file=sys.stderr)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert "usage: deid" in out.stdout
    assert out.stderr.strip().splitlines()[-1] == "LOADED"


def test_help_texts_keep_the_moved_constants() -> None:
    """The limits and the rotation warning shown in help come from core.constants and are
    the ones the engine enforces (still importable from their old homes)."""
    from deid_desktop import secrets
    from deid_desktop.core import constants, linkage
    from deid_desktop.core.scan import dictionary

    assert secrets.ROTATE_WARNING == constants.ROTATE_WARNING
    assert (linkage.MIN_KEY_LENGTH, linkage.MAX_KEY_LENGTH) == (12, 64)
    assert linkage.MAX_OFFSET_DAYS == constants.MAX_OFFSET_DAYS
    assert dictionary.DICT_KINDS is constants.DICT_KINDS
    pathway_help = run_deid("pathway", "--help").stdout
    assert "(12-64; 16)" in " ".join(pathway_help.split())
    rotate_help = " ".join(run_deid("salt", "rotate", "--help").stdout.split())
    assert "broken for good" in rotate_help


# ----------------------------------------------------------------------------- deid demo


def test_demo_writes_the_extract_and_a_ready_project(demo_dir: Path) -> None:
    names = sorted(p.name for p in demo_dir.iterdir())
    assert names == ["baseline.csv", "demo.deid.json", "demographics.csv", "visits.csv"]
    project = load_project(demo_dir / "demo.deid.json")
    assert project.person_table.rows == 2432
    shipped = Path(demo.__file__).resolve().parents[2] / "resources" / "demo"
    for name in names:  # the CLI writes exactly the shipped demo
        assert (demo_dir / name).read_bytes() == (shipped / name).read_bytes(), name


def test_demo_rows_and_seed(tmp_path: Path) -> None:
    out = deid("demo", "--out", "small", "--rows", "120", "--seed", "4", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert len(pd.read_csv(tmp_path / "small" / "demographics.csv", dtype=str)) == 120
    assert "small" in out.stdout and "deid tags" in out.stdout


def test_demo_bad_usage_exits_2(tmp_path: Path) -> None:
    assert deid("demo", "--out", "x", "--rows", "5", cwd=tmp_path).returncode == 2
    assert deid("demo", "--out", "x", "--rows", "many", cwd=tmp_path).returncode == 2
    assert deid("demo", cwd=tmp_path).returncode == 2
    (tmp_path / "afile").write_text("", encoding="utf-8")
    out = deid("demo", "--out", "afile", cwd=tmp_path)
    assert out.returncode == 2 and "not a folder" in out.stderr


# ----------------------------------------------------------------------------- deid tags


def test_tags_json_is_stable_and_complete(demo_dir: Path) -> None:
    out = deid("tags", demo_dir / "demo.deid.json", "--json", cwd=demo_dir)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert out.stdout == json.dumps(doc, sort_keys=True, indent=2, ensure_ascii=False) + "\n"
    assert set(doc) == {"project", "tables"}
    assert doc["project"] == "HF-HOME demo (synthetic)"
    assert [t["name"] for t in doc["tables"]] == ["demographics", "baseline", "visits"]
    for t in doc["tables"]:
        assert set(t) == TABLE_KEYS
        assert t["key"] == "patient_id" and t["path"] == f"{t['name']}.csv"
        for c in t["columns"]:
            assert set(c) == COLUMN_KEYS
            assert isinstance(c["evidence"], list) and isinstance(c["unsure"], bool)
    assert column(doc, "demographics", "mrn") | {"evidence": []} == {
        "name": "mrn", "class": "direct", "role": None, "category": "H", "unsure": False,
        "evidence": [],
    }  # fmt: skip
    assert column(doc, "demographics", "zip")["role"] == "zip"


def test_tags_text_is_a_readable_table(demo_dir: Path) -> None:
    out = deid("tags", demo_dir / "demo.deid.json", cwd=demo_dir)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    header = next(line for line in lines if line.startswith("TABLE"))
    assert header.split() == ["TABLE", "COLUMN", "CLASS", "ROLE", "CATEGORY", "UNSURE", "EVIDENCE"]
    mrn = next(line for line in lines if line.split()[:2] == ["demographics", "mrn"])
    assert mrn.split()[2:5] == ["direct", "-", "H"]
    assert sum(line.startswith(("demographics ", "baseline ", "visits ")) for line in lines) == 23


# ----------------------------------------------------------------------------- deid init


def test_init_on_the_demo_files(initialised: Path) -> None:
    doc = tags_of(initialised, initialised.parent)
    assert [(t["name"], t["is_person"]) for t in doc["tables"]] == [
        ("demographics", True), ("baseline", False), ("visits", False),
    ]  # fmt: skip
    assert [t["path"] for t in doc["tables"]] == [
        "demographics.csv", "baseline.csv", "visits.csv",
    ]  # fmt: skip
    for t in doc["tables"]:  # the key defaults to the suggested person key
        assert t["key"] == "patient_id"
        assert column(doc, t["name"], "patient_id")["role"] == "person_key"
    classes = {(t["name"], c["name"]): c["class"] for t in doc["tables"] for c in t["columns"]}
    expected = {(t, c.name): c.cls.value for t, tags in demo.DEMO_TAGS.items() for c in tags}
    assert classes == expected


def test_init_prints_no_data_value(demo_dir: Path, tmp_path: Path) -> None:
    out = deid(
        "init", demo_dir / "demographics.csv", demo_dir / "visits.csv", "-o", "p.deid.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    people = pd.read_csv(demo_dir / "demographics.csv", dtype=str)
    for col in ("mrn", "last_name", "phone", "dob"):
        assert not any(v in out.stdout + out.stderr for v in people[col].dropna()), col
    # inputs outside the project's folder are stored absolute
    doc = tags_of(tmp_path / "p.deid.json", tmp_path)
    assert doc["tables"][0]["path"] == (demo_dir / "demographics.csv").as_posix()


def test_init_with_an_explicit_key_name_and_force(initialised: Path) -> None:
    cwd = initialised.parent
    out = deid("init", "demographics.csv", "-o", initialised.name, cwd=cwd)
    assert out.returncode == 2 and "already exists" in out.stderr
    out = deid(
        "init", "demographics.csv", "--key", "mrn", "--name", "Trial", "-o", initialised.name,
        "--force", cwd=cwd,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    doc = tags_of(initialised, cwd)
    assert doc["project"] == "Trial" and doc["tables"][0]["key"] == "mrn"
    assert column(doc, "demographics", "mrn")["role"] == "person_key"
    assert column(doc, "demographics", "patient_id")["role"] is None


def test_init_bad_usage_exits_2(demo_dir: Path, tmp_path: Path) -> None:
    people = demo_dir / "demographics.csv"
    out = deid("init", people, "-o", "p.deid.json", "--key", "nope", cwd=tmp_path)
    assert out.returncode == 2 and "not a column" in out.stderr and "patient_id" in out.stderr
    assert deid("init", people, cwd=tmp_path).returncode == 2  # no -o
    out = deid("init", people, "-o", "missing/p.deid.json", cwd=tmp_path)
    assert out.returncode == 2 and "does not exist" in out.stderr
    assert not (tmp_path / "p.deid.json").exists()


def test_init_bad_input_exits_4_naming_the_file(demo_dir: Path, tmp_path: Path) -> None:
    out = deid("init", "nothere.csv", "-o", "p.deid.json", cwd=tmp_path)
    assert out.returncode == 4 and "nothere.csv" in out.stderr
    (tmp_path / "ragged.csv").write_text("patient_id,age\n0001,70\n0002,71,extra\n", "utf-8")
    out = deid("init", "ragged.csv", "-o", "p.deid.json", cwd=tmp_path)
    assert out.returncode == 4 and "ragged.csv" in out.stderr and "line 3" in out.stderr
    assert "Traceback" not in out.stderr
    # an event row whose person is not in the person table
    visits = pd.read_csv(demo_dir / "visits.csv", dtype=str)
    people = pd.read_csv(demo_dir / "demographics.csv", dtype=str, keep_default_na=False)
    people.iloc[1:].to_csv(tmp_path / "people.csv", index=False)
    visits.to_csv(tmp_path / "visits.csv", index=False)
    out = deid("init", "people.csv", "visits.csv", "-o", "p.deid.json", cwd=tmp_path)
    assert out.returncode == 4 and "visits.csv" in out.stderr
    assert "0001" not in out.stderr
    assert not (tmp_path / "p.deid.json").exists()


# ------------------------------------------------------------------------------ deid tag


def test_tag_bare_column_applies_to_every_table(initialised: Path) -> None:
    cwd = initialised.parent
    out = deid("tag", initialised, "patient_id=direct/R", "notes=free_text", cwd=cwd)
    assert out.returncode == 0, out.stderr
    assert out.stdout.count(".patient_id:") == 3
    doc = tags_of(initialised, cwd)
    for t in ("demographics", "baseline", "visits"):
        c = column(doc, t, "patient_id")
        assert (c["class"], c["category"], c["role"]) == ("direct", "R", "person_key")
        assert c["evidence"][0] == "set by hand"


def test_tag_table_column_picks_one_table(initialised: Path) -> None:
    cwd = initialised.parent
    out = deid(
        "tag", initialised, "visits.visit_type=quasi:sensitive", "mrn=direct/h",
        "baseline.discharge_date=date", "age=quasi:none", cwd=cwd,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    doc = tags_of(initialised, cwd)
    assert column(doc, "visits", "visit_type") | {"evidence": []} == {
        "name": "visit_type", "class": "quasi", "role": "sensitive", "category": None,
        "unsure": False, "evidence": [],
    }  # fmt: skip
    assert column(doc, "demographics", "mrn")["category"] == "H"
    assert column(doc, "baseline", "discharge_date")["role"] == "index_date"  # role kept
    assert column(doc, "demographics", "age")["role"] is None  # :none removes it
    assert load_project(initialised).table("visits").column("visit_type").unsure is False


def test_tag_bad_usage_exits_2(initialised: Path) -> None:
    out = deid("tag", initialised, "mrn=secret", cwd=initialised.parent)
    assert out.returncode == 2
    assert "Unknown class 'secret'" in out.stderr
    assert "direct, quasi, date, free_text, clinical" in out.stderr


def test_tag_usage_errors_list_the_choices_and_change_nothing(
    initialised: Path, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    cwd = initialised.parent
    before = initialised.read_bytes()
    cases = [
        (["mrn=direct/H", "nope=direct"], "No table has a column 'nope'", "demographics.mrn"),
        (["mrn=secret"], "Unknown class", "direct, quasi, date, free_text, clinical"),
        (["age=quasi:height"], "Unknown role", "person_key, birth_date"),
        (["mrn=direct/Z"], "Unknown category", "A, B, C"),
        (["age=quasi/B"], "only for direct", "mrn=direct/H"),
        (["visits.nope=clinical"], "Table 'visits' has no column 'nope'", "visit_day"),
        (["patient_id=clinical"], "person key", "=direct:person_key"),
        (["patient_id=direct:none"], "person-key role", "give that column"),
        (["mrn"], "not a tag change", "COLUMN=CLASS"),
        ([], "required", "COLUMN=CLASS"),
    ]
    for changes, says, lists in cases:
        code, _, err = deid_in_process(
            "tag", initialised, *changes, cwd=cwd, capsys=capsys, monkeypatch=monkeypatch
        )
        assert code == 2, (changes, err)
        assert says in err and lists in err, (changes, err)
        assert initialised.read_bytes() == before  # all or nothing


def test_tag_and_tags_on_a_bad_project_exit_4(initialised: Path) -> None:
    cwd = initialised.parent
    doc = json.loads(initialised.read_text(encoding="utf-8"))
    doc["tables"][0]["columns"][1]["class"] = "clinical"  # edited by hand
    initialised.write_text(json.dumps(doc), encoding="utf-8")
    for args in (["tags"], ["tag", "mrn=direct/H"]):
        out = deid(args[0], initialised, *args[1:], cwd=cwd)
        assert out.returncode == 4
        assert "changed outside deid-desktop" in out.stderr and initialised.name in out.stderr
    out = deid("tags", "missing.deid.json", cwd=cwd)
    assert out.returncode == 4 and "missing.deid.json" in out.stderr


def test_init_reads_two_sheets_of_one_workbook(demo_dir: Path, tmp_path: Path) -> None:
    people = pd.read_csv(demo_dir / "demographics.csv", dtype=str, keep_default_na=False)
    visits = pd.read_csv(demo_dir / "visits.csv", dtype=str, keep_default_na=False)
    with pd.ExcelWriter(tmp_path / "trial.xlsx") as book:
        people.head(200).to_excel(book, sheet_name="People", index=False)
        visits[visits["patient_id"].isin(people["patient_id"].head(200))].to_excel(
            book, sheet_name="Visits", index=False
        )
    out = deid(
        "init", "trial.xlsx", "trial.xlsx", "--sheet", "trial.xlsx=People",
        "--sheet", "trial.xlsx=Visits", "-o", "p.deid.json", cwd=tmp_path,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    project = load_project(tmp_path / "p.deid.json")
    assert [(t.name, t.sheet, t.is_person) for t in project.tables] == [
        ("People", "People", True), ("Visits", "Visits", False),
    ]  # fmt: skip
    assert project.table("People").column("zip").role is not None


def test_tags_warns_about_a_moved_input_and_repoint_fixes_it(initialised: Path) -> None:
    cwd = initialised.parent
    (cwd / "visits.csv").rename(cwd / "visits_2025.csv")
    out = deid("tags", initialised, cwd=cwd)
    assert out.returncode == 0
    assert "table 'visits' was not found" in out.stderr and "Re-point" in out.stderr
    out = deid("repoint", initialised, "visits", "visits_2025.csv", cwd=cwd)
    assert out.returncode == 0, out.stderr
    assert "4 column(s) kept" in out.stdout
    out = deid("tags", initialised, "--json", cwd=cwd)
    assert out.returncode == 0 and out.stderr == ""
    visits = next(t for t in json.loads(out.stdout)["tables"] if t["name"] == "visits")
    assert visits["path"] == "visits_2025.csv"
    assert deid("repoint", initialised, "labs", "visits_2025.csv", cwd=cwd).returncode == 2
    out = deid("repoint", initialised, "visits", "gone.csv", cwd=cwd)
    assert out.returncode == 4 and "gone.csv" in out.stderr


# ------------------------------------------------------------------ ages without an index date


@pytest.fixture
def synthea_like(tmp_path: Path) -> Path:
    """A Synthea-like extract: a birth date, no age column, no index date."""
    (tmp_path / "patients.csv").write_text(
        "Id,BIRTHDATE,GENDER,ZIP\np1,1950-01-02,M,68102\np2,1930-05-06,F,68104\n",
        encoding="utf-8",
    )
    (tmp_path / "encounters.csv").write_text(
        "Id,START,PATIENT,DESCRIPTION\ne1,2020-01-01,p1,Visit\n", encoding="utf-8"
    )
    out = deid("init", "patients.csv", "encounters.csv", "-o", "p.deid.json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    return tmp_path / "p.deid.json"


def test_check_without_index_date_says_how_to_set_the_age_reference(synthea_like: Path) -> None:
    cwd = synthea_like.parent
    out = deid("check", synthea_like, cwd=cwd)
    assert out.returncode == 4
    message, hint = out.stderr.strip().split("\n")  # one message, one hint
    assert "Ages cannot be computed" in message
    assert "deid pathway PROJECT safe-harbor --age-reference YYYY-MM-DD" in hint
    assert "deid tag PROJECT TABLE.COLUMN=date:index_date" in hint
    assert "Step 3 (Pathway)" in hint and "'Reference date for ages'" in hint
    for value in ("1950", "1930", "p1", "68102"):
        assert value not in out.stderr

    # either remedy, as the hint writes it, lets the check pass
    shutil.copyfile(synthea_like, cwd / "q.deid.json")
    fixed = deid("pathway", synthea_like, "safe-harbor", "--age-reference", "2023-12-31", cwd=cwd)
    assert fixed.returncode == 0, fixed.stderr
    assert deid("check", synthea_like, cwd=cwd).returncode == 0
    tagged = deid("tag", "q.deid.json", "encounters.START=date:index_date", cwd=cwd)
    assert tagged.returncode == 0, tagged.stderr
    assert deid("check", "q.deid.json", cwd=cwd).returncode == 0
