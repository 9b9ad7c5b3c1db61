"""A failed check in plain words, and where to fix it: one sentence naming the column and
the counts in words, and the wizard step (with the table and column) that fixes it.

The GUI's checklist ("Go to") and ``deid check`` print the same sentence; only the fix
is worded for each: the window names the wizard step (its "Go to" button opens it), the
command line names the ``deid`` command that fixes it (``plain_failure(..., cli=PROJECT)``).
Counts and column names only, never a value of the data.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass

from deid_desktop.core.steps import Step
from deid_desktop.core.verify.base import CheckOutcome

#: checks fixed on the pathway step (its options), not by re-tagging a column
PATHWAY_CHECKS = frozenset({"dua_present", "crosswalk_apart"})


@dataclass(frozen=True)
class PlainFailure:
    check_id: str
    sentence: str
    step: Step
    table: str | None = None  # the column to select there ("table.column" split)
    column: str | None = None


def _count(n: int, unit: str) -> str:
    return f"{n:,} {unit}" + ("" if n == 1 else "s")


def _columns(detail: Mapping[str, object]) -> dict[str, str]:
    """Released columns ("table.column") named by a check's detail, with what is wrong
    in each, in words."""
    out: dict[str, str] = {}
    found = detail.get("found")
    if isinstance(found, Mapping):
        for col, look in found.items():
            if isinstance(look, Mapping) and "share" not in look and "rows" in look:
                rows = int(look.get("rows", 0) or 0)  # type: ignore[call-overload]
                kind = str(look.get("kind", "an identifier")).replace("_", " ")
                out[str(col)] = f"{_count(rows, 'row')} of {kind}"  # the place check's
            elif isinstance(look, Mapping):
                share = float(look.get("share", 0) or 0)  # type: ignore[arg-type]
                sampled = int(look.get("sampled", 0) or 0)  # type: ignore[call-overload]
                kind = str(look.get("kind", "an identifier")).replace("_", " ")
                share_words = "every one" if share >= 1 else f"{share:.0%}"
                verb = "looks" if share >= 1 else "look"
                out[str(col)] = (
                    f"{share_words} of {_count(sampled, 'sampled value')} {verb} like {kind}"
                )
    cells = detail.get("cells_by_column")
    if isinstance(cells, Mapping):
        for col, n in cells.items():
            if isinstance(n, int) and n:
                out.setdefault(str(col), _count(n, "cell"))
    columns = detail.get("columns")
    if isinstance(columns, list | tuple):
        for col in columns:
            out.setdefault(str(col), "")
    typed = detail.get("date_typed_columns")
    if isinstance(typed, list | tuple):
        for col in typed:
            out.setdefault(str(col), "a date-typed column")
    unlinked = detail.get("unlinked_by_table")
    if isinstance(unlinked, Mapping):
        for table, n in unlinked.items():
            if isinstance(n, int) and n:
                out.setdefault(str(table), _count(n, "event row") + " link to no person")
    return out


#: a failed check fixed on the pathway step, as the command that fixes it ({p}: project)
_CLI_PATHWAY_FIX = {
    "dua_present": "Record the data use agreement with `deid set {p} export.dua=REFERENCE` "
    "(or `deid run --dua REFERENCE`).",
    "crosswalk_apart": "Give `deid run` a --crosswalk-out folder apart from --out.",
}
_CLI_SETTING_FIX = "Fix it with `deid set {p} KEY=VALUE` (the keys: `deid show {p}`)."
_CLI_TAG_FIX = "Fix the tags with `deid tag {p} TABLE.COLUMN=CLASS` (the tags: `deid tags {p}`)."


def _fix(check_id: str, step: Step, column: str | None, cli: str | None) -> str:
    """The fix, worded for the window (the wizard step) or the command line (``cli``:
    the project file as typed; the command that fixes it)."""
    if cli is None:
        if step == Step.TAG and column:
            return (
                f"Check the tag of {column} in {Step.TAG.short}: a column that holds "
                "identifiers must be tagged so the pathway removes or changes it."
            )
        return f"Fix it in {step.short}."
    p = shlex.quote(cli)
    if step == Step.TAG and column and "." in column:
        return (
            f"Check the tag of {column}: a column that holds identifiers must be tagged so "
            f"the pathway removes or changes it, e.g. `deid tag {p} {column}=direct` (or "
            "=free_text for notes)."
        )
    if step == Step.TAG:
        return _CLI_TAG_FIX.format(p=p)
    return _CLI_PATHWAY_FIX.get(check_id, _CLI_SETTING_FIX).format(p=p)


def plain_failure(outcome: CheckOutcome, *, cli: str | None = None) -> PlainFailure:
    """The failed ``outcome`` as one plain sentence and the step that fixes it.

    ``cli``: the project file as the user typed it; the fix then names the ``deid``
    command to run (``deid tag``, ``deid set``) instead of the wizard step."""
    check = outcome.check
    detail = outcome.detail if isinstance(outcome.detail, Mapping) else {}
    if "could_not_run" in detail:
        return PlainFailure(
            check.id,
            f"{check.name}: this check could not run ({detail.get('at', detail['could_not_run'])}"
            "), so the release is refused: it could not be checked. This is a fault in "
            "deid-desktop, not in your data or tags; please report it with this message.",
            Step.REVIEW,
        )
    columns = _columns(detail)
    where = "; ".join(
        f"column {col}" + (f" ({what})" if what else "") for col, what in columns.items()
    )
    step = Step.PATHWAY if check.id in PATHWAY_CHECKS else Step.TAG
    first = next(iter(columns), None)
    table, _, column = (first or "").partition(".")
    if where and outcome.count != len(columns):  # the count is of cells, not columns
        where += f", {_count(outcome.count, 'cell')} in all"
    if where:
        sentence = f"{check.name}: not met in {where}. {_fix(check.id, step, first, cli)}"
    else:
        what = _count(outcome.count, "problem") if outcome.count else "not met"
        fix = _fix(check.id, step, None, cli)
        sentence = f"{check.name}: {what}. {check.explanation} {fix}"
    return PlainFailure(
        check.id, sentence, step, table or None, column or None if first and "." in first else None
    )


__all__ = ["PATHWAY_CHECKS", "PlainFailure", "plain_failure"]
