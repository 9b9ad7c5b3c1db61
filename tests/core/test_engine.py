"""core.engine on the demo project: the one entry point both front ends call."""

from __future__ import annotations

import dataclasses
import itertools
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from deid_desktop.core import engine
from deid_desktop.core.demo import write_demo
from deid_desktop.core.errors import Cancelled, CheckFailed, UsageError
from deid_desktop.core.export import FULL_RECORD_JSON, RECORD_JSON, RECORD_TXT
from deid_desktop.core.model import (
    ColumnClass,
    ExportMeta,
    FreeTextAction,
    Project,
    RiskSettings,
)
from deid_desktop.core.progress import CancelToken
from deid_desktop.core.project import save_project
from tests.core.support import sha


def retag(project: Project, table: str, column: str, cls: ColumnClass) -> Project:
    spec = project.table(table)
    tag = dataclasses.replace(spec.column(column), cls=cls, role=None, category=None)
    return project.with_table(spec.with_column(tag))


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_demo(tmp_path_factory.mktemp("demo") / "demo")


@pytest.fixture(scope="module")
def reviewed(demo: Path) -> tuple[Project, engine.ReviewResult]:
    project, problems = engine.open_project(demo)
    assert problems == []
    extract = engine.load(project, demo)
    return project, engine.review(project, extract, scan=True)


def test_review_builds_verifies_measures_and_scans(reviewed, demo: Path) -> None:
    _project, result = reviewed
    assert result.passed
    assert {o.check.id for o in result.verification.outcomes} >= {
        "no_direct_columns",
        "no_direct_values",
        "no_full_dates",
        "no_zip5",
    }
    assert result.quasi_identifiers == ("dob_year", "age", "sex", "race", "ethnicity", "zip3")
    assert result.risk is not None and result.risk.rows == 2432
    assert result.risk.quasi_identifiers == result.quasi_identifiers
    assert result.scan is not None
    assert [f"{c.table}.{c.column}" for c in result.scan.columns] == ["demographics.notes"]
    assert result.scan.total_hits > 0
    for name, (path, digest) in result.inputs.items():
        assert path.parent == demo.parent and digest == sha(path), name
    assert result.input_rows["demographics"] == 2432


def test_projects_own_quasi_identifiers_are_used(reviewed, demo: Path) -> None:
    project, _ = reviewed
    chosen = dataclasses.replace(
        project, risk=RiskSettings(quasi_identifiers=("sex", "zip3", "gone"), k_target=3)
    )
    result = engine.review(chosen, engine.load(chosen, demo))
    assert result.quasi_identifiers == ("sex", "zip3")
    assert result.risk is not None and result.risk.k_target == 3


def test_export_writes_release_and_records_the_project_file(reviewed, demo, tmp_path) -> None:
    project, result = reviewed
    rec = engine.export(
        project,
        demo,
        result,
        out_dir=tmp_path / "out",
        crosswalk_dir=tmp_path / "xw",
        meta=ExportMeta(purpose="engine test"),
        register_path=tmp_path / "register.jsonl",
    )
    record = json.loads((tmp_path / "out" / RECORD_JSON).read_text())
    assert record["project"]["file"] == str(demo.absolute())
    # the project file holds the seed: its hash stays with the crosswalk
    assert "sha256" not in record["project"]
    full = json.loads((tmp_path / "xw" / FULL_RECORD_JSON).read_text())
    assert full["project"]["sha256"] == sha(demo) and full["seed"] == project.seed
    assert record["meta"]["purpose"] == "engine test"
    assert record["risk"]["k"] == result.risk.k and record["risk"]["lone"] == result.risk.lone
    # the demo's notes are suppressed: the record speaks of the released text alone
    assert record["scan"]["scanned"] is False
    assert record["scan"]["columns_not_scanned"] == ["demographics.notes"]
    assert {i["table"] for i in record["inputs"]} == {"demographics", "baseline", "visits"}
    assert (tmp_path / "out" / "demographics.csv").exists()
    assert rec.crosswalk_files and all(p.exists() for p in rec.crosswalk_files)


def test_nothing_from_the_demo_data_reaches_record_readme_or_register(
    reviewed, demo, tmp_path
) -> None:
    project, result = reviewed
    engine.export(
        project,
        demo,
        result,
        out_dir=tmp_path / "out",
        crosswalk_dir=tmp_path / "xw",
        register_path=tmp_path / "register.jsonl",
    )
    extract = engine.load(project, demo)
    identifying = set()
    for spec in project.tables:
        frame = extract.table(spec.name).frame
        for tag in (*spec.by_class(ColumnClass.DIRECT), *spec.by_class(ColumnClass.FREE_TEXT)):
            identifying |= {v for v in frame[tag.name].dropna().unique() if len(v) >= 6}
    assert len(identifying) > 2000
    docs = {
        n: (tmp_path / "out" / n).read_text(encoding="utf-8")
        for n in (RECORD_JSON, RECORD_TXT, "README.txt", "data_dictionary.csv")
    }
    docs["register"] = (tmp_path / "register.jsonl").read_text(encoding="utf-8")
    for name, doc in docs.items():
        leaked = [v for v in identifying if v in doc]
        assert leaked == [], name
        assert "anonym" not in doc.lower(), name


@pytest.mark.parametrize(
    ("column", "failing"),
    [("notes", {"no_direct_values", "no_full_dates"}), ("dob", {"no_full_dates"})],
)
def test_a_column_wrongly_tagged_clinical_fails_the_gate_and_writes_nothing(
    reviewed, demo: Path, tmp_path: Path, column: str, failing: set[str]
) -> None:
    project, _ = reviewed
    leaky = retag(project, "demographics", column, ColumnClass.CLINICAL)
    result = engine.review(leaky, engine.load(leaky, demo))
    assert not result.passed
    failed = {o.check.id for o in result.verification.blocking_failures}
    assert failing <= failed
    with pytest.raises(CheckFailed, match="Nothing was written"):
        engine.export(
            leaky,
            demo,
            result,
            out_dir=tmp_path / "out",
            crosswalk_dir=tmp_path / "xw",
            register_path=tmp_path / "register.jsonl",
        )
    assert list(tmp_path.iterdir()) == []


def test_export_refuses_a_review_of_another_project_state(reviewed, demo, tmp_path) -> None:
    project, result = reviewed
    changed = dataclasses.replace(project, seed=project.seed + 1)
    with pytest.raises(UsageError, match="changed after the review"):
        engine.export(changed, demo, result, out_dir=tmp_path / "o", crosswalk_dir=tmp_path / "x")
    assert list(tmp_path.iterdir()) == []


def test_run_does_everything_and_cancel_leaves_nothing(demo: Path, tmp_path: Path) -> None:
    token = CancelToken()

    def progress(fraction: float, stage: str) -> None:
        if fraction > 0.85:
            token.cancel()

    with pytest.raises(Cancelled):
        engine.run(
            demo,
            out_dir=tmp_path / "out",
            crosswalk_dir=tmp_path / "xw",
            register_path=tmp_path / "register.jsonl",
            progress=progress,
            cancel=token,
        )
    assert list(tmp_path.iterdir()) == []
    seen: list[float] = []
    rec = engine.run(
        demo,
        out_dir=tmp_path / "out",
        crosswalk_dir=tmp_path / "xw",
        register_path=tmp_path / "register.jsonl",
        progress=lambda f, _s: seen.append(f),
    )
    assert rec.record_path.exists() and seen[-1] == 1.0
    export_part = seen[next(i for i, f in enumerate(seen) if f >= 0.8) :]
    assert all(b >= a - 1e-9 for a, b in itertools.pairwise(export_part))


def test_saved_project_reopens_with_the_same_release(demo: Path, tmp_path: Path) -> None:
    project, _ = engine.open_project(demo)
    copy = tmp_path / demo.name
    for f in demo.parent.iterdir():
        (tmp_path / f.name).write_bytes(f.read_bytes())
    save_project(project, copy)
    again, problems = engine.open_project(copy)
    assert problems == []
    a = engine.review(project, engine.load(project, demo))
    b = engine.review(again, engine.load(again, copy))
    for name, frame in a.release.tables.items():
        assert frame.equals(b.release.tables[name]), name


# -- the free-text scan runs only when it changes the release ---------------------------


@pytest.fixture
def scans(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Every (table, column) the scanner reads, in order (the real scan still runs)."""
    from deid_desktop.core import scan

    seen: list[tuple[str, str]] = []
    real = scan.scan_frames

    def counting(frames, text_columns, dictionary, **kw):
        seen.extend((t, c) for t, cols in text_columns.items() for c in cols)
        return real(frames, text_columns, dictionary, **kw)

    monkeypatch.setattr(scan, "scan_frames", counting)
    return seen


def redacting(project: Project) -> Project:
    free_text = {"demographics.notes": FreeTextAction.REDACT}
    return dataclasses.replace(
        project, transform=dataclasses.replace(project.transform, free_text=free_text)
    )


def test_run_does_not_scan_suppressed_free_text_and_says_so(demo, tmp_path, scans) -> None:
    project, _ = engine.open_project(demo)
    assert project.transform.free_text.get("demographics.notes") != FreeTextAction.REDACT
    rec = engine.run(
        demo,
        out_dir=tmp_path / "out",
        crosswalk_dir=tmp_path / "xw",
        register_path=tmp_path / "register.jsonl",
    )
    assert scans == []
    assert rec.record["scan"] == {
        "scanned": False,
        "note": "free text suppressed; not scanned in this run",
        "columns_not_scanned": ["demographics.notes"],
    }
    readme = (tmp_path / "out" / "README.txt").read_text()
    assert "The free text was not scanned in this run: no free-text column is released." in readme
    assert "possible identifiers found" not in readme
    assert "free text suppressed; not scanned in this run" in (
        (tmp_path / "out" / RECORD_TXT).read_text()
    )
    assert "notes" not in rec.record["parameters"]["release"].get("free_text_hits_redacted", {})


def test_review_scans_every_free_text_column_when_asked(demo, scans) -> None:
    project, _ = engine.open_project(demo)
    extract = engine.load(project, demo)
    result = engine.review(project, extract, scan=True)
    assert scans == [("demographics", "notes")]
    assert result.scan is not None and result.scan.total_hits > 0
    assert result.not_scanned == ()
    assert engine.review(project, extract, scan=False).scan is None


def test_a_review_that_scanned_suppressed_text_exports_what_deid_run_exports(
    demo: Path, tmp_path: Path
) -> None:
    """The window's review scans every free-text column (for its panel); `deid run` scans
    only what the release keeps. The written release must not tell the two apart: its
    README and record speak of the released text alone, so the files are the same bytes."""
    import datetime as dt

    now = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.UTC)
    project, _ = engine.open_project(demo)
    extract = engine.load(project, demo)
    gui = engine.review(project, extract, scan=True)
    assert gui.scan is not None and gui.scan.total_hits > 0  # the panel had hits to show
    out, xw = tmp_path / "out", tmp_path / "xw"  # the record names its folder: one for both
    # each export the first of its source (one register each): the second is no re-release
    first, second = tmp_path / "gui.jsonl", tmp_path / "cli.jsonl"
    engine.export(project, demo, gui, out_dir=out, crosswalk_dir=xw, now=now, register_path=first)
    written = {p.name: p.read_bytes() for p in out.iterdir()}
    readme = (out / "README.txt").read_text()
    shutil.rmtree(out)
    shutil.rmtree(xw)
    engine.run(demo, out_dir=out, crosswalk_dir=xw, now=now, register_path=second)
    assert sorted(p.name for p in out.iterdir()) == sorted(written)
    for name, data in written.items():
        assert (out / name).read_bytes() == data, name
    assert "The free text was not scanned in this run: no free-text column is released." in readme


def test_a_redacted_column_is_scanned_once_and_redacted_from_that_scan(demo, scans) -> None:
    project, _ = engine.open_project(demo)
    project = redacting(project)
    extract = engine.load(project, demo)
    result = engine.review(project, extract)  # default: the redacted column only
    assert scans == [("demographics", "notes")]  # once: the pathway reused the scan
    assert result.scan is not None and result.not_scanned == ()
    hits = result.scan.total_hits
    assert hits > 0
    assert result.release.parameters["free_text_hits_redacted"] == {"demographics.notes": hits}
    # the same release as when the pathway scans on its own
    scans.clear()
    alone = engine.review(project, extract, scan=False)
    assert scans == [("demographics", "notes")] and alone.scan is None
    for name, frame in result.release.tables.items():
        assert frame.equals(alone.release.tables[name]), name


def test_loading_progress_only_grows_across_tables(demo: Path) -> None:
    """Each file's own 0..1 is mapped onto its slice: the bar never jumps back."""
    project, _ = engine.open_project(demo)
    seen: list[tuple[float, str]] = []
    engine.load(project, demo, progress=lambda f, s: seen.append((f, s)))
    fractions = [f for f, _ in seen]
    assert len(project.tables) == 3 and len(fractions) > 6
    assert all(b >= a - 1e-9 for a, b in itertools.pairwise(fractions)), fractions
    assert 0.0 <= fractions[0] < 0.3 and fractions[-1] == pytest.approx(1.0)


def test_run_progress_only_grows(demo: Path, tmp_path: Path) -> None:
    seen: list[float] = []
    engine.run(
        demo,
        out_dir=tmp_path / "out",
        crosswalk_dir=tmp_path / "xw",
        register_path=tmp_path / "register.jsonl",
        progress=lambda f, _s: seen.append(f),
    )
    assert all(b >= a - 1e-9 for a, b in itertools.pairwise(seen)), seen
    assert seen[-1] == 1.0


def test_a_csv_run_never_imports_openpyxl(tmp_path: Path) -> None:
    # openpyxl is imported only where an XLSX is read or written: a CSV extract
    # released as CSV starts without it (about 0.1 s of every run).
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from deid_desktop.core.demo import write_demo\n"
        "from deid_desktop.core import engine\n"
        "w = Path(sys.argv[1])\n"
        "write_demo(w / 'src', rows=60)\n"
        "engine.run(w / 'src' / 'demo.deid.json', out_dir=w / 'rel', crosswalk_dir=w / 'cw',\n"
        "           register_path=w / 'register.jsonl')\n"
        "print(sorted(k for k in sys.modules if k.startswith('openpyxl')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, check=True
    )
    assert (tmp_path / "rel" / "demographics.csv").exists()
    assert done.stdout.strip().splitlines()[-1] == "[]"
