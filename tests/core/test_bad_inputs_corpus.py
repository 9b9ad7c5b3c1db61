"""The bad-input corpus (tests/badinputs/generate.py) through `deid init` and `deid run`.

For every case: the documented exit code, a message that names the file and quotes no
value from it (marker values are planted in the cells), no traceback, nothing written
on a refusal, and no case takes more than 30 seconds (a hang guard, not a speed test).
`deid` runs in this process, as a user's shell would run it, with its output captured.
"""

from __future__ import annotations

import contextlib
import csv
import io
import re
import time
from collections import Counter
from pathlib import Path

import pytest

from deid_desktop.cli import main
from deid_desktop.core.export.cells import formula_like
from tests.badinputs.generate import ACCEPTED, INIT_ERROR, RUN_ERROR, Case, generate

GATE_REFUSED = "gate refused"
HANG_GUARD_S = 30.0
AGE_REFERENCE = "2024-12-31"
DOCUMENTED_CODES = {0, 1, 2, 3, 4, 130, 141}
_RAW_FORMULA = re.compile(r"(?<![\w'])[=+@-]cmd\|")


def _deid(*args: str | Path) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main([str(a) for a in args])
        except SystemExit as exc:  # argparse's own usage errors
            code = int(exc.code or 0)
    return code, out.getvalue() + err.getvalue()


def _problems(case: Case, work: Path) -> tuple[str, list[str]]:
    """(what happened, what is wrong) for one case."""
    wrong: list[str] = []
    project = work / "p.deid.json"
    release = work / "release"
    register = work / "register.jsonl"
    start = time.monotonic()
    code, said = _deid("init", *case.files, "-o", project, *case.init_args)
    outcome = ACCEPTED
    if code == 0:
        code, set_said = _deid("pathway", project, "safe-harbor", "--age-reference", AGE_REFERENCE)
        assert code == 0, set_said
        code, run_said = _deid(
            "run", project, "--out", release, "--crosswalk-out", work / "xw", "--register", register
        )
        said += run_said
        if code != 0:
            outcome = RUN_ERROR
    else:
        outcome = INIT_ERROR
    elapsed = time.monotonic() - start
    if elapsed > HANG_GUARD_S:
        wrong.append(f"took {elapsed:.0f} s")
    if code not in DOCUMENTED_CODES or code == 1:
        wrong.append(f"exit {code}")
    if "Traceback" in said or "internal error" in said:
        wrong.append("a traceback or an internal error")
    leaked = [m for m in case.markers if m in said]
    if leaked:
        wrong.append(f"{len(leaked)} planted value(s) in the output")
    if outcome != case.expect:
        wrong.append(f"expected {case.expect}, got {outcome} (exit {code})")
    if outcome == INIT_ERROR:
        if code not in case.codes:
            wrong.append(f"refused with exit {code}, expected {case.codes}")
        if project.exists():
            wrong.append("a project file was written")
    if outcome == RUN_ERROR and code not in case.codes:
        wrong.append(f"run refused with exit {code}, expected {case.codes}")
    if outcome == RUN_ERROR and (
        (release.exists() and any(release.iterdir())) or register.exists() or (work / "xw").exists()
    ):
        wrong.append("something was written")
    if outcome != ACCEPTED and code != 3:  # a failed check names the check, not a file
        named = case.named or case.files[0].name
        if named not in said:
            wrong.append("the message does not name the file")
        if case.says and case.says not in said.lower():
            wrong.append(f"the message does not say '{case.says}'")
    if outcome == ACCEPTED:
        wrong += _release_problems(release)
    if outcome == RUN_ERROR and code == 3:
        outcome = GATE_REFUSED
    return outcome, wrong


def _release_problems(release: Path) -> list[str]:
    wrong: list[str] = []
    with open(release / "data_dictionary.csv", encoding="utf-8", newline="") as handle:
        cells = [cell for row in csv.reader(handle) for cell in row]
    if any(formula_like(c) for c in cells):
        wrong.append("a formula-like cell in data_dictionary.csv")
    for doc in release.glob("*.txt"):
        if _RAW_FORMULA.search(doc.read_text(encoding="utf-8")):
            wrong.append(f"a formula-like name in {doc.name}")
    return wrong


def test_the_corpus_is_large_and_seeded(tmp_path: Path) -> None:
    first = generate(tmp_path / "a")
    second = generate(tmp_path / "b")
    assert len(first) >= 100
    assert [c.name for c in first] == [c.name for c in second]
    assert [c.markers for c in first] == [c.markers for c in second]
    for a, b in zip(first, second, strict=True):
        for fa, fb in zip(a.files, b.files, strict=True):
            if fa.is_file():
                assert fa.read_bytes() == fb.read_bytes(), a.name


def test_every_malformed_input_gets_a_clear_answer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = generate(tmp_path / "corpus")
    tally: Counter[str] = Counter()
    failures: list[str] = []
    for number, case in enumerate(cases):
        work = tmp_path / f"work{number:03d}"
        work.mkdir()
        outcome, wrong = _problems(case, work)
        tally[outcome] += 1
        failures += [f"{case.name}: {w}" for w in wrong]
    with capsys.disabled():
        print(
            f"\nbad-input corpus: {len(cases)} cases; "
            + ", ".join(f"{k}: {tally[k]}" for k in (INIT_ERROR, RUN_ERROR, GATE_REFUSED, ACCEPTED))
        )
    assert failures == []


def test_a_hidden_first_sheet_says_which_sheet_was_read(tmp_path: Path) -> None:
    case = next(c for c in generate(tmp_path / "c") if c.name == "a hidden first sheet")
    code, said = _deid("init", case.files[0], "-o", tmp_path / "p.deid.json")
    assert code == 0
    assert "Sheet 'Persons' was read" in said
    assert "'Lookup' is hidden" in said
