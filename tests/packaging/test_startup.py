"""The window opens before the data stack loads: importing the main window (what the
app does before showing it) loads no pandas, numpy or pyarrow. Cold start is measured
by bench/bench_frozen.py; this keeps the start path free of the heavy imports."""

from __future__ import annotations

import os
import subprocess
import sys


def test_the_main_window_module_imports_no_pandas_numpy_or_pyarrow() -> None:
    code = (
        "import sys\n"
        "import deid_desktop.gui.app, deid_desktop.gui.main_window\n"
        "print(sorted(m for m in ('pandas', 'numpy', 'pyarrow', 'openpyxl') if m in sys.modules))\n"
    )
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert out.stdout.strip() == "[]"
