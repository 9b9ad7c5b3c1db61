"""Population uniqueness (Zayatz, Pitman, SNB, Dankar's rule) checked against independent
computations: exact hypergeometric probabilities with integer binomials, and Pitman's
score equations evaluated by plain loops at the fitted parameters."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deid_desktop.core.errors import UsageError
from deid_desktop.core.risk.population import (
    fit_pitman,
    histogram_of,
    population_uniqueness,
    released_zip3_population,
)


def _zayatz_exact(hist: dict[int, int], population: int) -> float:
    """Zayatz 1991 with exact integer binomials."""
    n = sum(s * c for s, c in hist.items())
    classes = sum(hist.values())

    def p1(size: int) -> Fraction:  # P(X = 1), X ~ Hypergeometric(N, size, n)
        return Fraction(size * math.comb(population - size, n - 1), math.comb(population, n))

    total = sum(Fraction(c, classes) * p1(s) for s, c in hist.items())
    conditional = Fraction(hist[1], classes) * p1(1) / total
    return float(hist[1] * conditional / Fraction(n, population)) / population


@settings(max_examples=60, deadline=None)
@given(
    hist=st.dictionaries(st.integers(1, 6), st.integers(1, 30), min_size=1).filter(
        lambda h: 1 in h
    ),
    extra=st.integers(0, 400),
)
def test_zayatz_equals_exact_hypergeometric(hist: dict[int, int], extra: int) -> None:
    n = sum(s * c for s, c in hist.items())
    population = n + extra
    got = population_uniqueness(hist, population=population)
    assert got.zayatz == pytest.approx(_zayatz_exact(hist, population), rel=1e-9)
    assert got.zayatz >= 0


def test_pitman_solves_its_score_equations() -> None:
    hist = {1: 400, 2: 120, 3: 60, 4: 30, 7: 10, 20: 2}
    sizes = np.array(sorted(hist))
    counts = np.array([hist[s] for s in sizes], dtype=float)
    n = int((sizes * counts).sum())
    u = int(counts.sum())
    theta, alpha = fit_pitman(sizes, counts, n)
    score_theta = sum(1 / (theta + i * alpha) for i in range(1, u)) - sum(
        1 / (theta + i) for i in range(1, n)
    )
    score_alpha = sum(i / (theta + i * alpha) for i in range(1, u)) - sum(
        c * sum(1 / (j - alpha) for j in range(1, s)) for s, c in hist.items()
    )
    assert abs(score_theta) < 1e-6 and abs(score_alpha) < 1e-6
    population = 1_000_000
    expected = math.exp(
        math.lgamma(theta + 1) - math.lgamma(theta + alpha) + alpha * math.log(population)
    )
    got = population_uniqueness(hist, population=population)
    assert got.pitman == pytest.approx(expected / population, rel=1e-9)
    assert got.dankar_model == "pitman" and got.dankar == got.pitman  # f <= 0.1


def test_dankar_above_a_tenth_takes_the_smaller_of_zayatz_and_snb() -> None:
    hist = {1: 50, 2: 40, 3: 30, 5: 10}
    got = population_uniqueness(hist, population=400)  # f = 0.5
    assert got.dankar_model in {"zayatz", "snb"}
    admissible = [v for v in (got.zayatz, got.snb) if v > 0]
    assert got.dankar == min(admissible)


def test_no_sample_unique_means_no_population_unique() -> None:
    got = population_uniqueness({2: 10, 5: 3}, population=10_000)
    assert (got.pitman, got.zayatz, got.snb, got.dankar) == (0, 0, 0, 0)
    assert got.dankar_model == "none"


def test_population_smaller_than_the_release_is_refused() -> None:
    with pytest.raises(UsageError, match="cannot be smaller"):
        population_uniqueness({1: 10}, population=5)


def test_histogram_and_zip3_population() -> None:
    assert histogram_of(np.array([1, 1, 2, 5])) == {1: 2, 2: 1, 5: 1}
    pops = {"100": 50_000, "101": 60_000, "036": 10_000, "059": 15_000}
    assert released_zip3_population(["100", "000", None], pops, ["036", "059"]) == 75_000
    assert released_zip3_population(["100", "101"], pops, ["036", "059"]) == 110_000
