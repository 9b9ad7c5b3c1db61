"""How many people in the population are unique on the released quasi-identifiers.

A release is a sample of a larger population: a record alone in its class in the release
(a sample unique) may have look-alikes outside it. These models estimate, from the
release's class-size histogram, the population size N and the sampling fraction
f = n / N, how many population records are unique (population uniques), reported as a
share of the population as ARX does:

- **Zayatz** (Zayatz 1991, "Estimation of the number of unique population elements using
  a sample"): the probability that a sample unique is a population unique, from the
  hypergeometric probability of drawing exactly one record of a class of each size;
  uniques = c1 * P(unique | sample unique) / f.
- **Pitman** (Hoshino 2001, "Applying Pitman's sampling formula to microdata disclosure
  risk assessment"): the class sizes follow Pitman's sampling formula with parameters
  (theta, alpha) fitted by maximum likelihood (Newton-Raphson on the score equations);
  uniques = Gamma(theta + 1) / Gamma(theta + alpha) * N^alpha.
- **SNB**, the slide negative binomial (Chen and Keller-McNulty 1998, "Estimation of
  identification disclosure risk in microdata"): the number of non-empty population
  classes K by Shlosser's estimator (Haas et al. 1995), then (alpha, beta) solved from the
  expected numbers of classes of size 1 and 2; uniques = K * beta^alpha.
- **Dankar's decision rule** (Dankar, El Emam, Neisa and Roffey 2012, "Estimating the
  re-identification risk of clinical data sets"): Pitman when f <= 0.1 (Zayatz if Pitman
  has no estimate); else the smaller of Zayatz and SNB (Zayatz if SNB has none).

A model "has no estimate" when its equations have no admissible solution (the report
says so and gives 0.0, as ARX does). With no sample uniques every model gives 0.

Only the class-size histogram is read: no value of the data.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from deid_desktop.core.errors import UsageError

Vector = tuple[float, float]
Matrix = tuple[tuple[float, float], tuple[float, float]]

_ACCURACY = 1e-6
_MAX_ITERATIONS = 1000


@dataclass(frozen=True)
class PopulationUniqueness:
    """Estimated share of the population that is unique, by model (0.0 = none found)."""

    population: int
    sample: int
    sampling_fraction: float
    zayatz: float
    pitman: float
    snb: float
    dankar: float
    dankar_model: str  # "pitman", "zayatz", "snb" or "none" (no sample unique)

    def to_dict(self) -> dict[str, float | int | str]:
        return {
            "population": self.population,
            "sampling_fraction": self.sampling_fraction,
            "pitman": round(self.pitman, 6),
            "zayatz": round(self.zayatz, 6),
            "snb": round(self.snb, 6),
            "dankar": round(self.dankar, 6),
            "dankar_model": self.dankar_model,
        }


def population_uniqueness(histogram: Mapping[int, int], *, population: int) -> PopulationUniqueness:
    """The four estimates from ``histogram`` (class size -> number of classes)."""
    sizes = np.array(sorted(s for s, c in histogram.items() if c > 0), dtype=np.int64)
    counts = np.array([histogram[int(s)] for s in sizes], dtype=np.float64)
    n = int((sizes * counts).sum())
    if population < n or population < 1:
        raise UsageError(
            f"The population ({population:,}) cannot be smaller than the release ({n:,} records).",
            hint="Give the number of people the release was drawn from (--population).",
        )
    f = n / population
    c1 = float(histogram.get(1, 0))
    if c1 == 0:
        return PopulationUniqueness(population, n, f, 0.0, 0.0, 0.0, 0.0, "none")
    zayatz = _valid(_zayatz(sizes, counts, population, n, f))
    pitman = _valid(_pitman(sizes, counts, population, n))
    snb = _valid(_snb(sizes, counts, f))
    if f <= 0.1:
        dankar, model = (pitman, "pitman") if pitman else (zayatz, "zayatz")
    elif snb and snb <= zayatz:
        dankar, model = snb, "snb"
    else:
        dankar, model = zayatz, "zayatz"
    return PopulationUniqueness(
        population,
        n,
        f,
        zayatz / population,
        pitman / population,
        snb / population,
        dankar / population,
        model,
    )


def histogram_of(class_sizes: np.ndarray) -> dict[int, int]:
    """Class size -> number of classes, from the size of every class."""
    counts = np.bincount(np.asarray(class_sizes, dtype=np.int64))
    return {int(s): int(counts[s]) for s in np.flatnonzero(counts)}


def released_zip3_population(
    zip3_values: Iterable[object], populations: Mapping[str, int], pooled: Iterable[str]
) -> int:
    """The Census population of the ZIP3 areas a release names: each distinct prefix's
    population, and for the pooled ``000`` every prefix it stands for (``pooled``)."""
    seen = {str(v) for v in zip3_values if isinstance(v, str) and v}
    prefixes = (seen - {"000"}) | (set(pooled) if "000" in seen else set())
    return sum(int(populations.get(z, 0)) for z in prefixes)


def _valid(value: float) -> float:
    return value if math.isfinite(value) and value > 0 else 0.0


# ------------------------------------------------------------------ Zayatz


def _hypergeometric_one(population: int, successes: np.ndarray, draws: int) -> np.ndarray:
    """P(X = 1) for X ~ Hypergeometric(population, successes, draws), in log space."""

    def log_choose(a: int, b: int) -> float:
        return math.lgamma(a + 1) - math.lgamma(b + 1) - math.lgamma(a - b + 1)

    out = np.zeros(successes.size, dtype=np.float64)
    for i, k in enumerate(successes.tolist()):
        if population - k >= draws - 1:  # else drawing exactly one is impossible
            out[i] = math.exp(
                math.log(k) + log_choose(population - k, draws - 1) - log_choose(population, draws)
            )
    return out


def _zayatz(sizes: np.ndarray, counts: np.ndarray, population: int, n: int, f: float) -> float:
    classes = counts.sum()
    p1 = _hypergeometric_one(population, sizes, n)
    total = float((counts / classes * p1).sum())
    c1 = float(counts[sizes == 1].sum())
    if total <= 0:
        return math.nan
    conditional = (c1 / classes) * float(p1[sizes == 1][0]) / total
    return float(c1 * conditional / f)


# ------------------------------------------------------------------ Pitman


def _newton(
    fn: Callable[[Vector], Vector],
    jac: Callable[[Vector], Matrix],
    start: Vector,
) -> Vector:
    """Two-dimensional Newton-Raphson; NaN when it does not converge."""
    x, y = start
    for _ in range(_MAX_ITERATIONS):
        f1, f2 = fn((x, y))
        if not (math.isfinite(f1) and math.isfinite(f2)):
            return math.nan, math.nan
        if abs(f1) < _ACCURACY and abs(f2) < _ACCURACY:
            return x, y
        (a, b), (c, d) = jac((x, y))
        det = a * d - b * c
        if det == 0 or not math.isfinite(det):
            return math.nan, math.nan
        x, y = x - (d * f1 - b * f2) / det, y - (a * f2 - c * f1) / det
    return math.nan, math.nan


def _pitman(sizes: np.ndarray, counts: np.ndarray, population: int, n: int) -> float:
    theta, alpha = fit_pitman(sizes, counts, n)
    if not (math.isfinite(theta) and math.isfinite(alpha)) or alpha == 0:
        return math.nan
    try:
        uniques = math.exp(
            math.lgamma(theta + 1) - math.lgamma(theta + alpha) + alpha * math.log(population)
        )
    except (ValueError, OverflowError):
        return math.nan
    return uniques if 0 <= uniques <= population else math.nan


def fit_pitman(sizes: np.ndarray, counts: np.ndarray, n: int) -> Vector:
    """Maximum-likelihood (theta, alpha) of Pitman's sampling formula (NaN if none)."""
    u = float(counts.sum())
    c1 = float(counts[sizes == 1].sum())
    c2 = float(counts[sizes == 2].sum()) or 1.0  # no class of 2: overestimate, as ARX does
    # Hoshino's moment estimates as the starting point
    c = c1 * (c1 - 1) / c2
    denominator = 2 * c1 * u + c1 * c - n * c
    if denominator == 0:
        return math.nan, math.nan
    theta0 = (n * u * c - c1 * (n - 1) * (2 * u + c)) / denominator
    alpha0 = (theta0 * (c1 - n) + (n - 1) * c1) / (n * u)

    i_u = np.arange(1, int(u), dtype=np.float64)  # 1 .. u-1
    i_n = np.arange(1, n, dtype=np.float64)  # 1 .. n-1
    big = sizes > 1
    big_sizes, big_counts = sizes[big], counts[big]
    j = np.arange(1, int(sizes.max()), dtype=np.float64)  # 1 .. max size - 1

    def parts(v: Vector) -> tuple[np.ndarray, np.ndarray]:
        theta, alpha = v
        inv = 1.0 / (theta + i_u * alpha)
        inv_j = 1.0 / (j - alpha)
        return inv, inv_j

    def by_size(values: np.ndarray) -> float:
        if not big_sizes.size:
            return 0.0
        cumulative = np.cumsum(values)
        return float((big_counts * cumulative[big_sizes - 2]).sum())

    def fn(v: Vector) -> Vector:
        theta, _ = v
        inv, inv_j = parts(v)
        return (
            float(inv.sum() - (1.0 / (theta + i_n)).sum()),
            float((i_u * inv).sum()) - by_size(inv_j),
        )

    def jac(v: Vector) -> Matrix:
        theta, _ = v
        inv, inv_j = parts(v)
        inv2 = inv * inv
        d1, d5, d3 = float(inv2.sum()), float((i_u * inv2).sum()), float((i_u * i_u * inv2).sum())
        d2 = float((1.0 / (theta + i_n) ** 2).sum())
        d4 = by_size(inv_j * inv_j)
        return ((d2 - d1, -d5), (-d5, -d3 - d4))

    with np.errstate(all="ignore"):
        return _newton(fn, jac, (theta0, alpha0))


# ------------------------------------------------------------------ SNB


def _shlosser(sizes: np.ndarray, counts: np.ndarray, f: float) -> float:
    """Non-empty population classes K, Shlosser's estimator as ARX computes it."""
    c1 = float(counts[sizes == 1].sum())
    s = sizes.astype(np.float64)
    v1 = float((s * f * f * (1 - f * f) ** (s - 1) * counts).sum())
    v2 = float(((1 - f) ** s * counts * (1 + f) ** s - 1).sum())
    v3 = float(((1 - f) ** s * counts).sum())
    v4 = float((s * f * (1 - f) ** (s - 1) * counts).sum())
    return float(counts.sum()) + c1 * (v1 / v2) * (v3 / v4) ** 2


def _snb(sizes: np.ndarray, counts: np.ndarray, f: float) -> float:
    c1 = float(counts[sizes == 1].sum())
    c2 = float(counts[sizes == 2].sum())
    with np.errstate(all="ignore"):
        k = _shlosser(sizes, counts, f)

    def fn(v: Vector) -> Vector:
        a, b = v
        d = (1 - f) * (1 - b)
        if not (0 < b < 1 and a > 0):  # outside the model: powers would turn complex
            return math.nan, math.nan
        return (
            k * f * (b / (1 - d)) ** a * (a * d / (1 - d) + 1) - c1,
            k * a * b**a * f * f * (1 - b) / 2 * (1 - d) ** (a + 2) * (2 - (1 - a) * d) - c2,
        )

    def jac(v: Vector) -> Matrix:  # central differences: the closed forms add nothing here
        a, b = v
        h = 1e-7
        fa1, fa2 = fn((a + h, b))
        fb1, fb2 = fn((a - h, b))
        ga1, ga2 = fn((a, b + h))
        gb1, gb2 = fn((a, b - h))
        return (
            ((fa1 - fb1) / (2 * h), (ga1 - gb1) / (2 * h)),
            ((fa2 - fb2) / (2 * h), (ga2 - gb2) / (2 * h)),
        )

    if not math.isfinite(k) or k <= 0:
        return math.nan
    for start in ((1.0, 0.5), (0.5, 0.1), (2.0, 0.9)):
        try:
            a, b = _newton(fn, jac, start)
        except (OverflowError, ValueError, ZeroDivisionError):
            continue
        if math.isfinite(a) and math.isfinite(b) and a > 0 and 0 < b < 1:
            return k * b**a
    return math.nan


__all__ = [
    "PopulationUniqueness",
    "fit_pitman",
    "histogram_of",
    "population_uniqueness",
    "released_zip3_population",
]
