"""The engine: pandas in, pandas out. Imports no Qt, ever (tests/core/test_layers.py)."""

from __future__ import annotations

import os
import sys

# Arrow's buffers from jemalloc on Linux (its wheels have it): measured on a
# million-person run it returns freed memory to the system sooner than the default
# (mimalloc), about 130-180 MB less at the peak for the same CPU. Set by environment,
# read when pyarrow first allocates, so importing the engine still imports no pyarrow
# (`deid --help`, the main window); an explicit setting is left as it is.
if sys.platform.startswith("linux"):
    os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "jemalloc")
    # numpy asks for transparent huge pages (madvise) for every array of 4 MB or more,
    # read when numpy is imported. Where the system gives huge pages only on request
    # (THP "madvise", also for defragmenting), each such array is a 2 MB page zeroed,
    # and compacted for, at its first write; the engine's arrays are short-lived (made
    # and freed by each step), so that work is paid again and again. Measured on the
    # million-person Safe Harbor run: 0.5-0.8 s less system time with ordinary pages,
    # more (cheaper) page faults, the same peak. An explicit setting is left as it is.
    os.environ.setdefault("NUMPY_MADVISE_HUGEPAGE", "0")
