"""A failed check in plain words, and where to fix it: one sentence naming the column and
the counts in words, and the wizard step (with the table and column) that fixes it.

The GUI's checklist ("Go to") and ``deid check`` print the same sentence. Counts and
column names only, never a value of the data.
"""

from __future__ import annotations

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
            if isinstance(look, Mapping):
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


def plain_failure(outcome: CheckOutcome) -> PlainFailure:
    """The failed ``outcome`` as one plain sentence and the step that fixes it."""
    check = outcome.check
    detail = outcome.detail if isinstance(outcome.detail, Mapping) else {}
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
        fix = (
            f"Check the tag of {next(iter(columns))} in {Step.TAG.short}: a column that "
            "holds identifiers must be tagged so the pathway removes or changes it."
            if step == Step.TAG
            else f"Fix it in {step.short}."
        )
        sentence = f"{check.name}: not met in {where}. {fix}"
    else:
        what = _count(outcome.count, "problem") if outcome.count else "not met"
        sentence = f"{check.name}: {what}. {check.explanation} Fix it in {step.short}."
    return PlainFailure(
        check.id, sentence, step, table or None, column or None if first and "." in first else None
    )


__all__ = ["PATHWAY_CHECKS", "PlainFailure", "plain_failure"]
