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
