"""The gate as a package: one registry of checks with stable ids and the pathways each
applies to, progress per check, cancel between checks, and the residual risk measured
before the gate so that a check can read it."""

from __future__ import annotations

import pytest

from deid_desktop.core import engine, verify
from deid_desktop.core.errors import Cancelled
from deid_desktop.core.model import Extract, Pathway, Project, Release
from deid_desktop.core.pathways.registry import all_specs
from deid_desktop.core.pathways.safe_harbor import build_safe_harbor
from deid_desktop.core.progress import CancelToken
from deid_desktop.core.verify import (
    BLOCKING,
    CHECKS,
    Check,
    Finding,
    Severity,
    VerifyContext,
    checks_for,
    verify_release,
)
from tests.core.test_safe_harbor_support import make_case

EXTRACT, PROJECT = make_case(n=12)
CLEAN = build_safe_harbor(EXTRACT, PROJECT)


def test_every_check_has_a_unique_id_a_severity_and_at_least_one_pathway() -> None:
    assert len({c.id for c in CHECKS}) == len(CHECKS)
    for check in CHECKS:
        assert isinstance(check.severity, Severity), check.id
        assert check.pathways and check.pathways <= frozenset(Pathway), check.id
    assert BLOCKING == "blocking" and Severity.WARNING == "warning"


def test_each_pathway_runs_the_checks_that_name_it_in_registry_order() -> None:
    for pathway in Pathway:
        expected = [c.id for c in CHECKS if pathway in c.pathways]
        assert [c.id for c in checks_for(pathway)] == expected
        assert expected, pathway
    assert "no_full_dates" in {c.id for c in checks_for(Pathway.SAFE_HARBOR)}
    assert "dua_present" in {c.id for c in checks_for(Pathway.LIMITED_DATA_SET)}
    assert "intervals_preserved" in {c.id for c in checks_for(Pathway.LINKABLE)}


def test_no_pathway_module_declares_checks() -> None:
    for spec in all_specs():
        assert not hasattr(spec.module, "CHECKS"), spec.module.__name__


def test_progress_names_each_check_and_ends_at_one() -> None:
    seen: list[tuple[float, str]] = []
    result = verify_release(
        EXTRACT, CLEAN, PROJECT, progress=lambda f, stage: seen.append((f, stage))
    )
    names = [c.check.name for c in result.outcomes]
    assert [s for _, s in seen[:-1]] == [f"Checking: {n}" for n in names]
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions) and fractions[0] == 0.0 and fractions[-1] == 1.0


def test_a_cancelled_gate_stops_between_checks() -> None:
    token = CancelToken()
    calls: list[str] = []

    def progress(fraction: float, stage: str) -> None:
        calls.append(stage)
        if len(calls) == 2:
            token.cancel()

    with pytest.raises(Cancelled):
        verify_release(EXTRACT, CLEAN, PROJECT, progress=progress, cancel=token)
    assert len(calls) == 2


def test_a_check_reads_the_risk_the_engine_measured_before_the_gate(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[object] = []

    def k_target(
        extract: Extract, release: Release, project: Project, ctx: VerifyContext
    ) -> Finding:
        seen.append(ctx.risk)
        return Finding(True, 0, {})

    probe = Check(
        "probe_k_target",
        "Reads the residual risk",
        "test",
        BLOCKING,
        "A check that reads the risk measured before the gate.",
        k_target,
    )
    monkeypatch.setattr(verify, "CHECKS", (*CHECKS, probe))
    result = engine.review(PROJECT, EXTRACT)
    assert result.risk is not None and result.quasi_identifiers
    assert seen == [result.risk]
    assert result.verification.outcome("probe_k_target").passed


def test_verify_release_without_a_risk_leaves_it_none(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[object] = []

    def probe(extract: Extract, release: Release, project: Project, ctx: VerifyContext) -> Finding:
        seen.append(ctx.risk)
        return Finding(True)

    check = Check("probe", "probe", "test", BLOCKING, "probe", probe)
    monkeypatch.setattr(verify, "CHECKS", (check,))
    verify_release(EXTRACT, CLEAN, PROJECT)
    assert seen == [None]
