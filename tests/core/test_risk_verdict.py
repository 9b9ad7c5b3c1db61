"""The plain verdict: level, headline, access model, from counts."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from deid_desktop.core.risk.verdict import (
    LIMITED,
    LINKABLE,
    SAFE_HARBOR,
    AccessModel,
    Level,
    RiskFacts,
    risk_verdict,
)

QIS = ("age", "sex", "race", "ethnicity", "zip3")


def _facts(**kw: object) -> RiskFacts:
    base: dict[str, object] = dict(
        pathway_kind=SAFE_HARBOR, pathway_label="Safe Harbor", checks_failed=0, persons=2432,
        k=1, k_target=5, lone=945, below_k=1800, counted_columns=QIS,
    )  # fmt: skip
    base.update(kw)
    return RiskFacts(**base)  # type: ignore[arg-type]


def test_all_checks_passed_at_k_1_is_high_risk_in_words() -> None:
    v = risk_verdict(_facts())
    assert v.level == Level.HIGH and v.colour == "red"
    assert v.headline == (
        "All Safe Harbor checks passed. Residual risk: high - 945 of 2,432 persons are "
        "unique on age, sex, race, ethnicity, zip3."
    )
    assert "164.514(b)(2)(ii)" in v.paragraph
    assert v.access_model == AccessModel.CONTROLLED
    assert any("best generalization" in s for s in v.next_steps)


def test_k_reached_under_safe_harbor_allows_open_download() -> None:
    v = risk_verdict(_facts(k=6, lone=0, below_k=0))
    assert v.level == Level.LOW and v.colour == "green"
    assert v.access_model == AccessModel.OPEN and not v.next_steps


def test_released_free_text_never_goes_open() -> None:
    v = risk_verdict(_facts(k=6, lone=0, below_k=0, free_text_released=1))
    assert v.access_model == AccessModel.CONTROLLED
    assert "cannot prove a note clean" in v.paragraph


def test_small_residue_is_moderate() -> None:
    v = risk_verdict(_facts(k=2, lone=10, below_k=100))
    assert v.level == Level.MODERATE and v.colour == "amber"


def test_linkable_high_risk_belongs_in_an_enclave() -> None:
    v = risk_verdict(_facts(pathway_kind=LINKABLE, pathway_label="linkable release"))
    assert v.access_model == AccessModel.ENCLAVE
    assert "Expert Determination" in v.paragraph
    assert "Safe Harbor" not in v.headline + v.paragraph


def test_limited_data_set_needs_a_dua_even_at_low_risk() -> None:
    v = risk_verdict(_facts(pathway_kind=LIMITED, pathway_label="limited data set", k=9,
                            lone=0, below_k=0))  # fmt: skip
    assert v.access_model == AccessModel.CONTROLLED and "data use agreement" in v.paragraph


def test_a_failed_check_blocks() -> None:
    v = risk_verdict(_facts(checks_failed=2))
    assert v.level == Level.BLOCKED and v.access_model == AccessModel.NONE
    assert v.headline.startswith("2 Safe Harbor checks failed")


@given(
    persons=st.integers(1, 10_000),
    k=st.integers(1, 20),
    k_target=st.integers(2, 10),
    lone_share=st.floats(0, 1),
)
def test_level_never_low_below_target_and_always_low_at_target(
    persons: int, k: int, k_target: int, lone_share: float
) -> None:
    lone = 0 if k > 1 else int(persons * lone_share)
    below = persons if k < k_target else 0
    v = risk_verdict(_facts(persons=persons, k=k, k_target=k_target, lone=lone, below_k=below))
    assert (v.level == Level.LOW) == (k >= k_target)
    assert "anonymous" not in (v.headline + v.paragraph).lower()


def test_released_columns_left_out_of_the_count_are_named_in_the_headline() -> None:
    one = risk_verdict(_facts(k=6, lone=0, below_k=0, not_counted=("income",)))
    assert one.headline.endswith(
        "zip3 with at least 4 others. income is released but not counted in these figures."
    )
    assert any("quasi-identifier chooser" in s for s in one.next_steps)
    many = risk_verdict(_facts(not_counted=("dob_year", "zip3", "income")))
    assert many.headline.endswith(
        "dob_year, zip3 and income are released but not counted in these figures."
    )
    assert "not counted" not in risk_verdict(_facts()).headline
