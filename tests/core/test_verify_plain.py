"""Failed checks in plain words: the column named, counts in words, the step to fix."""

from __future__ import annotations

from deid_desktop.core.steps import Step
from deid_desktop.core.verify import BLOCKING, Check, CheckOutcome, Finding
from deid_desktop.core.verify.plain import plain_failure


def _check(check_id: str = "no_identifier_values") -> Check:
    return Check(check_id, "No released column looks like an identifier", "45 CFR x",
                 BLOCKING, "No column holds identifier-shaped values.",
                 lambda *a: Finding(True, 0, {}))  # fmt: skip


def test_a_value_shape_failure_names_the_column_and_says_the_share_in_words() -> None:
    detail = {
        "columns": ["demographics.phone"],
        "found": {
            "demographics.phone": {
                "kind": "US phone numbers",
                "share": 1.0,
                "sampled": 2000,
                "reason": "r",
            }
        },
    }
    f = plain_failure(CheckOutcome(_check(), False, 1, detail))
    assert f.sentence.startswith("No released column looks like an identifier: not met in "
                                 "column demographics.phone (every one of 2,000 sampled "
                                 "values looks like US phone numbers).")  # fmt: skip
    assert "share:" not in f.sentence and "sampled:" not in f.sentence
    assert (f.step, f.table, f.column) == (Step.TAG, "demographics", "phone")


def test_cells_are_counted_per_column_and_in_all() -> None:
    detail = {"columns": ["visits.note"], "cells_by_column": {"visits.note": 12}}
    f = plain_failure(CheckOutcome(_check("no_direct_values"), False, 12, detail))
    assert "column visits.note (12 cells)" in f.sentence
    f = plain_failure(CheckOutcome(_check("no_direct_values"), False, 2319,
                                   {"columns": ["demographics.phone"]}))  # fmt: skip
    assert "column demographics.phone, 2,319 cells in all" in f.sentence


def test_a_failure_without_a_column_goes_to_the_pathway_step_when_fixed_there() -> None:
    f = plain_failure(CheckOutcome(_check("dua_present"), False, 1, {"dua_recorded": False}))
    assert f.step == Step.PATHWAY and f.column is None
    assert "No column holds" in f.sentence and "step 3" in f.sentence


def test_on_the_command_line_the_fix_is_the_deid_command_not_a_wizard_step() -> None:
    """One rule, two wordings: the window names the step (its "Go to" opens it), `deid
    check` names the command that fixes it."""
    outcome = CheckOutcome(_check("no_direct_values"), False, 2319,
                           {"columns": ["demographics.phone"]})  # fmt: skip
    gui, cli = plain_failure(outcome), plain_failure(outcome, cli="my project.deid.json")
    assert "in step 2" in gui.sentence and "deid " not in gui.sentence
    assert "step 2" not in cli.sentence
    assert "`deid tag 'my project.deid.json' demographics.phone=direct`" in cli.sentence
    assert gui.sentence.split(". ")[0] == cli.sentence.split(". ")[0]  # the same finding
    assert (cli.step, cli.table, cli.column) == (gui.step, gui.table, gui.column)
    dua = plain_failure(CheckOutcome(_check("dua_present"), False, 1, {}), cli="p.deid.json")
    assert "`deid set p.deid.json export.dua=REFERENCE`" in dua.sentence
    assert "step 3" not in dua.sentence


def test_a_place_failure_counts_the_rows_of_what_was_found() -> None:
    """The place check's detail counts rows, not a sampled share: the sentence says so
    (it once read "0% of 0 sampled values look like street addresses")."""
    from deid_desktop.core.verify.geography import CHECKS, _finding

    found = {"p.addr2": ("street addresses", 300), "p.lat": ("coordinates in decimal degrees", 1)}
    finding = _finding(found)
    check = next(c for c in CHECKS if c.id == "no_geography")
    f = plain_failure(CheckOutcome(check, False, finding.count, finding.detail))
    assert "column p.addr2 (300 rows of street addresses)" in f.sentence
    assert "column p.lat (1 row of coordinates in decimal degrees)" in f.sentence
    assert "sampled" not in f.sentence


def test_a_check_that_could_not_run_says_so_and_is_not_a_data_problem() -> None:
    """A check that raised was once reported as "1 problem" with the check's explanation
    and a fix in the tags - advice that could not help."""
    from deid_desktop.core.verify.base import run_check

    def broken(*_args: object) -> Finding:
        return next(iter(()))  # StopIteration, as a crosswalk with one column once raised

    check = Check("subject_ids", "Subject IDs unique", "45 CFR x", BLOCKING, "e.", broken)
    outcome = run_check(check, None, None, None, None)  # type: ignore[arg-type]
    assert not outcome.passed
    f = plain_failure(outcome, cli="p.deid.json")
    assert f.sentence.startswith("Subject IDs unique: this check could not run (StopIteration at ")
    assert "test_verify_plain.py:" in f.sentence  # where, never the error's text
    assert "not in your data or tags; please report it" in f.sentence
    assert "deid tag" not in f.sentence
