"""Which column of each event table holds the person key.

Real extracts name the person key differently per table (Synthea: ``Id`` in
patients.csv, ``PATIENT`` in encounters.csv). For each event table the key is, in order:

1. the column the user chose (``--key TABLE=COLUMN``);
2. a column with the same name as the person table's key;
3. the column the tagger suggests as the person key (from its name);
4. the one column whose values are the person keys.

A column found by rules 2-4 is taken only when at least ``KEY_MATCH_SHARE`` of its filled
values are person keys, so an event table's own ``Id`` column (Synthea's encounter IDs)
is never mistaken for the person's. Values are compared on an even sample first, then on
every row, with pyarrow's vectorised ``is_in``. Messages give column names and shares,
never a value.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from deid_desktop.core.errors import UsageError
from deid_desktop.core.model import ColumnTag, LoadedTable, Role

__all__ = [
    "KEY_MATCH_SHARE",
    "KeyChoice",
    "match_counts",
    "match_share",
    "person_key_set",
    "resolve_event_key",
]

#: An event column links to the person table when at least this share of its filled
#: values are person keys (the relation check then counts any row left over).
KEY_MATCH_SHARE = 0.99
#: Values compared before a column is compared in full.
SAMPLE_ROWS = 10_000
#: A column passes the sample when this share is found (looser than the full test, so a
#: column just over ``KEY_MATCH_SHARE`` is not lost to sampling noise).
SAMPLE_SHARE = 0.95
#: With no column at ``KEY_MATCH_SHARE``, a column named like the key (rules 2 and 3) is
#: still used when at least this share of its values are person keys: it is the key with
#: some rows left unmatched, and the relation check says how many.
NAMED_FALLBACK_SHARE = 0.5

#: How each rule is described in the key column's evidence and in `deid init`'s output.
BY_CHOICE = "chosen by the user"
BY_NAME = "same name as the person table's key"
BY_TAGGER = "named like a person key"
BY_VALUES = "its values are the person keys"


@dataclass(frozen=True)
class KeyChoice:
    """An event table's key column and why it was taken."""

    column: str
    reason: str
    share: float | None = None  # share of filled values found among the person keys

    @property
    def evidence(self) -> str:
        if self.share is None:
            return f"person key: {self.reason}"
        share = _percent(self.share)
        return f"person key: {self.reason}; {share} of its filled values are person keys"


def _percent(share: float) -> str:
    if 0.999 <= share < 1.0:
        return ">99.9%"
    if 0.0 < share < 0.001:
        return "<0.1%"
    return f"{share:.1%}"


def _text(values: pd.Series) -> pa.Array | pa.ChunkedArray:
    """The column as pyarrow text, nulls kept (no copy for pyarrow-backed strings)."""
    arr = pa.array(values, from_pandas=True)
    if not (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)):
        arr = arr.cast(pa.string())
    return arr


def person_key_set(person: LoadedTable, key: str) -> pa.Array:
    """The distinct filled person keys as one text array (the set every check looks up)."""
    arr = _text(person.frame[key])
    return pc.unique(pc.drop_null(arr).cast(pa.large_string()))


def match_counts(values: pd.Series, keys: pa.Array) -> tuple[int, int]:
    """(filled values found among ``keys``, filled values) of one column."""
    arr = pc.drop_null(_text(values)).cast(pa.large_string())
    if len(arr) == 0:
        return 0, 0
    if len(arr) * 16 < len(keys):
        # a few values against many keys: hash the few (building a hash of every person
        # key per column would dominate), find which keys they hit, then count those
        keys = keys.filter(pc.is_in(keys, value_set=pc.unique(arr)))
    return int(pc.sum(pc.is_in(arr, value_set=keys)).as_py() or 0), len(arr)


def match_share(values: pd.Series, keys: pa.Array) -> float | None:
    """Share of the filled ``values`` found among ``keys``; None when none is filled."""
    found, filled = match_counts(values, keys)
    return found / filled if filled else None


def _sample(values: pd.Series) -> pd.Series:
    rows = np.linspace(0, len(values) - 1, SAMPLE_ROWS).astype(np.int64)
    return values.iloc[rows]


def _linking_share(values: pd.Series, keys: pa.Array, *, mostly_filled: bool = False) -> float:
    """The share of filled values found among the keys (0.0 when the sample already
    rules the column out, or, with ``mostly_filled``, when under half the rows are filled).
    """
    if len(values) > SAMPLE_ROWS:
        found, filled = match_counts(_sample(values), keys)
        if filled and found < SAMPLE_SHARE * filled:
            return found / filled
    found, filled = match_counts(values, keys)
    if not filled or (mostly_filled and 2 * filled < len(values)):
        return 0.0
    return found / filled


def _listing(names: Sequence[str], limit: int = 30) -> str:
    shown = list(names[:limit])
    more = len(names) - len(shown)
    return ", ".join(shown) + (f" ... and {more} more" if more > 0 else "")


def resolve_event_key(
    table: LoadedTable,
    tags: Sequence[ColumnTag],
    *,
    person: LoadedTable,
    person_key: str,
    keys: pa.Array | None,
    chosen: str | None = None,
) -> KeyChoice:
    """The person-key column of one event table (rules in the module docstring).

    ``tags`` are the tagger's suggestions for ``table`` (``is_person=False``); ``keys`` is
    ``person_key_set(person, person_key)`` (needed unless ``chosen`` names the column).
    No column, or several equally good, is a ``UsageError`` naming the table and its
    candidate columns.
    """
    columns = [str(c) for c in table.frame.columns]
    hint_cmd = f"--key {table.name}=COLUMN"
    if chosen is not None:
        if chosen not in columns:
            raise UsageError(
                f"The key column '{chosen}' chosen for table '{table.name}' is not one of "
                f"its columns",
                hint=f"Choose one of: {_listing(columns)} (with {hint_cmd}).",
            )
        return KeyChoice(chosen, BY_CHOICE)
    if keys is None:
        raise ValueError("resolve_event_key needs the person keys to find a key column")

    named: list[tuple[str, str]] = []
    if person_key in columns:
        named.append((person_key, BY_NAME))
    suggested = next((t.name for t in tags if t.role is Role.PERSON_KEY), None)
    if suggested is not None and suggested in columns and suggested != person_key:
        named.append((suggested, BY_TAGGER))

    shares: dict[str, float] = {}
    for column, reason in named:
        shares[column] = _linking_share(table.frame[column], keys)
        if shares[column] >= KEY_MATCH_SHARE:
            return KeyChoice(column, reason, shares[column])

    for column in columns:
        if column not in shares:
            shares[column] = _linking_share(table.frame[column], keys, mostly_filled=True)
    matches = [c for c in columns if shares[c] >= KEY_MATCH_SHARE]
    if len(matches) == 1:
        return KeyChoice(matches[0], BY_VALUES, shares[matches[0]])

    where = f"table '{table.name}' ({table.path.name})"
    if len(matches) > 1:
        raise UsageError(
            f"Several columns of {where} could hold the person key of '{person.name}' "
            f"(their values are all person keys): {_listing(matches)}",
            hint=f"Say which one with {hint_cmd}.",
        )
    fallback = [(c, r) for c, r in named if shares[c] >= NAMED_FALLBACK_SHARE]
    if fallback:
        column, reason = max(fallback, key=lambda cr: shares[cr[0]])
        return KeyChoice(column, reason, shares[column])  # the relation check counts the rest

    ranked = sorted(columns, key=lambda c: -shares[c])
    candidates = [f"{c} ({_percent(shares[c])} match)" for c in ranked if shares[c] > 0]
    listed = _listing(candidates) if candidates else "none has a value in common with it"
    raise UsageError(
        f"No column of {where} holds the person key of '{person.name}' (column "
        f"'{person_key}'): a key column needs at least {KEY_MATCH_SHARE:.0%} of its values "
        f"among the person keys. Candidate columns: {listed}",
        hint=f"Say which column links each row to its person with {hint_cmd}; the columns "
        f"are: {_listing(columns)}.",
    )
