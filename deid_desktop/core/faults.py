"""A test hook for crash tests: kill this process at the Nth step of an export.

``DEID_FAULT_POINT=N`` (a positive integer) makes the N-th call of :func:`fault_point`
in this process kill the process at once (SIGKILL where there is one), as a power cut or
``kill -9`` would. ``DEID_FAULT_POINT=trace`` kills nothing and prints each step's
number and label to stderr (the crash tests use it to count the steps).

It exists for the tests only. Without the variable (as in every normal run)
:func:`fault_point` does nothing; labels name steps, never a file's content.
"""

from __future__ import annotations

import os
import signal
import sys

FAULT_ENV = "DEID_FAULT_POINT"

_reached = 0


def fault_point(label: str) -> None:
    """One step of an export is done. A no-op unless ``DEID_FAULT_POINT`` is set."""
    spec = os.environ.get(FAULT_ENV, "").strip()
    if not spec:
        return
    global _reached
    _reached += 1
    if spec == "trace":
        print(f"deid-fault-point {_reached} {label}", file=sys.stderr, flush=True)
    elif spec.isdigit() and int(spec) == _reached:
        kill = getattr(signal, "SIGKILL", None)
        if kill is None:  # pragma: no cover - Windows
            os._exit(137)
        os.kill(os.getpid(), kill)
