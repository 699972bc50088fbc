"""A solve's log, as a MIP solver keeps one: a line when the solve starts (solver, device, plan), then
about every ``every`` seconds the time, the incumbent, the proven bound, the gap and the solver's own
work counter, a line for each kernel build it waits for, and a last line with the outcome.

Between a solve's first and last lines a clsolve thread writes the progress line wherever ``every``
seconds pass without one (a long launch, a long transfer), with the latest incumbent, bound and work
the solver reported: the rhythm holds whatever the solver is doing; a ``log`` callback may therefore
be called from that thread, one call at a time.

Nothing is logged unless a log is installed for the calling thread (``logging``, which
``clsolve.solve(..., log=callback)`` and the CLI's ``--log`` do). Solvers feed it through
``found(value, bound)`` (their incumbent and bound, as they improve) and through the progress reports
they already make (``clsolve.runtime.progress.report``: launches, levels, nodes), which it counts as
their work; the engine writes the first and the last lines and the builds (``clsolve.runtime.kernels``).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass

#: Seconds between two progress lines.
EVERY = 1.0


@dataclass(frozen=True)
class Record:
    """One line of the log. ``event``: ``start``, ``progress``, ``build`` or ``end``; ``elapsed``:
    seconds since the solve started; ``value`` and ``bound``: the incumbent and the proven upper bound
    where known; ``work``: the solver's counters (what, done); ``text``: the start and end lines' words
    (solver, device and plan; the outcome) or the build's."""

    event: str
    elapsed: float
    solver: str
    value: int | None = None
    bound: int | None = None
    work: tuple[tuple[str, int], ...] = ()
    text: str = ""

    @property
    def gap(self) -> float | None:
        """|bound - value| / max(|bound|, 1), where both are known."""
        if self.value is None or self.bound is None:
            return None
        return abs(self.bound - self.value) / max(abs(self.bound), 1)

    def __str__(self) -> str:
        head = f"{self.elapsed:8.2f} s  {self.solver:<10}"
        if self.event != "progress":
            return f"{head}  {self.event}: {self.text}"
        value = "-" if self.value is None else str(self.value)
        bound = "-" if self.bound is None else str(self.bound)
        gap = "" if self.gap is None else f"  gap {self.gap:.3%}"
        work = "".join(f"  {what} {done}" for what, done in self.work)
        return f"{head}  incumbent {value}  bound {bound}{gap}{work}"


class Log:
    """The log of one call: ``write`` hears each record."""

    def __init__(self, write: Callable[[Record], None], every: float = EVERY):
        self.write, self.every = write, every
        self.began = time.perf_counter()
        self.solver = ""
        self.value: int | None = None
        self.bound: int | None = None
        self.work: dict[str, int] = {}
        #: Profit of the items a presolve or fixing took before the solver's search: what the solver
        #: reports of its smaller problem, plus this, is the original problem's (``offset``).
        self.offset = 0
        self._last = self.began
        self._lock = threading.RLock()  # one line at a time, from the solver's thread or the heartbeat
        self.active = False  # between a solve's start and end lines

    def emit(self, event: str, text: str = "") -> None:
        with self._lock:
            now = time.perf_counter()
            self._last = now
            self.active = event != "end" and (self.active or event == "start")
            work = tuple(self.work.items())
            self.write(Record(event, now - self.began, self.solver, self.value, self.bound, work, text))

    def tick(self) -> None:
        """A progress line where ``every`` seconds have passed since the last line."""
        with self._lock:
            if self.active and time.perf_counter() - self._last >= self.every:
                self.emit("progress")

    def beat(self, stop: threading.Event) -> None:
        """The heartbeat: ``tick`` every quarter of ``every`` until ``stop`` is set."""
        while not stop.wait(max(self.every / 4, 0.01)):
            self.tick()


_current: ContextVar[Log | None] = ContextVar("clsolve_log", default=None)


@contextlib.contextmanager
def logging(write: Callable[[Record], None] | None, every: float = EVERY) -> Iterator[Log | None]:
    """Inside the block, solves log to ``write`` (None: no log; an enclosing log stays in force)."""
    if write is None:
        yield _current.get()
        return
    log = Log(write, every)
    token = _current.set(log)
    stop = threading.Event()
    heart = threading.Thread(target=log.beat, args=(stop,), name="clsolve-log", daemon=True)
    heart.start()
    try:
        yield log
    finally:
        stop.set()
        heart.join()
        _current.reset(token)


def current() -> Log | None:
    return _current.get()


def start(solver: str, text: str) -> None:
    """The solve of ``solver`` starts (``text``: device and plan)."""
    log = _current.get()
    if log is not None:
        log.solver, log.value, log.bound, log.work, log.offset = solver, None, None, {}, 0
        log.emit("start", text)


def found(value: int | None = None, bound: int | None = None) -> None:
    """The solver's incumbent ``value`` and proven upper ``bound`` now, of the problem it searches
    (either may be None: unchanged)."""
    log = _current.get()
    if log is not None:
        if value is not None:
            log.value = int(value) + log.offset
        if bound is not None:
            log.bound = int(bound) + log.offset
        log.tick()


@contextlib.contextmanager
def offset(profit: int) -> Iterator[None]:
    """Inside the block the solver searches a problem whose solutions, with items of ``profit`` taken
    beside them, are the original's: ``found`` adds it."""
    log = _current.get()
    if log is None:
        yield
        return
    log.offset += profit
    try:
        yield
    finally:
        log.offset -= profit


def worked(what: str, done: int) -> None:
    """The solver's counter ``what`` stands at ``done`` (from its progress reports)."""
    log = _current.get()
    if log is not None:
        log.work[what] = int(done)
        log.tick()


def event(kind: str, text: str) -> None:
    """A line of its own (``build``: a kernel build waited for)."""
    log = _current.get()
    if log is not None:
        log.emit(kind, text)
