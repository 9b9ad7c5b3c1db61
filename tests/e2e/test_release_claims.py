"""Every sentence of a release README is true of the files written (the "claims" test).

The README's tables, transformations and residual-risk figures are parsed and each is
checked against the release folder itself, with plain pandas: a column said removed is in
no file, a column said reduced to its year holds only years, the persons said pooled as
90+ are the 90+ cells, the ZIPs said set to 000 are the 000 cells, rows are in subject-ID
order, and k, classes and lone records recompute from the released person table.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from deid_desktop.cli import main
from tests.core.test_golden_release import EXTRACTS, _synthea

DATA = Path(__file__).resolve().parents[1] / "data" / "synthea"


def deid(*args: str | Path) -> int:
    return main([str(a) for a in args])


def _sentences(readme: str, section: str) -> list[str]:
    block = readme.split(f"\n{section}\n", 1)[1].split("\n\n", 1)[0]
    return [line for line in block.splitlines()[1:] if line.strip()]


def _tables(out: Path) -> dict[str, pd.DataFrame]:
    return {
        p.stem: pd.read_csv(p, dtype=str, keep_default_na=False, na_values=[""])
        for p in out.glob("*.csv")
        if p.name != "data_dictionary.csv"
    }


def _columns(listed: str) -> list[tuple[str, str]]:
    return [tuple(item.strip().split(".", 1)) for item in listed.rstrip(".").split(",")]


def check_claims(out: Path, person_table: str) -> int:
    """Check each claim of README.txt against the files; the number of claims checked."""
    readme = (out / "README.txt").read_text(encoding="utf-8")
    tables = _tables(out)
    checked = 0
    for line in _sentences(readme, "Tables"):
        name, rest = line.split(": ", 1)
        rows, cols = re.match(r"([\d,]+) rows, (\d+) columns", rest).groups()
        assert tables[name].shape == (int(rows.replace(",", "")), int(cols)), line
        checked += 1
    for line in (s.removeprefix("- ") for s in _sentences(readme, "What was done")):
        if m := re.match(
            r"Removed [\d,]+ (?:direct-identifier|free-text|untagged) columns?: (.*)", line
        ):
            for table, column in _columns(m.group(1)):
                assert column not in tables.get(table, pd.DataFrame()).columns, line
            checked += 1
        elif m := re.match(r"Reduced [\d,]+ date columns? to their year: (.*)", line):
            for table in {t for t, _ in _columns(m.group(1))}:
                years = [c for c in tables[table].columns if c.endswith("_year")]
                assert years, line
                for c in years:
                    values = tables[table][c].dropna()
                    assert values.str.fullmatch(r"\d{4}").all(), (line, c)
            checked += 1
        elif m := re.match(r"Pooled ([\d,]+) persons? over 89 as '90\+'", line):
            # a pooled person shows as a 90+ cell in the released person table
            n = int(m.group(1).replace(",", ""))
            cells = int((tables[person_table] == "90+").to_numpy().sum())
            assert cells == n, line
            checked += 1
        elif m := re.match(r"Cut ZIP to 3 digits; ([\d,]+) set to 000", line):
            n = int(m.group(1).replace(",", ""))
            zips = sum(int((t["zip3"] == "000").sum()) for t in tables.values() if "zip3" in t)
            assert zips == n, line
            checked += 1
        elif line.startswith("Ordered the rows of every table by subject ID"):
            for name, t in tables.items():
                ids = t["subject_id"]
                assert ids.is_monotonic_increasing, name
            checked += 1
    risk = _sentences(readme, "Residual risk")
    counted = re.match(r"Measured on the person table, on the columns: (.*)\.", risk[0]).group(1)
    sizes = tables[person_table].groupby(counted.split(", "), dropna=False).size()
    figures = dict(line.split(": ", 1) for line in risk if ": " in line)
    k_line = next(line for line in risk if line.startswith("k (smallest group"))
    assert int(k_line.rsplit(": ", 1)[1]) == int(sizes.min())
    assert int(figures["Equivalence classes"].replace(",", "")) == len(sizes)
    assert int(figures["Lone records (a group of one)"].replace(",", "")) == int((sizes == 1).sum())
    return checked + 3


def test_demo_release_claims_are_true(tmp_path: Path) -> None:
    assert deid("demo", "--out", tmp_path / "demo", "--rows", 800) == 0
    out = tmp_path / "release"
    assert deid("run", tmp_path / "demo" / "demo.deid.json", "--out", out, "--crosswalk-out",
                tmp_path / "cw", "--register", tmp_path / "reg.jsonl") == 0  # fmt: skip
    assert check_claims(out, "demographics") >= 8


@pytest.mark.parametrize("name", list(EXTRACTS))
def test_synthea_release_claims_are_true(name: str, tmp_path: Path) -> None:
    folder = tmp_path / name
    folder.mkdir()
    project = _synthea(DATA / name, folder, EXTRACTS[name])
    out = tmp_path / "release"
    assert deid("run", project, "--out", out, "--crosswalk-out", tmp_path / "cw",
                "--register", tmp_path / "reg.jsonl") == 0  # fmt: skip
    assert check_claims(out, "patients") >= 6
