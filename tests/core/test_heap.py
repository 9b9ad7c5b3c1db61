"""The scan keeps freed heap pages for its next batch (core.heap, Linux with glibc)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: Three rounds of 8 arrays of 6 MB, each round written and freed; the page faults of
#: the third. With glibc's defaults each round maps its memory again (measured: about
#: 4,000 faults a round, numpy asking for huge pages where it can); with the scan's
#: thresholds the third round reuses the pages of the first.
_ROUNDS = """
import resource, sys
import numpy as np
sys.path.insert(0, {root!r})
if {scan}:
    from deid_desktop.core.scan import build_dictionary_from_values, scan_texts
    scan_texts(["Seen by Dr. Smith on 3/4/2021, MRN 1234567."], build_dictionary_from_values({{}}))
faults = []
for _ in range(3):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    arrays = [np.ones(6 << 17) for _ in range(8)]
    faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
    del arrays
print(faults[-1])
"""


def _third_round_faults(scan: bool) -> int:
    code = _ROUNDS.format(root=str(ROOT), scan=scan)
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    return int(out.stdout.split()[-1])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's heap thresholds")
def test_after_a_scan_freed_pages_are_reused() -> None:
    assert _third_round_faults(scan=False) > 1000  # glibc's default: given back
    assert _third_round_faults(scan=True) < 200  # kept for the next batch


def test_keep_freed_pages_is_set_once_and_says_so() -> None:
    from deid_desktop.core.heap import keep_freed_pages

    first = keep_freed_pages()
    assert keep_freed_pages() is first
    assert first is sys.platform.startswith("linux") or not first
