"""Run a heavy job that writes nothing in a forked child process, so the window never waits.

Why: pandas, Arrow and numpy hold the GIL inside single long C calls (a million-row
``tolist``, a factorize, an object-dtype hash), and Python cannot switch threads inside
one: on a pool thread, the review of a million persons froze the window for up to
1.3 s. A child process has its own GIL, so nothing the job does can hold the UI thread.

How: ``os.fork()`` shares the app's memory copy-on-write (the loaded extract is not
copied). The child runs the job and sends its progress, then its result, through a
pipe: pickle protocol 5, so Arrow and numpy buffers travel out of band as raw bytes and
are rebuilt around the received memory without a copy. Nothing is written to disk (no
value of the data in a temp file). Cancel kills the child: use this only for jobs that
write nothing (a review, an attack), so a killed child leaves nothing behind. The
result is the same object graph the job returns in-thread (same code, same inputs).

Linux only: forking a process with threads is unsafe on macOS and impossible on
Windows; there ``available()`` is False and the job runs on the pool thread as before.
"""

from __future__ import annotations

import contextlib
import copyreg
import ctypes
import gc
import io
import logging
import os
import pickle
import select
import signal
import struct
import sys
import time
import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from deid_desktop.core.progress import CancelToken, ProgressFn

if TYPE_CHECKING:
    from deid_desktop.core.model import Extract

log = logging.getLogger("deid.gui")
T = TypeVar("T")

#: An extract with at least this many rows (all tables) reviews in a child process: below
#: it the longest GIL-holding call is short and a fork is not worth its few milliseconds.
CHILD_ROWS = 200_000

_HEADER = struct.Struct("<cQ")  # kind, payload length
_PROGRESS, _RESULT, _ERROR, _UNSENDABLE = b"p", b"r", b"e", b"u"
_POLL_S = 0.05  # how often the waiting thread looks at the Cancel button
_PR_SET_PDEATHSIG = 1

#: The peak resident set (MB) of the last child, as the kernel counted it (VmHWM): the
#: app's memory is its own peak plus this (minus the pages they share). For the bench.
last_child_peak_mb: float | None = None


class ChildFailed(RuntimeError):
    """The child process ended without sending a result (killed, out of memory)."""


def available() -> bool:
    return sys.platform.startswith("linux") and hasattr(os, "fork")


def extract_rows(extract: Extract) -> int:
    """The rows of every table of ``extract``: what a job over it reads."""
    return sum(len(t.frame) for t in extract.tables)


def worth_a_child(rows: int) -> bool:
    """Whether a job over ``rows`` rows should run in a child process."""
    return available() and rows >= CHILD_ROWS


# -- pickling -------------------------------------------------------------------------
def _proxy(items: dict[Any, Any]) -> types.MappingProxyType[Any, Any]:
    return types.MappingProxyType(items)


def _mappingproxy(m: types.MappingProxyType[Any, Any]) -> tuple[Any, tuple[dict[Any, Any]]]:
    return _proxy, (dict(m),)


#: An object array of strings at least this long, with at most half its values distinct,
#: travels as its distinct strings and integer codes (out of band).
CODES_MIN = 10_000


#: Codes rebuilt into objects this many at a time: between the steps the app's other
#: threads may run (one step at a million rows held Python's lock, and the window, 6 ms
#: per array; a review's five arrays back to back 30 ms).
FROM_CODES_STEP = 1 << 17


def _from_codes(distinct: list[str], codes: Any) -> Any:
    """The object array ``distinct[codes]`` (C loops: no string is made again), built
    ``FROM_CODES_STEP`` rows at a time."""
    import numpy as np

    values = np.empty(len(distinct), dtype=object)
    values[:] = distinct
    out = np.empty(len(codes), dtype=object)
    for start in range(0, len(codes), FROM_CODES_STEP):
        end = start + FROM_CODES_STEP
        np.take(values, codes[start:end], out=out[start:end])
    return out


def _as_codes(array: Any) -> tuple[list[str], Any] | None:
    """``array``'s distinct strings and its codes, or None if it is not worth it (or not
    only exact strings: equal values of other types would come back as one type)."""
    pd = sys.modules.get("pandas")
    if pd is None or array.ndim != 1 or array.size < CODES_MIN:
        return None
    if set(map(type, array)) != {str}:
        return None
    codes, distinct = pd.factorize(array)
    if len(distinct) > array.size // 2:
        return None
    return list(distinct), codes.astype("int32")


def _arrow_backed(cls: type, state: dict[str, Any], chunks: Any) -> Any:
    """A pandas Arrow-backed array (``ArrowStringArray``...) around ``chunks`` as sent."""
    obj = cls.__new__(cls)
    obj.__dict__.update(state)
    obj._pa_array = chunks
    return obj


def _reduce_arrow_backed(obj: Any) -> Any:
    """A pandas Arrow-backed array as its chunks, each sent as it is: pandas' own pickle
    first joins them into one new array (``combine_chunks``, a copy of every string
    column: 340 MB more in the child at a million persons, with the result)."""
    pd = sys.modules.get("pandas")
    if pd is None or not isinstance(obj, pd.arrays.ArrowExtensionArray):
        return NotImplemented
    chunks = getattr(obj, "_pa_array", None)
    pa = sys.modules.get("pyarrow")
    if pa is None or not isinstance(chunks, pa.ChunkedArray):
        return NotImplemented
    state = {k: v for k, v in obj.__dict__.items() if k not in ("_pa_array", "_cache")}
    state["_cache"] = {}
    return _arrow_backed, (type(obj), state, chunks)


class _Pickler(pickle.Pickler):
    """Pickle protocol 5 with the read-only mappings core uses (risk formulas), pandas'
    Arrow-backed arrays as their chunks (no copy), and long object arrays of repeated
    strings (span kinds, rules) as codes: in band, such an array is a list the parent's
    ``pickle.loads`` rebuilds in one C call, with Python's lock held (25 ms for a
    review's spans at a million persons: the window froze)."""

    dispatch_table = copyreg.dispatch_table.copy()
    dispatch_table[types.MappingProxyType] = _mappingproxy

    def reducer_override(self, obj: Any) -> Any:
        np = sys.modules.get("numpy")
        if np is None:
            return NotImplemented
        if type(obj) is not np.ndarray:
            return _reduce_arrow_backed(obj)
        if obj.dtype != object:
            return NotImplemented
        coded = _as_codes(obj)
        return NotImplemented if coded is None else (_from_codes, coded)


def dumps(obj: object) -> tuple[bytes, list[memoryview]]:
    """``obj`` as an in-band pickle plus its large contiguous buffers, out of band."""
    raws: list[memoryview] = []

    def out_of_band(buf: pickle.PickleBuffer) -> bool:
        try:
            raws.append(buf.raw())
        except BufferError:  # not contiguous: pickled in band
            return True
        return False

    stream = io.BytesIO()
    _Pickler(stream, protocol=5, buffer_callback=out_of_band).dump(obj)
    return stream.getvalue(), raws


# -- the pipe -------------------------------------------------------------------------
def _write_all(fd: int, data: bytes | memoryview) -> None:
    view = memoryview(data).cast("B")
    while len(view):
        view = view[os.write(fd, view) :]


def _send(fd: int, kind: bytes, payload: bytes) -> None:
    _write_all(fd, _HEADER.pack(kind, len(payload)) + payload)


def _peak_kb() -> int:
    with contextlib.suppress(OSError), open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def _child(fn: Callable[[ProgressFn, CancelToken], Any], fd: int) -> None:
    """(child) Run ``fn``, send what it returned or raised, exit without cleanup."""
    code = 1
    try:
        gc.freeze()  # the inherited objects: a collection here neither walks nor copies them
        with contextlib.suppress(OSError, AttributeError):  # die with the app
            ctypes.CDLL("libc.so.6").prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)

        last = [0.0, ""]

        def progress(fraction: float, stage: str) -> None:  # at most 20 a second
            now = time.monotonic()
            if fraction >= 1.0 or stage != last[1] or now - float(last[0]) >= 0.05:
                last[:] = [now, stage]
                _send(fd, _PROGRESS, pickle.dumps((fraction, stage)))

        try:
            result = fn(progress, CancelToken())
        except BaseException as exc:
            try:
                payload = pickle.dumps(exc)
                pickle.loads(payload)  # must come back as it left
            except Exception:
                _send(fd, _UNSENDABLE, b"")
            else:
                _send(fd, _ERROR, payload)
        else:
            try:
                main, raws = dumps(result)
            except Exception:  # cannot travel: the app runs the job itself
                _send(fd, _UNSENDABLE, b"")
            else:
                meta = pickle.dumps((main, [r.nbytes for r in raws], _peak_kb()))
                _send(fd, _RESULT, meta)
                for raw in raws:
                    _write_all(fd, raw)
        code = 0
    except BaseException:  # the app stopped listening (cancelled, closed): just end
        pass
    finally:
        os._exit(code)


class _Reader:
    """(parent) Reads the child's messages, looking at the Cancel button between reads;
    every read releases the GIL, so the UI thread runs while the bytes arrive."""

    def __init__(self, fd: int, pid: int, cancel: CancelToken) -> None:
        self.fd, self.pid, self.cancel = fd, pid, cancel
        self.exited = False

    def _wait(self) -> None:
        while not select.select([self.fd], [], [], _POLL_S)[0]:
            self.cancel.raise_if_cancelled()
            # another job's child may hold this pipe open too: EOF would never come
            if not self.exited and os.waitpid(self.pid, os.WNOHANG)[0] == self.pid:
                self.exited = True
                if not select.select([self.fd], [], [], 0)[0]:
                    raise ChildFailed("The worker process ended before sending its result.")
        self.cancel.raise_if_cancelled()

    def into(self, view: memoryview) -> None:
        pos = 0
        while pos < len(view):
            self._wait()
            got = os.readv(self.fd, [view[pos:]])
            if got == 0:
                raise ChildFailed("The worker process ended before sending its result.")
            pos += got

    def exactly(self, n: int) -> bytes:
        buf = bytearray(n)
        self.into(memoryview(buf))
        return bytes(buf)

    def buffer(self, n: int) -> Any:
        """``n`` bytes into 64-byte-aligned memory (as Arrow allocates its own); a large
        one in huge pages (``huge_buffer``)."""
        import pyarrow as pa

        buf = huge_buffer(n) if n >= HUGE_MIN else pa.allocate_buffer(n)
        self.into(memoryview(buf))
        return buf


#: A received buffer of at least this many bytes goes into huge pages (2 MB).
HUGE_MIN = 4 << 20
_ALIGN = 64


def huge_buffer(n: int) -> Any:
    """An Arrow buffer of ``n`` writable bytes, 64-byte aligned, in memory numpy asks the
    kernel to back with huge pages (numpy does so for large arrays on Linux): the next
    ``fork`` copies one page-table entry per 2 MB of it instead of 512. With the extract
    and the review in 4 KB pages, each fork held Python's lock (and so the window)
    30-60 ms at a million persons."""
    import numpy as np
    import pyarrow as pa

    raw = np.empty(n + _ALIGN, dtype=np.uint8)
    start = -raw.ctypes.data % _ALIGN
    return pa.py_buffer(raw[start : start + n])


def call(
    fn: Callable[[ProgressFn, CancelToken], T], progress: ProgressFn, cancel: CancelToken, rows: int
) -> T:
    """``fn(progress, cancel)``: in a child process when ``rows`` (the size of the data it
    reads) makes it worth one, else right here. Call it on a pool thread."""
    if worth_a_child(rows):
        return run(fn, progress, cancel)
    return fn(progress, cancel)


def run(
    fn: Callable[[ProgressFn, CancelToken], T],
    progress: ProgressFn,
    cancel: CancelToken,
    *,
    on_start: Callable[[int], None] | None = None,
) -> T:
    """``fn(progress, cancel)`` in a forked child; its result (or exception) here.
    ``on_start`` is told the child's process ID."""
    global last_child_peak_mb
    cancel.raise_if_cancelled()
    rfd, wfd = os.pipe()
    with contextlib.suppress(OSError):  # fewer, larger reads (1 MB, Linux)
        import fcntl

        fcntl.fcntl(rfd, getattr(fcntl, "F_SETPIPE_SZ", 1031), 1 << 20)
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child (its coverage is not collected)
        os.close(rfd)
        _child(fn, wfd)
    os.close(wfd)
    if on_start is not None:
        on_start(pid)
    reader = _Reader(rfd, pid, cancel)
    try:
        while True:
            try:
                head = reader.exactly(_HEADER.size)
            except ChildFailed:
                raise ChildFailed(
                    "The worker process ended without a result (out of memory?). "
                    "Nothing was written."
                ) from None
            kind, size = _HEADER.unpack(head)
            payload = reader.exactly(size) if size else b""
            if kind == _PROGRESS:
                progress(*pickle.loads(payload))
                continue
            if kind == _ERROR:
                raise pickle.loads(payload)
            if kind == _UNSENDABLE:  # its error or result cannot travel: run it here
                log.info("the worker process's outcome could not be sent: running in-thread")
                _kill(pid)
                reader.exited = True
                return fn(progress, cancel)
            main, sizes, peak_kb = pickle.loads(payload)
            buffers = [reader.buffer(n) for n in sizes]
            last_child_peak_mb = peak_kb / 1024
            result: T = pickle.loads(main, buffers=buffers)
            return result
    finally:  # done, failed or cancelled: the child is gone when this returns
        os.close(rfd)
        if not reader.exited:
            _kill(pid)


def _kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    _reap(pid)


def _reap(pid: int) -> None:
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)
