"""One plain verdict on a release: how risky it is, what an intruder could do, and which
access model fits.

The check list says whether the rules were applied; this says what is left. It reads the
gate's outcome, the residual risk on the quasi-identifiers, the population estimate
when one was made, and what happens to free text, and gives:

- a level: ``low`` (green), ``moderate`` (amber) or ``high`` (red); ``blocked`` when a
  check failed and nothing can be written;
- one headline sentence ("All Safe Harbor checks passed. Residual risk: high - 945 of
  2,432 persons are unique on age, sex, race, ethnicity, zip3."), followed by the
  released identifying columns left out of the count, when there are any ("income is
  released but not counted in these figures.");
- a paragraph on what an intruder who knows those columns can do;
- the access model that fits, after the seed document's table: open download, controlled
  access with a data use agreement, or a secure enclave (the data stays, the analysis
  travels);
- what to do next.

The thresholds are stated in ``THRESHOLDS`` and in the paragraph, never hidden: low when
every class reaches the k target; moderate when at most 1 % of persons are unique and at
most 5 % fall below the target; high otherwise. A release that is low alone but whose
combination with earlier releases of the same source (``core.cross_release``) isolates
someone is moderate. Counts only: no value of the data.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum


class Level(StrEnum):
    LOW = "low"
    MODERATE = "moderate"
    HIGH = "high"
    BLOCKED = "blocked"


class AccessModel(StrEnum):
    OPEN = "open download"
    CONTROLLED = "controlled access with a data use agreement"
    ENCLAVE = "a secure enclave (the data stays; the analysis comes to it)"
    NONE = "none: the release cannot be written"


#: The bounds between the levels (shares of persons in the release).
THRESHOLDS = {"moderate_lone_share": 0.01, "moderate_below_k_share": 0.05}

#: Pathway kinds the verdict distinguishes (the pathway registry's ids map onto them).
SAFE_HARBOR, LINKABLE, LIMITED = "safe_harbor", "linkable", "limited"


@dataclass(frozen=True)
class RiskFacts:
    """What the verdict reads; counts only."""

    pathway_kind: str  # SAFE_HARBOR, LINKABLE or LIMITED
    pathway_label: str  # e.g. "Safe Harbor"
    checks_failed: int
    persons: int
    k: int | None
    k_target: int
    lone: int
    below_k: int
    counted_columns: Sequence[str]
    free_text_released: int = 0  # free-text columns released (redacted), not suppressed
    population_unique_share: float | None = None  # Dankar's estimate, when made
    intruder_certain: int | None = None  # persons an intruder re-identifies for sure
    #: released columns that can identify in combination but are left out of the count
    not_counted: Sequence[str] = ()
    #: earlier releases of the same source combined with this one (0: none in the register)
    earlier_releases: int = 0
    cross_release_lone: int = 0  # lone only through the combination with earlier releases
    cross_release_below_k: int = 0  # below the target only through the combination


@dataclass(frozen=True)
class Verdict:
    level: Level
    headline: str
    paragraph: str
    access_model: AccessModel
    next_steps: tuple[str, ...] = field(default=())

    @property
    def colour(self) -> str:
        return {
            Level.LOW: "green",
            Level.MODERATE: "amber",
            Level.HIGH: "red",
            Level.BLOCKED: "red",
        }[self.level]

    def to_dict(self) -> dict[str, object]:
        return {
            "level": str(self.level),
            "colour": self.colour,
            "headline": self.headline,
            "paragraph": self.paragraph,
            "access_model": str(self.access_model),
            "next_steps": list(self.next_steps),
        }


def _persons(n: int) -> str:
    return f"{n:,} person" + ("" if n == 1 else "s")


def not_counted_sentence(columns: Sequence[str]) -> str:
    """ "INCOME is released but not counted in these figures." (empty when none)."""
    if not columns:
        return ""
    names = list(columns)
    said = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    verb = "is" if len(names) == 1 else "are"
    return f"{said} {verb} released but not counted in these figures."


def _combined(f: RiskFacts) -> bool:
    """Combining this release with earlier ones isolates someone it does not alone."""
    return bool(f.cross_release_lone or f.cross_release_below_k)


def _releases(n: int) -> str:
    return "the earlier release" if n <= 1 else f"the {n} earlier releases"


def _level(f: RiskFacts) -> Level:
    if f.checks_failed:
        return Level.BLOCKED
    if f.persons == 0 or (f.k is not None and f.k >= f.k_target):
        # every class reaches the target here, but not once joined with what went out before
        return Level.MODERATE if f.persons and _combined(f) else Level.LOW
    lone_share, below_share = f.lone / f.persons, f.below_k / f.persons
    if (
        lone_share <= THRESHOLDS["moderate_lone_share"]
        and below_share <= THRESHOLDS["moderate_below_k_share"]
    ):
        return Level.MODERATE
    return Level.HIGH


def _access(f: RiskFacts, level: Level) -> AccessModel:
    if level == Level.BLOCKED:
        return AccessModel.NONE
    if f.pathway_kind == SAFE_HARBOR and level == Level.LOW and not f.free_text_released:
        return AccessModel.OPEN
    if level == Level.HIGH and f.pathway_kind != SAFE_HARBOR:
        return AccessModel.ENCLAVE
    return AccessModel.CONTROLLED


def risk_verdict(f: RiskFacts) -> Verdict:
    """The verdict on one release, from its counts."""
    level = _level(f)
    columns = ", ".join(f.counted_columns) or "no column"
    if level == Level.BLOCKED:
        word = "check" if f.checks_failed == 1 else "checks"
        return Verdict(
            level,
            f"{f.checks_failed} {f.pathway_label} {word} failed: the release cannot be written.",
            "Nothing is written while a check fails. Each failed check says which column "
            "holds what, and how to fix it.",
            AccessModel.NONE,
            ("Fix each failed check, then run the review again.",),
        )
    risk_word = {Level.LOW: "low", Level.MODERATE: "moderate", Level.HIGH: "high"}[level]
    reaches_k = f.persons == 0 or (f.k is not None and f.k >= f.k_target)
    if reaches_k:
        detail = f"every person shares {columns} with at least {f.k_target - 1} others"
        if f.persons == 0:
            detail = "the release holds no person"
        elif _combined(f):
            detail += (
                f" in this release alone, but combined with {_releases(f.earlier_releases)} "
                f"{_persons(f.cross_release_lone)} become unique"
            )
    else:
        detail = f"{f.lone:,} of {_persons(f.persons)} are unique on {columns}"
    if _combined(f) and not reaches_k:
        detail += (
            f"; combined with {_releases(f.earlier_releases)}, "
            f"{_persons(f.cross_release_lone)} more become unique"
        )
    headline = f"All {f.pathway_label} checks passed. Residual risk: {risk_word} - {detail}."
    if f.not_counted:  # the figures say nothing of these: the headline says so
        headline += " " + not_counted_sentence(f.not_counted)
    sentences = [
        f"An intruder who knows a person's {columns} and that the person is in this "
        f"release can single out {_persons(f.lone)} (k = {f.k if f.k is not None else '-'}, "
        f"target {f.k_target}; {f.below_k:,} in groups smaller than the target)."
    ]
    if f.intruder_certain is not None:
        sentences.append(
            f"Linking the release back to the source on those columns re-identified "
            f"{_persons(f.intruder_certain)} with certainty."
        )
    if _combined(f):
        sentences.append(
            f"Whoever holds this release and {_releases(f.earlier_releases)} of the same "
            f"source can join them per person: then {_persons(f.cross_release_lone)} become "
            f"unique and {f.cross_release_below_k:,} fall below {f.k_target} who are not so "
            "in this release alone."
        )
    if f.population_unique_share is not None:
        sentences.append(
            f"About {f.population_unique_share:.2%} of the population is estimated to be "
            "unique on the same columns (Dankar's rule)."
        )
    if f.free_text_released:
        sentences.append(
            f"{f.free_text_released} free-text column(s) are released with the hits of a "
            "scan redacted: a scan cannot prove a note clean."
        )
    if f.pathway_kind == SAFE_HARBOR and level != Level.LOW:
        sentences.append(
            "Safe Harbor does not require a k, but the rule also asks that you have no "
            "actual knowledge that what remains could identify someone (45 CFR "
            "164.514(b)(2)(ii)): these figures are such knowledge."
        )
    if f.pathway_kind == LINKABLE:
        sentences.append("A linkable release needs an Expert Determination before it leaves.")
    if f.pathway_kind == LIMITED:
        sentences.append(
            "A limited data set may go only to a recipient under a data use agreement."
        )
    steps: list[str] = []
    if f.not_counted:
        steps.append(
            "Count every released identifying column (Review, Residual risk: the "
            "quasi-identifier chooser), or leave out of the release what you do not count."
        )
    if level != Level.LOW and not reaches_k:
        steps.append(
            "Find the best generalization (Review, Residual risk) or widen the bands of the "
            "columns that single people out."
        )
        steps.append(f"Suppress the {f.below_k:,} records in groups below {f.k_target}.")
    if _combined(f):
        steps.append(
            "Release the same quasi-identifiers as before (or coarser ones), or keep this "
            "release and the earlier ones from reaching the same hands."
        )
    access = _access(f, level)
    sentences.append(f"Access model that fits: {access}.")
    return Verdict(level, headline, " ".join(sentences), access, tuple(steps))


__all__ = [
    "LIMITED",
    "LINKABLE",
    "SAFE_HARBOR",
    "THRESHOLDS",
    "AccessModel",
    "Level",
    "RiskFacts",
    "Verdict",
    "not_counted_sentence",
    "risk_verdict",
]
