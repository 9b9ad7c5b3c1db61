"""The review's verdict (level, headline, access model) and the accepted risk: computed in
core, carried by the README and the export record, refused without a reason."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from deid_desktop.core import engine
from deid_desktop.core.demo import write_demo
from deid_desktop.core.export import FULL_RECORD_JSON, RECORD_JSON, RECORD_TXT
from deid_desktop.core.model import Pathway, Project, RiskSettings
from deid_desktop.core.risk.verdict import AccessModel, Level

SALT = bytes(range(32))


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_demo(tmp_path_factory.mktemp("demo") / "demo")


def _review(demo: Path, **changes: object) -> tuple[Project, engine.ReviewResult]:
    project, _ = engine.open_project(demo)
    project = dataclasses.replace(project, **changes)  # type: ignore[arg-type]
    extract = engine.load(project, demo)
    return project, engine.review(project, extract, salt=SALT)


def test_safe_harbor_at_k_1_passes_the_checks_but_the_verdict_is_red(demo: Path) -> None:
    _project, result = _review(demo)
    assert result.passed and result.risk is not None and result.risk.k == 1
    v = result.verdict
    assert v is not None and v.level == Level.HIGH and v.colour == "red"
    assert v.headline.startswith("All Safe Harbor checks passed. Residual risk: high - ")
    assert f"{result.risk.lone:,} of {result.risk.rows:,} persons are unique on" in v.headline
    assert v.access_model == AccessModel.CONTROLLED
    assert any("best generalization" in s for s in v.next_steps)
    # Safe Harbor needs no acceptance: the checks are the rule
    assert result.risk_acceptance_needed is None


def test_the_verdict_turns_green_when_every_class_reaches_the_target(demo: Path) -> None:
    project, _ = engine.open_project(demo)
    risk = RiskSettings(quasi_identifiers=("sex",), k_target=2, age_bands=project.risk.age_bands)
    _p, result = _review(demo, risk=risk)
    assert result.risk is not None and result.risk.k is not None and result.risk.k >= 2
    assert result.verdict is not None and result.verdict.colour == "green"


def test_a_failed_check_makes_the_verdict_blocked(demo: Path) -> None:
    _p, result = _review(demo, pathway=Pathway.LIMITED_DATA_SET)  # no DUA: a check fails
    assert not result.passed
    assert result.verdict is not None and result.verdict.level == Level.BLOCKED
    assert result.verdict.access_model == AccessModel.NONE


def test_linkable_below_k_is_written_only_with_an_accepted_reason(
    demo: Path, tmp_path: Path
) -> None:
    project, result = _review(demo, pathway=Pathway.LINKABLE)
    assert result.passed
    why = result.risk_acceptance_needed
    assert why is not None and "below the target" in why
    out, cw = tmp_path / "rel", tmp_path / "cw"
    with pytest.raises(engine.RiskNotAccepted) as raised:
        engine.export(project, demo, result, out_dir=out, crosswalk_dir=cw,
                      register_path=tmp_path / "reg.jsonl", accept_risk="  ")  # fmt: skip
    assert raised.value.exit_code == 3
    assert not out.exists() and not cw.exists()

    engine.export(project, demo, result, out_dir=out, crosswalk_dir=cw,
                  register_path=tmp_path / "reg.jsonl", accept_risk="enclave only")  # fmt: skip
    record = json.loads((out / RECORD_JSON).read_text(encoding="utf-8"))
    assert record["verdict"]["headline"] == result.verdict.headline  # type: ignore[union-attr]
    assert record["verdict"]["access_model"] == str(AccessModel.ENCLAVE)
    assert record["verdict"]["risk_accepted"]["reason"] == "enclave only"
    text = (out / RECORD_TXT).read_text(encoding="utf-8")
    assert "Residual risk accepted: enclave only" in text
    readme = (out / "README.txt").read_text(encoding="utf-8")
    assert result.verdict.headline in readme  # type: ignore[union-attr]
    assert f"Access model that fits: {AccessModel.ENCLAVE}." in readme
    full = json.loads((cw / FULL_RECORD_JSON).read_text(encoding="utf-8"))
    assert full["project"]["file"] == str(demo.absolute())
    assert len(full["project"]["sha256"]) == 64
