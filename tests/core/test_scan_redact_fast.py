"""The column redaction from hit arrays (``redact_spans``) is ``redact_text`` per note."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from deid_desktop.core.facts.text import STRING
from deid_desktop.core.scan import (
    REDACT_LEVELS,
    ColumnSpans,
    Hit,
    redact_column,
    redact_spans,
    redact_text,
)

_KINDS = ("NAME", "DATE", "PHONE", "AGE")
_LEVELS = ("high", "medium", "low")

notes_st = st.lists(
    st.text(alphabet="ab ñ.\u2044", min_size=0, max_size=30), min_size=1, max_size=6
)


@st.composite
def column_hits(
    draw: st.DrawFn, notes_of: st.SearchStrategy[list[str]] = notes_st
) -> tuple[list[str], list[Hit]]:
    notes = draw(notes_of)
    hits: list[Hit] = []
    for row, text in enumerate(notes):
        for _ in range(draw(st.integers(0, 5))):
            a = draw(st.integers(0, len(text)))
            b = draw(st.integers(a, len(text)))  # empty spans too: never redacted
            kind = draw(st.sampled_from(_KINDS))
            conf = draw(st.sampled_from(_LEVELS))
            hits.append(Hit("t", row, "c", a, b, kind, "rule", conf))
    draw(st.randoms()).shuffle(hits)
    return notes, hits


def _spans(hits: list[Hit], with_confidence: bool = True) -> ColumnSpans:
    return ColumnSpans(
        "t",
        "c",
        np.asarray([h.row for h in hits], dtype=np.int64),
        np.asarray([h.start for h in hits], dtype=np.int64),
        np.asarray([h.end for h in hits], dtype=np.int64),
        np.asarray([h.kind for h in hits], dtype=object),
        np.asarray([h.rule for h in hits], dtype=object),
        np.asarray([h.confidence for h in hits], dtype=object) if with_confidence else None,
    )


@settings(max_examples=300, deadline=None)
@given(column_hits(), st.sampled_from(sorted(REDACT_LEVELS)))
def test_redact_spans_is_redact_text_per_note(
    case: tuple[list[str], list[Hit]], level: str
) -> None:
    notes, hits = case
    series = pd.Series([*notes, None], dtype="string")
    wanted = [h for h in hits if h.confidence in REDACT_LEVELS[level]]
    expected = [redact_text(t, [h for h in wanted if h.row == r]) for r, t in enumerate(notes)]
    done = redact_spans(series, [_spans(hits)], level=level)
    assert done.series.iloc[:-1].tolist() == expected
    assert done.series.isna().iloc[-1]  # a missing note stays missing
    assert done.hits == len(wanted)  # counted as the record counts them
    assert done.notes == len({h.row for h in wanted})
    assert redact_column(series, hits, level=level).iloc[:-1].tolist() == expected
    assert series.iloc[:-1].tolist() == notes  # the input is not changed


arrow_notes_st = st.lists(
    st.text(alphabet="ab .\u00f1\u2044\U0001d400", min_size=0, max_size=30), min_size=1, max_size=8
)


@settings(max_examples=300, deadline=None)
@given(column_hits(arrow_notes_st), st.sampled_from(sorted(REDACT_LEVELS)))
def test_an_arrow_column_is_spliced_as_redact_text_per_note(
    case: tuple[list[str], list[Hit]], level: str
) -> None:
    """An Arrow-backed column's notes are rebuilt from their bytes (characters of one
    to four bytes, ASCII notes and others side by side), as ``redact_text`` does."""
    notes, hits = case
    series = pd.Series([*notes, None], dtype=STRING, index=range(5, 6 + len(notes)), name="n")
    wanted = [h for h in hits if h.confidence in REDACT_LEVELS[level]]
    expected = [redact_text(t, [h for h in wanted if h.row == r]) for r, t in enumerate(notes)]
    done = redact_spans(series, [_spans(hits)], level=level)
    assert done.series.iloc[:-1].tolist() == expected
    assert done.series.isna().iloc[-1]
    assert done.series.dtype == STRING and done.series.name == "n"
    assert done.series.index.equals(series.index)
    assert series.iloc[:-1].tolist() == notes  # the input is not changed


def test_redact_spans_without_confidence_reads_high() -> None:
    series = pd.Series(["Call Ann at 555-1234.", "ok"], dtype="string")
    hits = [Hit("t", 0, "c", 5, 8, "NAME", "r"), Hit("t", 0, "c", 12, 20, "PHONE", "r")]
    spans = _spans(hits, with_confidence=False)
    assert redact_spans(series, [spans], level="high").series.tolist() == [
        "Call [NAME] at [PHONE].",
        "ok",
    ]
    assert redact_spans(series, [], level="all").series.tolist() == series.tolist()
