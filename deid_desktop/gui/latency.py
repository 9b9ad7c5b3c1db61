"""Ask the kernel to run the window's threads soon after they wake (Linux 6.12 and later).

Why: on a busy machine the window's thread waits for a CPU behind every busy process of
equal priority; at a million persons, with two busy-loop processes beside the app, most
of its longest stalls were time queued for a CPU (100-500 ms), not its own work. Since
6.12 the kernel's fair scheduler (EEVDF) takes a thread's own time slice into account:
a thread that asks for a short slice gets an earlier deadline, so it is picked (and
preempts a longer-sliced one) as soon as it wakes. Its share of the CPU does not grow:
a short slice buys latency, not time. Any user may ask for it (no privilege), as for a
higher niceness.

The slice is asked for once, by the app's first thread before the others start: the
threads it creates (Qt's, the job pool's) inherit it. A forked child doing a heavy job
goes back to the default slice (``default_slice``), so it runs as any batch work.

Elsewhere (macOS, Windows, an older Linux that does not know the call) nothing happens.
"""

from __future__ import annotations

import contextlib
import ctypes
import platform
import struct
import sys

#: The slice the window's threads ask for (ns): the kernel's default is 0.7-3 ms (it grows
#: with the CPU count); it accepts 0.1-100 ms.
SHORT_SLICE_NS = 500_000

#: (sched_setattr, sched_getattr) system call numbers by machine.
_CALLS = {"x86_64": (314, 315), "aarch64": (274, 275), "arm64": (274, 275)}
#: struct sched_attr (its first version, 56 bytes): size, policy, flags, nice, priority,
#: runtime (a fair task's slice), deadline, period, util_min, util_max.
_ATTR = struct.Struct("<IIQiIQQQII")
_SCHED_OTHER = 0


def _calls() -> tuple[int, int] | None:
    if not sys.platform.startswith("linux"):
        return None
    return _CALLS.get(platform.machine())


def _syscall(number: int, *args: object) -> bool:
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.syscall.restype = ctypes.c_long
        return libc.syscall(ctypes.c_long(number), *args) == 0
    return False


def _attr() -> tuple[int, ...] | None:
    calls = _calls()
    if calls is None:
        return None
    buf = ctypes.create_string_buffer(_ATTR.size)
    if not _syscall(calls[1], 0, buf, ctypes.c_uint(_ATTR.size), ctypes.c_uint(0)):
        return None
    return _ATTR.unpack(buf.raw)


def slice_ns() -> int | None:
    """The calling thread's time slice (ns) as the kernel reports it, or None when it
    cannot say (not Linux, or a kernel without the call)."""
    attr = _attr()
    return None if attr is None else attr[5]


def _set_slice(ns: int) -> bool:
    calls, attr = _calls(), _attr()
    if calls is None or attr is None or attr[1] != _SCHED_OTHER:
        return False  # a real-time or batch policy someone chose: left as it is
    nice = attr[3]  # unchanged (lowering it would need a privilege)
    packed = _ATTR.pack(_ATTR.size, _SCHED_OTHER, 0, nice, 0, ns, 0, 0, 0, 0)
    buf = ctypes.create_string_buffer(packed, _ATTR.size)
    return _syscall(calls[0], 0, buf, ctypes.c_uint(0))


def short_slice(ns: int = SHORT_SLICE_NS) -> bool:
    """Ask for a short time slice for the calling thread and the threads it will create.
    True if the kernel took it (a kernel before 6.12 accepts the call and ignores it)."""
    return _set_slice(ns) and slice_ns() == ns


def default_slice() -> bool:
    """Go back to the kernel's default slice (a forked child's heavy job)."""
    return _set_slice(0)
