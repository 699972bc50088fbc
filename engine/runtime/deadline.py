"""Time limits: a ``Deadline`` that every phase of a solve can read, and paced kernel launches.

``clsolve.solve(..., time_limit=T)`` (and ``solve_many``, for the whole batch) makes one
``Deadline`` and installs it for the call (a context variable, so threads solving at once each see
their own). Solvers read it with :func:`current`:

- an anytime solver (``bnb``) stops at its next step boundary once ``expired()`` and returns its best
  checked solution with ``optimal=False`` and a proven bound;
- a DP solver calls ``check(...)`` between launches and raises :class:`TimeLimitError`, which says how
  far it got, because a DP has no feasible answer before its last row.

The promise: a call returns (or raises) within ``time_limit + margin``, with ``margin = max(10 %
of the limit, 50 ms)``. Launches are therefore enqueued in small groups (:class:`Pacer`): the host
waits for the group before last, so the device stays busy while at most about a quarter of the
margin of work is in flight when the limit passes; a DP stops as soon as the group in flight will end
past the limit with launches still to come. A single kernel launch cannot be interrupted;
solvers whose one launch may take longer than the margin say so in their plan (``details``).
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import NoReturn

import pyopencl as cl

from .. import options
from ..errors import TimeLimitError
from . import devices, progress

#: The margin past the limit within which a call returns: max(MARGIN_SHARE x limit, MARGIN_SECONDS).
MARGIN_SHARE = 0.10
MARGIN_SECONDS = 0.05
#: Device work queued per group of launches where no deadline is set (Ctrl-C is noticed as often).
GROUP_SECONDS = 0.25
#: A solver with no answer before its end (not ``anytime``) does not start when its plan's estimate is
#: more than this many times the time left (to the limit and its margin): the estimates are models,
#: right within a factor of two on the devices measured, and what such a start would allocate and
#: launch before its first check (buffers of many GiB, a host step over billions of states) could not
#: be interrupted.
HOPELESS_FACTOR = 2.0


class Deadline:
    """A point in time (``time.perf_counter``) a solve must end by; ``seconds=None``: no limit."""

    def __init__(self, seconds: float | None = None, start: float | None = None):
        self.seconds = None if seconds is None else float(seconds)
        self.start = time.perf_counter() if start is None else start
        self.end = math.inf if self.seconds is None else self.start + self.seconds

    @property
    def limited(self) -> bool:
        return self.seconds is not None

    @property
    def margin(self) -> float:
        """How far past ``end`` a call may still return."""
        if self.seconds is None:
            return math.inf
        return max(MARGIN_SHARE * self.seconds, MARGIN_SECONDS)

    def remaining(self) -> float:
        return self.end - time.perf_counter()

    def expired(self) -> bool:
        return self.seconds is not None and time.perf_counter() >= self.end

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def allows(self, seconds: float) -> bool:
        """Whether work predicted to take ``seconds`` (and that cannot be interrupted) may still start:
        it would end before ``end`` plus a quarter of the margin (the rest covers the prediction's
        error and the work after it)."""
        return self.seconds is None or time.perf_counter() + seconds <= self.end + self.margin / 4

    def check(self, where: str) -> None:
        """Raise :class:`TimeLimitError` naming ``where`` (what was done so far) once expired."""
        if self.expired():
            self.stop(where)

    def hopeless(self, estimate: float) -> bool:
        """Whether work estimated at ``estimate`` seconds, with no answer before its end, should not
        start: the limit has passed, or the estimate is past ``HOPELESS_FACTOR`` times the time left
        to the limit and its margin."""
        if self.seconds is None:
            return False
        return self.expired() or estimate > HOPELESS_FACTOR * (self.remaining() + self.margin)

    def stop(self, where: str) -> NoReturn:
        """Raise :class:`TimeLimitError` naming ``where``: the limit is passed, or will be before the
        work still needed could end."""
        when = "reached" if self.expired() else "would pass before the work still needed ended: stopped"
        raise TimeLimitError(
            f"time limit of {self.seconds:g} s {when} after {self.elapsed():.3f} s, {where}; no answer was found in time"
        )

    def __repr__(self) -> str:
        return f"Deadline(seconds={self.seconds!r})"


_UNLIMITED = Deadline(None, start=0.0)
_current: contextvars.ContextVar[Deadline] = contextvars.ContextVar("clsolve_deadline", default=_UNLIMITED)


def current() -> Deadline:
    """The deadline of the solve running in this thread (one without a limit when none is set)."""
    return _current.get()


@contextlib.contextmanager
def limit(time_limit: float | None) -> Iterator[Deadline]:
    """Install a deadline of ``time_limit`` seconds from now for the code inside (an enclosing
    deadline that ends earlier stays in force)."""
    seconds = options.seconds("time_limit", time_limit)
    outer = _current.get()
    if seconds is None or (outer.limited and outer.end <= time.perf_counter() + seconds):
        yield outer
        return
    deadline = Deadline(seconds)
    token = _current.set(deadline)
    try:
        yield deadline
    finally:
        _current.reset(token)


class Stopwatch:
    """Seconds since it started (``time.perf_counter``): the clock solvers time their steps with."""

    __slots__ = ("began",)

    def __init__(self) -> None:
        self.began = time.perf_counter()

    @property
    def seconds(self) -> float:
        return time.perf_counter() - self.began

    def lap(self) -> float:
        """Seconds since the start or the last lap; the next lap counts from now."""
        now = time.perf_counter()
        seconds, self.began = now - self.began, now
        return seconds


def allows(seconds: float) -> bool:
    """``current().allows``: whether uninterruptible work of ``seconds`` may still start."""
    return current().allows(seconds)


def expired() -> bool:
    """``current().expired``: whether this solve's limit has passed."""
    return current().expired()


def check(where: str) -> None:
    """``current().check``: raise :class:`TimeLimitError` naming ``where`` once the limit has passed."""
    current().check(where)


def stop(where: str) -> NoReturn:
    """``current().stop``: raise :class:`TimeLimitError` naming ``where``."""
    current().stop(where)


def limited() -> bool:
    """Whether this solve has a time limit."""
    return current().limited


def seconds() -> float | None:
    """This solve's time limit in seconds (None: none)."""
    return current().seconds


def remaining() -> float:
    """Seconds left to this solve's limit (infinite without one)."""
    return current().remaining()


def grace(share: float) -> float:
    """``share`` of this solve's margin past its limit (0 without a limit): how long an uninterruptible
    step allowed to start may still run once the limit has passed."""
    limit = current()
    return share * limit.margin if limit.limited else 0.0


#: The longest sleep between two looks at a device's progress while waiting under a limit.
POLL_SECONDS = 2e-3


def finished(queue: cl.CommandQueue, event: cl.Event, grace: float = 0.0, pending: Sequence[cl.Event] = ()) -> bool:
    """Wait for ``event`` of ``queue``: True once it completes, False where the current deadline (plus
    ``grace`` seconds: work that sums up an answer after the limit) passes first. The caller then
    answers (an anytime solver) or stops (``drain``) without it: a kernel's first launch on PoCL
    compiles it for its work-group size, seconds that no build beforehand covers. The work goes on in
    the in-order queue (buffers released meanwhile live until the commands that use them end), and the
    next call waits for it before its clock starts (``devices.settle_left_work``). ``pending``: the
    events of copies into host arrays queued before ``event`` (``buffers.copy_later``), kept with the
    work left running (dropped, pyopencl's event would wait for its copy)."""
    limit = current()
    queue.flush()
    if not limit.limited:
        event.wait()
        return True
    pause = 1e-4
    while event.command_execution_status > 0:  # queued, submitted or running (an error is negative)
        left = limit.remaining() + grace
        if left <= 0:
            devices.left_work(_Left(queue, list(pending)).wait)
            return False
        time.sleep(min(pause, left))
        pause = min(2 * pause, POLL_SECONDS)
    event.wait()  # raises where the command failed
    return True


@dataclass(frozen=True, eq=False)
class _Left:
    """Work a call left in ``queue``, with the events of its copies into host arrays."""

    queue: cl.CommandQueue
    pending: list[cl.Event]

    def wait(self) -> None:
        self.queue.finish()
        self.pending.clear()


def drain(queue: cl.CommandQueue, where: str, pending: Sequence[cl.Event] = ()) -> None:
    """Wait for everything enqueued on ``queue`` (``queue.finish()`` under the current deadline): raise
    :class:`TimeLimitError` naming ``where`` once the deadline passes first, the work (and ``pending``
    copies) going on as ``finished`` says."""
    if not finished(queue, cl.enqueue_marker(queue), pending=pending):
        current().stop(where)


class Rate:
    """The predicted cost of an operation that cannot be interrupted once started (a kernel launch, a
    transfer, a sort): ``overhead + units x per_unit`` seconds. ``observe`` learns ``per_unit`` from
    measurements large enough to see past the overhead, in time and in units (a small operation held
    up by the host, a few milliseconds, says nothing of the cost per unit: taken as such, it would
    predict seconds for the next large one); a slower measurement is taken at once, a faster one only
    gradually (a prediction errs on the long side)."""

    def __init__(self, overhead: float, per_unit: float):
        self.overhead, self.per_unit = overhead, per_unit

    def predict(self, units: float) -> float:
        return self.overhead + units * self.per_unit

    def observe(self, units: float, seconds: float) -> None:
        if units > 0 and seconds > 2 * self.overhead and units * self.per_unit >= self.overhead:
            self.per_unit = max((seconds - self.overhead) / units, 0.7 * self.per_unit)

    @contextlib.contextmanager
    def timed(self, units: float) -> Iterator[Stopwatch]:
        """Observe the ``with`` block as an operation of ``units``."""
        watch = Stopwatch()
        yield watch
        self.observe(units, watch.seconds)

    def units_within(self, seconds: float) -> float:
        """How many units fit in ``seconds``."""
        return max(0.0, seconds - self.overhead) / self.per_unit


class Pacer:
    """Kernel launches enqueued in groups of about ``group_seconds`` of device work, the host waiting
    for the group before last: a deadline (and Ctrl-C) is noticed within about two groups, while the
    device always has the next group queued.

    Call ``launch()`` after each enqueued launch. Groups start at one launch (with no time limit, at
    what an estimate of a launch allows) and grow (at most doubling) while the groups measured so far
    stay under ``group_seconds``: a long launch is never queued many times over before its cost is
    known (under a limit a group grows only once one has been measured).
    At each group's end :class:`TimeLimitError` is raised with ``progress()``'s text once the deadline
    has passed (also while waiting for a group: a first launch on PoCL compiles its kernel), or as soon
    as the group in flight will end past it with launches still to come (no answer can come in time,
    and waiting for one more group would only add to the overrun). The work queued then goes on in the
    in-order queue, which stays usable, and the next call waits for it before its clock starts
    (``finished``). ``close()`` waits for whatever is still queued, under the deadline too.
    """

    def __init__(self, queue: cl.CommandQueue, what: str, total: int, launch_seconds: float | None = None):
        """``launch_seconds``: an estimate of one launch (a plan's), by which the first group holds the
        launches of a quarter of a group's time, at most a quarter of them all, so that progress still
        shows; under a time limit, and without it, the first group holds one launch (an estimate may
        be low, and a limit is kept by measured launches only)."""
        self.queue, self.what, self.total = queue, what, max(1, int(total))
        self.deadline = current()
        self.group_seconds = min(self.deadline.margin / 4, GROUP_SECONDS) if self.deadline.limited else GROUP_SECONDS
        self.group = 1
        if launch_seconds is not None and launch_seconds > 0 and not self.deadline.limited:
            self.group = max(1, min(self.total // 4, int(self.group_seconds / 4 / launch_seconds)))
        self.done = 0
        self._in_group = 0
        self._pending: tuple[cl.Event, int, float] | None = None
        self._finished_at: float | None = None  # when the last group waited for had finished

    def launch(self) -> None:
        """Count one launch just enqueued; at a group's end wait for the group before it."""
        self.done += 1
        self._in_group += 1
        if self._in_group < self.group and self.done < self.total:
            return
        marker = cl.enqueue_marker(self.queue)
        self.queue.flush()
        in_flight, self._in_group = self._in_group, 0
        previous, self._pending = self._pending, (marker, in_flight, time.perf_counter())
        if previous is not None:
            per_launch = self._wait(*previous)
            if per_launch is None:  # the deadline passed first
                self._pending = None
                self.deadline.stop(self.progress())
            self.group = max(1, min(2 * self.group, int(self.group_seconds / max(per_launch, 1e-7))))
            late = self._hopeless(time.perf_counter() + in_flight * per_launch)
        else:
            late = False
            if not self.deadline.limited:
                self.group = max(self.group, min(2 * self.group, 8))
        progress.report(self.what, self.done, self.total)
        if late or self.deadline.expired():
            devices.left_work(_Left(self.queue, []).wait)
            self._pending = None
            self.deadline.stop(self.progress())

    def _wait(self, event: cl.Event, launches: int, queued: float) -> float | None:
        """Wait for a group; return the seconds a launch of it took: the time between the ends of two
        groups where one is known (the device busy throughout), else since it was queued (an upper
        estimate: the group waited for the one before it as well); None where the deadline passed
        first."""
        try:
            if not finished(self.queue, event):
                return None
        except BaseException:  # Ctrl-C while waiting: leave the queue empty, then stop
            self.queue.finish()
            self._pending = None
            raise
        now = time.perf_counter()
        since = queued if self._finished_at is None else max(queued, self._finished_at)
        self._finished_at = now
        return (now - since) / launches

    def _hopeless(self, flight_ends: float) -> bool:
        """Whether the group just queued, predicted to end at ``flight_ends``, ends past the deadline
        with launches still to come after it: the next group's end would find the deadline passed, so
        stopping now gives the same answer one group sooner."""
        return self.deadline.limited and self.done < self.total and flight_ends >= self.deadline.end

    def progress(self) -> str:
        return f"{self.what}: {self.done} of {self.total} launches ({min(100, 100 * self.done // self.total)} %)"

    def close(self) -> None:
        """Wait for every launch queued: raise :class:`TimeLimitError` where the deadline passes first."""
        self._pending = None
        drain(self.queue, self.progress())
