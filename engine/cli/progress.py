"""A progress bar on stderr for the command line, fed by ``clsolve.runtime.progress`` reports.

Nothing shows for work that ends within ``DELAY`` seconds. After that one line is redrawn in place
at most ``REDRAW`` times a second: for each kind of work reported (problems of a batch, a solver's
launches), how many of how many, the rate and the time left. Shown by default when stderr is a
terminal; ``--progress`` forces it (a line per redraw when stderr is a file or a pipe), ``--quiet``
silences it.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Iterator
from typing import TextIO

from ..runtime import progress

#: Seconds of work before the bar first shows, and the shortest time between two redraws.
DELAY = 2.0
REDRAW = 0.25
WIDTH = 24


class Bar:
    """Listens to progress reports (``clsolve.runtime.progress.listening(bar.report)``)."""

    def __init__(self, stream: TextIO | None = None, in_place: bool | None = None):
        self.stream = stream if stream is not None else sys.stderr
        self.in_place = self.stream.isatty() if in_place is None else in_place
        self.start = time.perf_counter()
        self.shown = 0.0
        self.drawn = False
        self.work: dict[str, tuple[int, int | None, float, float]] = {}  # what -> done, total, first seen, last

    def report(self, what: str, done: int, total: int | None) -> None:
        now = time.perf_counter()
        first = self.work[what][2] if what in self.work and done >= self.work[what][0] else now
        self.work[what] = (done, total, first, now)
        if now - self.start < DELAY or now - self.shown < REDRAW:
            return
        self.shown = now
        self._draw(self.line(now))

    def line(self, now: float) -> str:
        """The bar's text: the batch's problems first, then the work reported last."""
        kinds = sorted(self.work, key=lambda w: (w != "problems", -self.work[w][3]))[:2]
        return "  |  ".join(self._part(what, now) for what in kinds)

    def _part(self, what: str, now: float) -> str:
        done, total, first, _ = self.work[what]
        rate = done / max(now - first, 1e-9)
        if not total:
            return f"{what}: {done} ({rate:.3g}/s)"
        share = min(done / total, 1.0)
        filled = int(WIDTH * share)
        left = (total - done) / rate if rate > 0 else float("inf")
        eta = f", {_clock(left)} left" if left != float("inf") else ""
        return f"{what} [{'#' * filled}{'.' * (WIDTH - filled)}] {done}/{total} {share:.0%} ({rate:.3g}/s{eta})"

    def _draw(self, text: str) -> None:
        if self.in_place:
            self.stream.write("\r\033[K" + text)
        else:
            self.stream.write(text + "\n")
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        """Clear the line (a terminal) so that what follows starts clean."""
        if self.drawn and self.in_place:
            self.stream.write("\r\033[K")
            self.stream.flush()


def _clock(seconds: float) -> str:
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


@contextlib.contextmanager
def showing(quiet: bool = False, forced: bool = False) -> Iterator[None]:
    """A bar on stderr for the work inside the block: on a terminal unless ``quiet``; elsewhere when
    ``forced`` (``--progress``)."""
    bar = Bar() if not quiet and (forced or sys.stderr.isatty()) else None
    try:
        with progress.listening(bar.report if bar is not None else None):
            yield
    finally:
        if bar is not None:
            bar.close()
