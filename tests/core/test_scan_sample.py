"""Sample review in core: the seeded sample of at least 5% and the marks' counts."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deid_desktop.core.errors import UsageError
from deid_desktop.core.scan.sample import SampleReview, draw_sample


@settings(max_examples=60, deadline=None)
@given(n=st.integers(min_value=0, max_value=5000), seed=st.integers(0, 2**31))
def test_sample_is_seeded_sorted_distinct_and_at_least_five_percent(n: int, seed: int) -> None:
    sample = draw_sample(n, seed=seed)
    assert sample == draw_sample(n, seed=seed)
    assert sample == sorted(set(sample))
    assert all(0 <= i < n for i in sample)
    assert len(sample) == (0 if n == 0 else max(1, math.ceil(0.05 * n)))


def test_marks_are_counted_for_the_record() -> None:
    review = SampleReview(draw_sample(100, seed=3), reviewer="A. Reviewer")
    first, second, third = review.sample[:3]
    review.mark_clean(first)
    review.mark_missed(second, "NAME")
    review.mark_missed(third, "DATE")
    review.mark_missed(third, "NAME")  # a second look changes the mark
    assert review.summary_dict() == {
        "notes_in_sample": 5,
        "notes_reviewed": 3,
        "notes_with_misses": 2,
        "misses_by_kind": {"NAME": 2},
        "reviewer": "A. Reviewer",
    }
    assert not review.complete
    with pytest.raises(UsageError):
        review.mark_clean(next(i for i in range(100) if i not in review.sample))
    with pytest.raises(UsageError):
        review.mark_missed(first, "SHOE SIZE")
