"""The heavy jobs in a child process (``gui.child_job``): the review a user sees is the
one the app computes in its own thread, Cancel ends the child at once, and a failure in
the child reaches the page as the same error."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pandas as pd
import pytest

from deid_desktop.core import engine
from deid_desktop.core.errors import Cancelled, ProjectError
from deid_desktop.core.progress import CancelToken
from deid_desktop.core.steps import Step
from deid_desktop.gui import backend, child_job
from deid_desktop.gui.main_window import MainWindow
from tests.gui import test_review_generalize as generalize_flow
from tests.gui.test_flow import WAIT, idle, open_demo, wait_review
from tests.gui.test_reproduce import file_keyring  # noqa: F401 - a fixture


def _alive(pid: int) -> bool:
    """Whether ``pid`` is still a process of ours (running or not yet reaped)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            return f.read().split()[3] == str(os.getpid())
    except OSError:
        return False


def _same_review(a: engine.ReviewResult, b: engine.ReviewResult) -> None:
    assert a.release.tables.keys() == b.release.tables.keys()
    for name, frame in a.release.tables.items():
        pd.testing.assert_frame_equal(frame, b.release.tables[name])
    pd.testing.assert_frame_equal(a.release.crosswalk, b.release.crosswalk)
    assert a.verification == b.verification
    assert a.verdict == b.verdict
    assert a.risk is not None and b.risk is not None
    assert (a.risk.k, a.risk.lone, a.risk.classes) == (b.risk.k, b.risk.lone, b.risk.classes)
    assert a.risk.formulas == b.risk.formulas
    assert a.scan is not None and b.scan is not None
    assert a.scan.total_hits == b.scan.total_hits


def test_the_review_from_a_child_is_the_review_in_thread(
    qtbot, window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    open_demo(qtbot, window)
    assert window.go_to(Step.REVIEW)
    wait_review(qtbot, window)
    in_thread = window.session.review
    shown = window.review_page.checks.topLevelItemCount()

    monkeypatch.setattr(child_job, "CHILD_ROWS", 0)  # this small demo goes to a child too
    child_job.last_child_peak_mb = None
    window.review_page.run_review()
    qtbot.waitUntil(lambda: window.session.review is not in_thread, timeout=WAIT)
    idle(qtbot, window)
    from_child = window.session.review
    assert child_job.last_child_peak_mb is not None  # it did run in a child
    _same_review(from_child, in_thread)
    assert window.review_page.checks.topLevelItemCount() == shown
    assert window.review_page.verdict.isVisible()

    # the intruder test runs in a child too, and its figures join the review
    page = window.review_page
    page.tabs.setCurrentWidget(page.intruder)
    qtbot.waitUntil(lambda: window.session.review.intruder is not None, timeout=WAIT)
    idle(qtbot, window)
    report = window.session.review.intruder
    extract = window.session.extract
    on = report.on
    salt = backend.salt_for(from_child.project)
    assert report == backend.intruder_report(from_child, extract, on=on, salt=salt)  # in-thread
    assert report.targets > 0 and page.intruder.sentence.text()


def test_progress_comes_back_and_cancel_ends_the_child_at_once() -> None:
    stages: list[str] = []
    pids: list[int] = []

    def forever(progress, cancel):  # type: ignore[no-untyped-def]
        progress(0.5, "Half way")
        while True:  # a long C call would not look at the token either
            time.sleep(0.01)

    token = CancelToken()
    threading.Timer(0.5, token.cancel).start()
    started = time.monotonic()
    with pytest.raises(Cancelled):
        child_job.run(forever, lambda f, s: stages.append(s), token, on_start=pids.append)
    assert time.monotonic() - started < 5
    assert stages == ["Half way"]
    assert pids and not _alive(pids[0])  # killed and reaped: no zombie left


def test_an_error_in_the_child_is_raised_here_with_its_hint() -> None:
    def fails(progress, cancel):  # type: ignore[no-untyped-def]
        raise ProjectError("The extract cannot be reviewed", hint="Fix it.")

    with pytest.raises(ProjectError, match="cannot be reviewed") as caught:
        child_job.run(fails, lambda f, s: None, CancelToken())
    assert caught.value.hint == "Fix it."


def test_a_child_that_dies_is_an_error_not_a_hang() -> None:
    def dies(progress, cancel):  # type: ignore[no-untyped-def]
        os._exit(3)

    with pytest.raises(child_job.ChildFailed, match="without a result"):
        child_job.run(dies, lambda f, s: None, CancelToken())


def test_what_cannot_travel_is_computed_here() -> None:
    calls: list[int] = []

    def local_lock(progress, cancel):  # type: ignore[no-untyped-def]
        calls.append(os.getpid())
        return threading.Lock()  # cannot be pickled

    result = child_job.run(local_lock, lambda f, s: None, CancelToken())
    assert isinstance(result, type(threading.Lock()))
    assert calls == [os.getpid()]  # run again here (the child's run was in the child)


def _niceness(progress, cancel) -> int:  # type: ignore[no-untyped-def]
    return os.nice(0)


def test_the_child_runs_at_the_apps_priority() -> None:
    """The review's child is not made nicer than the app: measured on a loaded machine
    (bench_ui_stall.py, two CPU burners), a child at niceness 10 took the review at 1M
    persons from 75 s to 323 s and bought no shorter stall of the window."""
    assert child_job.run(_niceness, lambda f, s: None, CancelToken()) == os.nice(0)


def test_small_extracts_stay_in_thread() -> None:
    assert not child_job.worth_a_child(child_job.CHILD_ROWS - 1)
    assert child_job.worth_a_child(child_job.CHILD_ROWS)


def test_the_generalization_flow_with_every_heavy_job_in_a_child(
    qtbot,
    window: MainWindow,
    tmp_path: Path,
    file_keyring: None,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # type: ignore[no-untyped-def]
    """Load, review, search, hierarchy editor, apply, undo, export: each job that reads
    a large extract runs in a child here (this small demo too), and the release is still
    byte for byte what ``deid run`` writes."""
    monkeypatch.setattr(child_job, "CHILD_ROWS", 0)
    children: list[int] = []
    real = child_job.run

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        children.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(child_job, "run", counted)
    generalize_flow.test_find_preview_apply_undo_export_and_deid_run_agree(
        qtbot, window, tmp_path, None
    )
    assert len(children) >= 4  # the load, the reviews, the search


def test_long_arrays_of_repeated_strings_travel_as_codes() -> None:
    """A review's span kinds and rules (object arrays of a few strings repeated) come back
    as codes, out of band: in band, rebuilding them held Python's lock for tens of ms."""
    import pickle

    import numpy as np

    n = child_job.CODES_MIN * 3
    kinds = np.array(["PERSON", "DATE", "PHONE"] * (n // 3), dtype=object)
    mixed = np.array(["x", None] * (n // 2), dtype=object)  # not only strings: as before
    unique = np.array([str(i) for i in range(n)], dtype=object)  # few repeats: as before
    main, raws = child_job.dumps({"kinds": kinds, "again": kinds})
    assert len(main) < 2_000  # the strings once, the codes out of band
    back = pickle.loads(main, buffers=raws)
    assert back["kinds"] is back["again"]  # shared as it was
    assert back["kinds"].dtype == object and back["kinds"].shape == kinds.shape
    assert back["kinds"].tolist() == kinds.tolist()
    assert {type(v) for v in back["kinds"]} == {str}
    for array in (mixed, unique, kinds[:100]):
        main, raws = child_job.dumps(array)
        again = pickle.loads(main, buffers=raws)
        assert again.dtype == object and again.tolist() == array.tolist()


def test_arrow_backed_columns_travel_without_a_copy() -> None:
    """A released table's string columns (pandas over Arrow) go out as their own Arrow
    buffers, chunk by chunk: pandas' pickle first copied each column into one new array
    (340 MB more in the child at a million persons). They come back equal, same dtype."""
    import pickle

    import pyarrow as pa

    from deid_desktop.core.facts.text import STRING

    words = pa.chunked_array([["alpha", None, "beta"] * 1000, ["gamma", "delta"] * 1000])
    frame = pd.DataFrame(
        {
            "text": pd.Series(pd.arrays.ArrowStringArray(words), dtype=STRING),
            "sliced": pd.array(["x", "yy", None, "zzz"] * 1500, dtype=STRING)[500:5500],
            "number": pd.array(list(range(3000)) + [None] * 2000, dtype="int64[pyarrow]"),
        }
    )
    main, raws = child_job.dumps(frame)
    sent = {pa.py_buffer(r).address for r in raws}
    own = {
        b.address
        for chunk in frame["text"].array._pa_array.chunks
        for b in chunk.buffers()
        if b is not None and b.size > 1000
    }
    assert own and own <= sent  # the column's own memory, not a copy of it
    back = pickle.loads(main, buffers=raws)
    pd.testing.assert_frame_equal(back, frame)
    assert back["text"].array._pa_array.num_chunks == 2


def _huge_kb_at(address: int) -> int:
    """AnonHugePages (kB) of the mapping of this process that holds ``address``."""
    inside = False
    with open("/proc/self/smaps", encoding="ascii") as f:
        for line in f:
            head = line.split()[0]
            if "-" in head and not head.endswith(":"):
                lo, hi = (int(x, 16) for x in head.split("-"))
                inside = lo <= address < hi
            elif inside and head == "AnonHugePages:":
                return int(line.split()[1])
    return 0


@pytest.mark.skipif(not child_job.available(), reason="no fork here")
def test_large_results_come_back_in_huge_pages() -> None:
    """A result's large buffers land in memory the kernel backs with 2 MB pages when it
    can (transparent huge pages on request): every later fork of the app copies 512
    times fewer page-table entries for them (it held Python's lock, and the window,
    30-60 ms at a million persons). Aligned as Arrow's own, and the same bytes."""
    import numpy as np
    import pyarrow as pa

    n = 8 * child_job.HUGE_MIN
    sent = np.arange(n // 8, dtype=np.int64)
    before = pa.default_memory_pool()
    pa.set_memory_pool(pa.jemalloc_memory_pool())  # the app's (core sets it), in 4 KB pages
    try:
        back = child_job.run(lambda p, c: sent, lambda f, s: None, CancelToken())
    finally:
        pa.set_memory_pool(before)
    np.testing.assert_array_equal(back, sent)
    assert back.ctypes.data % 64 == 0
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled", encoding="ascii") as f:
            mode = f.read()
    except OSError:
        mode = "[never]"
    if "[never]" not in mode:
        assert _huge_kb_at(back.ctypes.data + n // 2) > 0


def test_arrays_from_codes_are_rebuilt_a_step_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rebuilding a long object array holds Python's lock for each step only (the app's
    other threads run between steps), and gives the same array."""
    import pickle

    import numpy as np

    steps: list[int] = []
    take = np.take

    def spy(values, codes, *args, **kwargs):  # type: ignore[no-untyped-def]
        steps.append(len(codes))
        return take(values, codes, *args, **kwargs)

    monkeypatch.setattr(np, "take", spy)
    n = child_job.FROM_CODES_STEP * 2 + 7
    kinds = np.array(["PERSON", "DATE", "PHONE"] * (n // 3 + 1), dtype=object)[:n]
    main, raws = child_job.dumps(kinds)
    back = pickle.loads(main, buffers=raws)
    assert back.dtype == object and back.tolist() == kinds.tolist()
    assert len(steps) == 3 and max(steps) == child_job.FROM_CODES_STEP
