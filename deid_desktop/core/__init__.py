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
