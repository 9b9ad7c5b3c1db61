"""Population uniqueness of real projects: `deid risk PROJECT --json` on the demo and on
the two Synthea extracts (tests/data/synthea), each released under Safe Harbor with ZIP3,
so the population defaults to the 2020 Census population of the released ZIP3 areas.

Each figure is recomputed here from the released person table alone: the class sizes by
a pandas group-by, the population by summing the bundled Census table over the released
prefixes, Zayatz by exact hypergeometric probabilities (integer binomials), Pitman from
the score equations at its fitted parameters, and Dankar's choice by its rule. The same
JSON's small cells of the event tables are recounted by a group-by over persons."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from deid_desktop.cli import main
from deid_desktop.core import engine
from deid_desktop.core.pathways import build_release
from deid_desktop.core.resources import resources_dir
from deid_desktop.core.risk.population import fit_pitman
from deid_desktop.core.zip3 import load_bundled_zip3
from tests.core.synthea_cases import DATA, SETS
from tests.core.test_golden_release import _synthea


@pytest.fixture(scope="module")
def projects(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = {"demo": resources_dir() / "demo" / "demo.deid.json"}
    for name, tables in SETS.items():
        out[name] = _synthea(DATA / name, tmp_path_factory.mktemp(name), tables)
    return out


def _zayatz_exact(hist: dict[int, int], population: int) -> float:
    n = sum(s * c for s, c in hist.items())
    classes = sum(hist.values())

    def p1(size: int) -> Fraction:  # P(one of the class drawn), hypergeometric
        return Fraction(size * math.comb(population - size, n - 1), math.comb(population, n))

    total = sum(Fraction(c, classes) * p1(s) for s, c in hist.items())
    conditional = Fraction(hist[1], classes) * p1(1) / total
    return float(hist[1] * conditional / Fraction(n, population)) / population


def _pitman_plain(hist: dict[int, int], population: int) -> float:
    sizes = np.array(sorted(hist))
    counts = np.array([hist[s] for s in sizes], dtype=float)
    n, u = int((sizes * counts).sum()), int(counts.sum())
    theta, alpha = fit_pitman(sizes, counts, n)
    # the fitted parameters solve Pitman's score equations (plain loops)
    score_theta = sum(1 / (theta + i * alpha) for i in range(1, u)) - sum(
        1 / (theta + i) for i in range(1, n)
    )
    score_alpha = sum(i / (theta + i * alpha) for i in range(1, u)) - sum(
        c * sum(1 / (j - alpha) for j in range(1, s)) for s, c in hist.items()
    )
    assert abs(score_theta) < 1e-5 and abs(score_alpha) < 1e-5
    log_uniques = math.lgamma(theta + 1) - math.lgamma(theta + alpha)
    return math.exp(log_uniques + alpha * math.log(population)) / population


@pytest.mark.parametrize("name", ["demo", *SETS])
def test_population_figures_of_real_projects(
    projects: dict[str, Path], name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = projects[name]
    assert main(["risk", str(path), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)

    # the released person table, as `deid run` would write it
    project, _ = engine.open_project(path)
    extract = engine.load(project, path)
    release = build_release(extract, project)
    frame = release.tables[project.person_table.name]
    qis = got["quasi_identifiers"]
    assert "zip3" in qis
    sizes = frame.groupby(qis, dropna=False, observed=True).size()
    hist: dict[int, int] = {}
    for size in sizes:
        hist[int(size)] = hist.get(int(size), 0) + 1
    assert got["rows"] == len(frame) and got["classes"] == len(sizes)

    table = load_bundled_zip3()
    released = set(frame["zip3"].dropna())
    prefixes = (released - {"000"}) | (set(table.restricted) if "000" in released else set())
    population = sum(table.populations.get(z, 0) for z in prefixes)
    assert got["population"] == population > len(frame)
    f = len(frame) / population
    assert got["sampling_fraction"] == pytest.approx(f)

    assert hist.get(1, 0) > 0  # every project has sample uniques: the models have work
    zayatz, pitman = _zayatz_exact(hist, population), _pitman_plain(hist, population)
    assert got["zayatz"] == pytest.approx(zayatz, abs=1e-6)
    assert got["pitman"] == pytest.approx(pitman, abs=1e-6)
    assert got["pitman"] > 0 and 0 < got["zayatz"] < 1
    # Dankar et al. 2012: Pitman for a sampling fraction of at most 10 %
    assert f <= 0.1 and got["dankar_model"] == "pitman" and got["dankar"] == got["pitman"]

    # the same JSON counts the event tables' small cells: a group-by over persons
    cells = got["small_cells"]
    assert cells["columns"], "every project here has a coded event column"
    for c in cells["columns"]:
        events = release.tables[c["table"]]
        persons = events.dropna(subset=[c["column"]]).groupby(c["column"])[release.id_column]
        holders = persons.nunique()
        small = holders[holders < got["k_target"]]
        assert (c["distinct"], c["small_cells"]) == (len(holders), len(small))
        held = events[events[c["column"]].isin(small.index)][release.id_column].nunique()
        assert c["persons"] == held
    assert cells["small_cells"] == sum(c["small_cells"] for c in cells["columns"])
    assert (cells["small_cells"] > 0) == (name != "demo")
