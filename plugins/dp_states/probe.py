"""The first levels of a search, run on the host by ``plan`` to estimate the rest for ``auto``.

A state-list search costs what its lists grow to, which no formula over n and C predicts: random
multi-class instances keep a handful of states for hundreds of levels, Jooken et al.'s pass a million
in fifty. The probe runs the search's own host levels (values only, no records) for at most
PROBE_LEVELS levels or PROBE_SECONDS, while the list stays within ``host_states``, and says what it saw:
whether the search ended there, the levels left, the host's time per level and the longest list.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from clsolve.sdk import Knapsack, cache, deadline

from .core import Core
from .host import HostLists
from .records import BLOCK, bit

#: Levels and seconds a probe may take at most.
PROBE_LEVELS = 32
PROBE_SECONDS = 0.004
#: A list that ends the probe no longer than this, and no longer than it was a quarter of the probe
#: before, is short: the rest is estimated from the probe's own time per level.
SHORT_LIST = 256


@dataclass(frozen=True)
class Probe:
    levels: int  # levels run
    remaining: int  # levels the core still holds
    seconds: float  # time the probe's levels took
    longest: int  # longest list met
    last: int  # the list at the probe's end
    earlier: int  # the list a quarter of the probe before its end
    finished: bool  # the search ended within the probe (the list emptied or the core was covered)

    @property
    def short(self) -> bool:
        """The list ends the probe short and not growing: the remaining levels cost about what the
        probe's did."""
        return self.finished or (self.last <= SHORT_LIST and self.last <= self.earlier)

    def estimate(self) -> float:
        """Seconds of the whole search with lists as short as the probe's: twice the per-level time
        measured, for the records and the growth the probe did not see; where the probe finished, the
        solve repeats its levels with records, about its own time."""
        if self.finished:
            return self.seconds
        per_level = self.seconds / max(self.levels, 1)
        return 2 * (self.seconds + self.remaining * per_level)


def probe(problem: Knapsack, floor: int, host_states: int) -> Probe:
    """The probe of ``problem`` (a searched core) with incumbent at least ``floor`` (once per problem)."""
    return cache.per_problem(problem, ("dp-states probe", floor, host_states), lambda: _probe(problem, floor, host_states))


def _probe(problem: Knapsack, floor: int, host_states: int) -> Probe:
    watch = deadline.Stopwatch()
    core = Core.of(problem)
    best = max(core.greedy()[0], floor)
    W, P = core.start()
    lists = HostLists(np.array([W]), np.array([P]), np.zeros(1, np.uint64), np.zeros(1, np.uint32))
    sizes = [1]
    while lists.count and not core.done() and lists.count <= host_states:
        if len(core.levels) >= PROBE_LEVELS or watch.seconds > PROBE_SECONDS:
            break
        level = core.advance()
        number = len(core.levels)
        result = lists.level(core, level, best, reset=(number - 1) % BLOCK == 0, bit=bit(number))
        best = max(best, result.best)
        sizes.append(result.count)
    finished = not lists.count or core.done()
    levels = len(core.levels)
    return Probe(levels, core.n - levels, watch.seconds, max(sizes), sizes[-1], sizes[-1 - levels // 4], finished)
