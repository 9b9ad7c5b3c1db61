"""Shared test set-up. Qt runs offscreen; the public data the suite reads is in tests/data.

tests/data holds byte-for-byte copies of public data sets (Synthea extracts, the adult
data set with ARX's hierarchies, Census ZCTA tables, PhysioNet deid name lists), each
folder with its PROVENANCE.md and licence, so a fresh clone runs every test.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

ROOT = Path(__file__).resolve().parents[1]
PUBLIC_DATA = ROOT / "tests" / "data"


@pytest.fixture(scope="session")
def public_data() -> Path:
    """The folder of public test data inside the repository (never skipped)."""
    return PUBLIC_DATA


@pytest.fixture(autouse=True)
def own_register(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test gets its own export register: a review reads the register for earlier
    releases of the same source (risk across releases), so a release one test exported
    must never become another test's "earlier release". A test may set its own."""
    folder = tmp_path_factory.mktemp("register")
    monkeypatch.setenv("DEID_REGISTER", str(folder / "register.jsonl"))
