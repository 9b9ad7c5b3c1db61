"""Benchmark: how long the UI thread stalls, and how much memory the app holds, while a
user works through a 1M-person extract in the real window.

The bench drives the app's own ``MainWindow`` as a user does: it opens the project
(the load page reads the extract in the worker and shows its preview and report), goes
to the tag page and the pathway page, then the Review page (the review runs: release
built in memory, verified, risk measured, every free-text note scanned), opens each of
its tabs (checks, residual risk, free text, the intruder tab, whose attack starts when
it is shown), opens the generalization search panel, and finally the Export page.

A QTimer fires every 10 ms on the UI thread and records how late it runs; the longest
lateness is the longest stall a user feels (frozen window, no repaint). ``--burn N``
runs N busy-loop processes beside the app for the whole run (default 2, the cores of
this machine), as on a loaded machine. The process's peak RSS is read from the kernel
(VmHWM), reset at each step, so each step has its own peak. Target: longest stall
under 50 ms, peak under 1.8 GB.

    QT_QPA_PLATFORM=offscreen .venv/bin/python bench/bench_ui_stall.py [PERSONS]
        [--cache DIR] [--burn N] [--where MS] [--repeat R] [--export]

``--where MS`` says what held the UI thread: a watchdog thread samples the UI thread's
Python stack (and the other threads') whenever no tick has run for MS; the report lists
the longest stalls with those frames. ``--repeat R`` runs the whole bench R times, each
in a fresh process, and prints the medians (per step too). ``--export`` also presses
Export. ``--callbacks`` times each event the loop delivers in the UI thread's own CPU
time and lists the ten longest: what one turn of the loop cost, whatever the machine's
load (a stall is that, plus the wait for a CPU on a busy machine). The review and the
intruder test run in a child process at this size (``gui.child_job``): its peak is
printed beside the app's ("child peak"); the app's memory is the app's peak plus the
child's, minus the pages they share.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from _common import cached_demo, child_json

PROBE_MS = 10
TARGET_MS = 50.0
TARGET_MB = 1800.0
WAIT_S = 900.0


# -- memory -------------------------------------------------------------------------------
def _status_kb(field: str) -> int:
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def peak_mb() -> float:
    """The process's peak resident set since the last ``reset_peak`` (VmHWM), in MB."""
    return _status_kb("VmHWM") / 1024


def rss_mb() -> float:
    return _status_kb("VmRSS") / 1024


def reset_peak() -> bool:
    """Start a new peak (writing 5 to clear_refs resets VmHWM; Linux >= 4.0)."""
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as f:
            f.write("5")
        return True
    except OSError:
        return False


def sched_ms() -> tuple[float, float]:
    """The calling thread's time on a CPU and its time queued for one (runnable, not
    running: the machine is busy), in ms, from the kernel's schedstat; the rest of a
    stall it was blocked (waiting for the GIL or a lock)."""
    try:
        with open("/proc/thread-self/schedstat", encoding="ascii") as f:
            ran, queued = f.read().split()[:2]
        return int(ran) / 1e6, int(queued) / 1e6
    except (OSError, ValueError):
        return time.thread_time() * 1000, 0.0


# -- the probe ----------------------------------------------------------------------------
def frames_of(frame: Any, depth: int) -> str:
    names: list[str] = []
    f = frame
    frozen = 0
    while f is not None and len(names) < depth:
        code = f.f_code
        if code.co_filename.startswith("<frozen"):  # an import: name who imports
            frozen += 1
        else:
            if frozen:
                names.append(f"(import, {frozen} frames)")
                frozen = 0
            names.append(f"{Path(code.co_filename).name}:{f.f_lineno} {code.co_name}")
        f = f.f_back
    return " < ".join(names)


class Probe:
    """A 10 ms timer on the UI thread; each tick records how late it ran, under the name
    of the step the bench is in. With ``where_ms``, a watchdog thread samples the stacks
    while the UI thread has not ticked for that long."""

    def __init__(self, where_ms: float | None) -> None:
        from PySide6.QtCore import QTimer

        self.timer = QTimer()
        self.timer.setInterval(PROBE_MS)
        self.timer.timeout.connect(self._tick)
        self.step = "start"
        self.late: dict[str, list[float]] = {}
        #: (ms, step, when it began, ms the UI thread ran in it, ms it queued for a CPU)
        self.stalls: list[tuple[float, str, float, float, float]] = []
        self._cpu, self._queued = sched_ms()
        self._last = time.perf_counter()
        self.where_ms = where_ms
        self.samples: list[tuple[float, str, str]] = []  # (time, UI frames, other frames)
        self._ui = threading.get_ident()
        self._stop = threading.Event()
        self._watch: threading.Thread | None = None

    def _gc(self, phase: str, info: dict[str, int]) -> None:
        """(gc.callbacks) Times each cyclic collection: one walks every tracked object
        with the GIL held, in whichever thread allocated."""
        now = time.perf_counter()
        if phase == "start":
            self._gc_began = now
        elif self._gc_began is not None:
            ms = (now - self._gc_began) * 1000
            if ms >= 10:
                name = threading.current_thread().name
                self.collections.append((ms, self.step, info["generation"], name))
            self._gc_began = None

    def start(self) -> None:
        import gc

        self._gc_began: float | None = None
        self.collections: list[tuple[float, str, int, str]] = []
        gc.callbacks.append(self._gc)
        self._last = time.perf_counter()
        self._cpu, self._queued = sched_ms()
        self.timer.start()
        if self.where_ms is not None:
            self._watch = threading.Thread(target=self._watchdog, name="probe", daemon=True)
            self._watch.start()

    def stop(self) -> None:
        import gc

        gc.callbacks.remove(self._gc)
        self.timer.stop()
        self._stop.set()
        if self._watch is not None:
            self._watch.join()

    def _tick(self) -> None:
        now = time.perf_counter()
        late = max(0.0, (now - self._last) * 1000 - PROBE_MS)
        self.late.setdefault(self.step, []).append(late)
        cpu, queued = sched_ms()  # ran (its own work), queued for a CPU, or blocked (GIL)
        if late >= TARGET_MS:
            self.stalls.append(
                (late, self.step, self._last, cpu - self._cpu, queued - self._queued)
            )
        self._last = now
        self._cpu, self._queued = cpu, queued

    def _watchdog(self) -> None:
        assert self.where_ms is not None
        limit = self.where_ms / 1000
        while not self._stop.wait(0.004):
            now = time.perf_counter()
            if now - self._last < limit + PROBE_MS / 1000:
                continue
            frames = sys._current_frames()
            ui = frames.get(self._ui)
            others = [
                frames_of(f, 6)
                for ident, f in frames.items()
                if ident not in (self._ui, threading.get_ident())
            ]
            ui_text = frames_of(ui, 9) if ui is not None else "?"
            self.samples.append((now, ui_text, " | ".join(o for o in others if o)))

    def held(self, began: float, ms: float) -> tuple[str, str]:
        """The commonest UI-thread and other-thread stacks sampled during a stall."""
        end = began + (ms + PROBE_MS) / 1000
        inside = [s for s in self.samples if began <= s[0] <= end]
        if not inside:
            return "", ""
        ui = Counter(s[1] for s in inside).most_common(1)[0][0]
        other = Counter(s[2] for s in inside).most_common(1)[0][0]
        return ui, other


def timed_app_class(probe: list[Probe]) -> Any:
    """A QApplication that times, in UI-thread CPU, each event it delivers from the event
    loop (a paint, a layout, a queued call, a job's result): the work one turn of the
    loop did, whatever the machine's load. Nested events count in their outer one."""
    from PySide6.QtWidgets import QApplication

    class TimedApp(QApplication):
        callbacks: ClassVar[list[tuple[float, str, str, str]]] = []  # (ms, step, event, to)
        _depth = 0

        def notify(self, receiver: Any, event: Any) -> bool:
            if TimedApp._depth or threading.current_thread() is not threading.main_thread():
                return super().notify(receiver, event)
            began = time.thread_time()
            TimedApp._depth += 1
            try:
                return super().notify(receiver, event)
            finally:
                TimedApp._depth -= 1
                ms = (time.thread_time() - began) * 1000
                if ms >= 5:
                    step = probe[0].step if probe else "start"
                    name = type(receiver).__name__
                    TimedApp.callbacks.append((ms, step, event.type().name, name))

    return TimedApp


def wait_until(app: Any, done: Callable[[], bool], seconds: float = WAIT_S) -> None:
    """Run the event loop until ``done()`` (polled every 20 ms), as a user waits."""
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    deadline = time.perf_counter() + seconds
    poll = QTimer()
    poll.setInterval(20)

    def check() -> None:
        if done() or time.perf_counter() > deadline:
            loop.quit()

    poll.timeout.connect(check)
    poll.start()
    loop.exec()
    poll.stop()
    if not done():
        raise SystemExit(f"timed out after {seconds:.0f} s")


def settle(app: Any, ms: int = 600) -> None:
    """Let deferred work (single-shot timers, repaints) run."""
    end = time.perf_counter() + ms / 1000
    wait_until(app, lambda: time.perf_counter() >= end)


# -- one run ------------------------------------------------------------------------------
def run_once(
    project_path: Path, where: float | None, export: bool, callbacks: bool = False
) -> dict[str, Any]:
    from deid_desktop.core.steps import Step
    from deid_desktop.gui.app import make_app

    try:
        from deid_desktop.gui import child_job
    except ImportError:  # a build from before the child process (to compare)
        child_job = None  # type: ignore[assignment]

    probes: list[Probe] = []
    if callbacks:  # make_app builds this subclass: each delivered event is timed
        import deid_desktop.gui.app as app_module

        app_module.QApplication = timed_app_class(probes)  # type: ignore[misc]
    app = make_app([sys.argv[0]])
    from PySide6.QtCore import QSettings

    from deid_desktop.gui.main_window import MainWindow

    settings_file = Path(tempfile.mkdtemp(prefix="deid-bench-ui-")) / "settings.ini"
    window = MainWindow(QSettings(str(settings_file), QSettings.Format.IniFormat))
    window.resize(1280, 820)
    window.show()
    probe = Probe(where)
    probes.append(probe)
    steps: list[dict[str, Any]] = []
    can_reset = reset_peak()
    probe.start()

    def step(name: str, action: Callable[[], None], done: Callable[[], bool]) -> None:
        reset_peak()
        if child_job is not None:
            child_job.last_child_peak_mb = None
        probe.step = name
        t0 = time.perf_counter()
        action()
        wait_until(app, lambda: done() and not window.runner.busy)
        settle(app)
        seconds = time.perf_counter() - t0
        late = probe.late.get(name, [0.0])
        steps.append(
            {
                "step": name,
                "seconds": round(seconds, 2),
                "stall_ms": round(max(late), 1),
                "p99_ms": round(sorted(late)[int(len(late) * 0.99)], 1),
                "peak_mb": round(peak_mb(), 0),
                "rss_after_mb": round(rss_mb(), 0),
                "child_peak_mb": round((child_job and child_job.last_child_peak_mb) or 0.0, 0),
            }
        )
        s = steps[-1]
        child = f"  child peak {s['child_peak_mb']:6,.0f} MB" if s["child_peak_mb"] else ""
        print(
            f"  {name:<16} {seconds:6.1f} s  longest stall {s['stall_ms']:6.0f} ms  "
            f"p99 {s['p99_ms']:4.0f} ms  peak {s['peak_mb']:6,.0f} MB  "
            f"after {s['rss_after_mb']:6,.0f} MB{child}",
            flush=True,
        )

    s = window.session
    review = window.review_page
    step(
        "load", lambda: window.open_project(project_path, asked=True), lambda: s.extract is not None
    )
    step("tag", lambda: window.go_to(Step.TAG), lambda: True)
    step("pathway", lambda: window.go_to(Step.PATHWAY), lambda: True)
    step(
        "review",
        lambda: window.go_to(Step.REVIEW),
        lambda: s.review is not None or bool(review.banner.message),
    )
    if s.review is None:
        raise SystemExit(f"the review failed: {review.banner.message}")
    cross = s.review.cross_release  # earlier releases in the register: more work, memory
    earlier = 0 if cross is None else cross.checked
    print(f"  (the review combined {earlier} earlier release(s) of this extract)", flush=True)
    for i in range(review.tabs.count()):
        name = review.tabs.tabText(i).lower()
        intruder = review.tabs.widget(i) is review.intruder
        step(
            "tab " + ("intruder" if intruder else name.split()[0]),
            lambda i=i: review.tabs.setCurrentIndex(i),
            (lambda: s.review is not None and s.review.intruder is not None)
            if intruder
            else (lambda: True),
        )
    risk_tab = next(
        i for i in range(review.tabs.count()) if "risk" in review.tabs.tabText(i).lower()
    )

    def open_generalize() -> None:
        review.tabs.setCurrentIndex(risk_tab)
        review.generalize.find()

    step("generalize", open_generalize, lambda: True)
    step("export page", lambda: window.go_to(Step.EXPORT), lambda: True)
    if export:
        out = Path(tempfile.mkdtemp(prefix="deid-bench-ui-out-"))
        page = window.export_page
        page.release_dir.set_path(out / "release")
        page.crosswalk_dir.set_path(out / "crosswalk")
        step("export", page.export_button.click, lambda: s.export_record is not None)
    probe.stop()

    every = [x for lates in probe.late.values() for x in lates]
    every.sort()
    worst = max(probe.stalls, default=(every[-1] if every else 0.0, "", 0.0, 0.0, 0.0))
    result = {
        "stall_ms": round(every[-1], 1) if every else 0.0,
        "p99_ms": round(every[int(len(every) * 0.99)], 1) if every else 0.0,
        "peak_mb": max(st["peak_mb"] for st in steps),
        "child_peak_mb": max(st["child_peak_mb"] for st in steps),
        "peak_exact": can_reset,
        "earlier_releases": earlier,
        "worst_step": worst[1],
        # every stall over the target, and those in which the UI thread itself hardly ran
        # (woken late: waiting for a CPU or Python's lock, not its own work)
        "stall_count": len(probe.stalls),
        "idle_stall_count": sum(1 for st in probe.stalls if st[3] < 5),
        "steps": steps,
        "stalls": [],
        # the ten longest turns of the UI thread in its own CPU time (--callbacks)
        "callbacks": [
            {"cpu_ms": round(ms, 1), "step": st, "event": ev, "receiver": who}
            for ms, st, ev, who in sorted(getattr(app, "callbacks", []), reverse=True)[:10]
        ],
        "collections": [
            {"ms": round(ms), "step": st, "generation": g, "thread": t}
            for ms, st, g, t in sorted(probe.collections, reverse=True)[:5]
        ],
    }
    # the ten longest, and the longest of each step (a step's own work shows there even
    # when a busy machine makes the review's waits the longest)
    ranked = sorted(probe.stalls, reverse=True)
    listed = ranked[:10] + [
        s
        for i, s in enumerate(ranked)
        if s not in ranked[:10] and s[1] not in {x[1] for x in ranked[:i]}
    ]
    for ms, name, began, cpu, queued in listed:
        ui, other = probe.held(began, ms) if where is not None else ("", "")
        result["stalls"].append(
            {
                "ms": round(ms),
                "step": name,
                "ran_ms": round(cpu),
                "queued_ms": round(queued),
                "ui": ui,
                "other": other,
            }
        )
    window.session.close()
    return result


def print_result(r: dict[str, Any]) -> None:
    verdict = "meets" if r["stall_ms"] < TARGET_MS else "MISSES"
    mem = "meets" if r["peak_mb"] <= TARGET_MB else "MISSES"
    print(
        f"longest UI stall {r['stall_ms']:,.0f} ms ({verdict} the {TARGET_MS:.0f} ms target, "
        f"in step {r['worst_step']}), p99 {r['p99_ms']:.0f} ms; peak RSS {r['peak_mb']:,.0f} MB "
        f"({mem} the {TARGET_MB:,.0f} MB target)"
    )
    if "stall_count" in r:
        print(
            f"{r['stall_count']} stall(s) >= {TARGET_MS:.0f} ms, {r['idle_stall_count']} of them "
            "with the UI thread running < 5 ms (woken late, not its own work)"
        )
    if r.get("child_peak_mb"):
        print(
            f"the heavy jobs ran in a child process (gui.child_job), whose own peak was "
            f"{r['child_peak_mb']:,.0f} MB (it shares the app's pages copy-on-write)"
        )
    if r["stalls"]:
        print(f"stalls >= {TARGET_MS:.0f} ms, longest first:")
    for st in r["stalls"]:
        print(f"  {st['ms']:6,} ms in {st['step']}: {held_by(st)}")
        if st["ui"]:
            print(f"      UI thread: {st['ui']}")
        if st["other"]:
            print(f"      others:    {st['other']}")
    if r.get("callbacks"):
        print("longest turns of the UI thread, its own CPU time (--callbacks):")
    for c in r.get("callbacks", []):
        print(f"  {c['cpu_ms']:6.1f} ms in {c['step']}: {c['event']} to {c['receiver']}")
    for c in r.get("collections", []):
        print(
            f"  garbage collection {c['ms']:,} ms (generation {c['generation']}) "
            f"in {c['step']}, thread {c['thread']}"
        )


def held_by(st: dict[str, Any]) -> str:
    """What the UI thread did during a stall: ran its own work, queued for a CPU (a busy
    machine), or was blocked (Python's lock held by another thread, or another lock)."""
    blocked = max(0, st["ms"] + PROBE_MS - st["ran_ms"] - st["queued_ms"])
    return (
        f"the UI thread ran {st['ran_ms']:,} ms, queued for a CPU {st['queued_ms']:,} ms, "
        f"was blocked {blocked:,} ms"
    )


def start_burners(n: int) -> list[subprocess.Popen[bytes]]:
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]


def stop_burners(burners: list[subprocess.Popen[bytes]]) -> None:
    for p in burners:
        p.kill()
        p.wait()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("persons", nargs="?", type=int, default=1_000_000)
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "deid-bench")
    parser.add_argument("--burn", type=int, default=2, metavar="N", help="busy-loop processes")
    parser.add_argument(
        "--where", type=float, metavar="MS", help="sample the stacks of stalls of MS or more"
    )
    parser.add_argument("--repeat", type=int, default=1, metavar="R", help="fresh runs, medians")
    parser.add_argument("--export", action="store_true", help="also press Export")
    parser.add_argument(
        "--callbacks", action="store_true", help="time each turn of the UI thread in CPU"
    )
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    project_path = cached_demo(args.cache, args.persons)

    if args.repeat > 1:
        runs: list[dict[str, Any]] = []
        for i in range(args.repeat):
            argv = [Path(__file__), str(args.persons), "--cache", str(args.cache), "--json"]
            argv += ["--burn", str(args.burn)] + (["--callbacks"] if args.callbacks else [])
            if args.where is not None:
                argv += ["--where", str(args.where)]
            if args.export:
                argv.append("--export")
            r = child_json(*argv)
            runs.append(r)
            print(
                f"run {i + 1}: stall {r['stall_ms']:,.0f} ms (step {r['worst_step']}), "
                f"p99 {r['p99_ms']:.0f} ms, peak {r['peak_mb']:,.0f} MB, "
                f"load {r['load_before']:.2f} -> {r['load_after']:.2f}, "
                f"{r.get('stall_count', '?')} stalls >= {TARGET_MS:.0f} ms "
                f"({r.get('idle_stall_count', '?')} woken late)",
                flush=True,
            )
            for st in r["stalls"][:3]:
                print(f"    {st['ms']:,} ms in {st['step']}: {held_by(st)}")
                if st["ui"]:
                    print(f"        UI thread: {st['ui']}")
                if st["other"]:
                    print(f"        others:    {st['other']}")
        print(
            f"median of {len(runs)} at {args.persons:,} persons with {args.burn} burner(s): "
            f"longest stall {statistics.median(r['stall_ms'] for r in runs):,.0f} ms, "
            f"p99 {statistics.median(r['p99_ms'] for r in runs):.0f} ms, "
            f"peak RSS {statistics.median(r['peak_mb'] for r in runs):,.0f} MB, "
            f"child peak {statistics.median(r.get('child_peak_mb', 0) for r in runs):,.0f} MB"
        )
        steps = [st["step"] for st in runs[0]["steps"]]
        for name in steps:
            of = [next(st for st in r["steps"] if st["step"] == name) for r in runs]
            print(
                f"  {name:<16} stall {statistics.median(st['stall_ms'] for st in of):6,.0f} ms  "
                f"p99 {statistics.median(st['p99_ms'] for st in of):4.0f} ms  "
                f"peak {statistics.median(st['peak_mb'] for st in of):6,.0f} MB  "
                f"child {statistics.median(st['child_peak_mb'] for st in of):6,.0f} MB"
            )
        loads = [r["load_before"] for r in runs] + [r["load_after"] for r in runs]
        print(f"  load average {min(loads):.2f} to {max(loads):.2f}")
        return 0

    load_before = os.getloadavg()[0]
    burners = start_burners(args.burn)
    try:
        print(
            f"{args.persons:,} persons, {args.burn} burner(s), load {load_before:.2f}", flush=True
        )
        result = run_once(project_path, args.where, args.export, args.callbacks)
    finally:
        load_after = os.getloadavg()[0]
        stop_burners(burners)
    result.update(load_before=load_before, load_after=load_after, burners=args.burn)
    print(f"load average {load_before:.2f} -> {load_after:.2f}")
    print_result(result)
    if args.json:
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
