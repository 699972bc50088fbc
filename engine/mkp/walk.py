"""A depth-first walk on the host for small searches: [HS74]'s order (the item taken first, back to
the deepest item taken) over the core, each node bounded by the surrogate LP bound ([GP85]) with one
set of multipliers, the fixing's Lagrangian prices. Those are the core's prices too: fixing by
reduced costs keeps every fixed item at its value in the Lagrangian solution, so the prices that
priced the whole problem price what is left.

The walk is plain Python over lists: a node costs a few microseconds and nothing is prepared but
one sort and two prefix sums, where the searches proper fit multipliers level by level and build
tables first (milliseconds, which is what most small instances cost). It gives up after a budget of
nodes (or at the time limit), and the search proper runs from scratch.
"""

from __future__ import annotations

import math
import operator
import time
from bisect import bisect_right
from dataclasses import dataclass
from itertools import accumulate

import numpy as np

from clsolve.problems import Knapsack
from clsolve.runtime import cache, deadline

from .fixing import Fixing, fix
from .greedy import ratio_order
from .surrogate import BOUND_MARGIN, EXACT_SUM, normalised

#: Nodes the solvers let the walk visit by default before they give the core to their search proper.
HOST_NODES = 4096
#: Cores with more items than this are not walked (the walk recurses once per level).
WALK_ITEMS = 256
#: Plans run the walk (``planned``) for problems of at most this many items (the fixing before it costs
#: more with n, and a core past WALK_ITEMS is not walked).
PROBE_ITEMS = 1024
#: What a solve adds to a finished walk (its notes and the solution), seconds.
ANSWER_SECONDS = 1e-4
#: Nodes between two looks at the clock.
CLOCK_NODES = 256


@dataclass
class Walked:
    """A finished walk: the best value of the core (``floor`` where nothing beat it), its items (bool
    per core item; none where nothing beat the floor), the nodes visited and the multipliers."""

    value: int
    chosen: np.ndarray
    found: bool
    nodes: int
    multipliers: np.ndarray


class _GiveUp(Exception):
    pass


@dataclass
class Probe:
    """The fixing of a problem, the walk of its core (None: not walked, or given up) and the seconds
    both took."""

    fixing: Fixing
    walked: Walked | None
    seconds: float


def probe(problem: Knapsack, budget: int) -> Probe:
    """``fix`` and ``walk`` of ``problem``, computed once per problem and budget: a plan that runs them
    (its estimate is then a measurement) leaves the answer to the solve. A walk that gave up once the
    time limit had passed is not kept."""
    found = cache.get(problem, ("mkp walk", budget))
    if found is not None:
        return found
    began = time.perf_counter()
    fixing = fix(problem)
    walked = None
    if fixing.core is not None and fixing.prices is not None:
        walked = walk(fixing.core, fixing.prices, fixing.floor, budget)
    found = Probe(fixing, walked, time.perf_counter() - began)
    if walked is None and deadline.current().expired():
        return found  # given up at the time limit, perhaps before the budget
    return cache.put(problem, ("mkp walk", budget), found)


def kept(problem: Knapsack, budget: int) -> bool:
    """Whether ``probe`` of ``problem`` and ``budget`` is already kept (a plan ran it)."""
    return cache.get(problem, ("mkp walk", budget)) is not None


def walk(core: Knapsack, prices: np.ndarray, floor: int, budget: int) -> Walked | None:
    """The core's optimum (better than ``floor``, or the proof that none is) within ``budget`` nodes,
    or None: too many items, the budget or the time limit reached."""
    if budget <= 0 or core.n > WALK_ITEMS:
        return None
    u = normalised(prices)
    order = ratio_order(core.profits, core.weights, u)
    tree = _Tree(
        core.profits[order].tolist(),
        core.weights[order].tolist(),
        (core.weights[order].astype(np.float64) @ u).tolist(),
        floor,
        budget,
    )
    try:
        tree.visit(0, 0, core.capacities.tolist(), float(core.capacities.astype(np.float64) @ u))
    except _GiveUp:
        return None
    chosen = np.zeros(core.n, dtype=bool)
    if tree.taken is not None:
        chosen[order[tree.taken]] = True
    return Walked(tree.best, chosen, tree.taken is not None, tree.nodes, u)


class _Tree:
    """The walk's state: items in branching order, prefix sums of profits and surrogate weights, the
    incumbent and the items on the current path."""

    def __init__(self, p: list[int], w: list[list[int]], s: list[float], floor: int, budget: int):
        self.p, self.w, self.s, self.n = p, w, s, len(p)
        self.profit_sums = [0.0, *accumulate(float(x) for x in p)]
        self.weight_sums = [0.0, *accumulate(s)]
        self.best = floor
        self.taken: list[int] | None = None
        self.path: list[int] = []
        self.nodes, self.budget, self.limit = 0, budget, deadline.current()

    def bound(self, k: int, profit: int, room: float) -> int:
        """profit + the surrogate LP bound of items k.. in the surrogate room ``room`` (u . the
        residual capacities), rounded up with a margin."""
        sums = self.weight_sums
        target = sums[k] + room
        last = bisect_right(sums, target, k, self.n + 1) - 1  # items k .. last-1 fit whole
        total = profit + self.profit_sums[last] - self.profit_sums[k]
        if last == self.n or self.p[last] == 0:  # no item in part: a sum of integers (Suffix.bounds)
            if total < EXACT_SUM:
                return int(total)
        elif self.s[last] > 0:
            total += min(1.0, (target - sums[last]) / self.s[last]) * self.p[last]
        return math.floor(total * (1 + BOUND_MARGIN) + 1.0)

    def visit(self, k: int, profit: int, room: list[int], surrogate: float) -> None:
        """The node at level k with ``profit`` and residual capacities ``room`` (``surrogate``: their
        surrogate weight, kept along the path: one subtraction per item taken, far inside the bound's
        margin)."""
        self.nodes += 1
        if self.nodes > self.budget or (self.nodes % CLOCK_NODES == 0 and self.limit.expired()):
            raise _GiveUp
        if profit > self.best:
            self.best, self.taken = profit, list(self.path)
        if k == self.n or self.bound(k, profit, surrogate) <= self.best:
            return
        left = list(map(operator.sub, room, self.w[k]))
        if min(left) >= 0:
            self.path.append(k)
            self.visit(k + 1, profit + self.p[k], left, surrogate - self.s[k])
            self.path.pop()
        self.visit(k + 1, profit, room, surrogate)


def planned(problem: Knapsack, budget: int) -> tuple[float, dict] | None:
    """(seconds, details) of a solve the walk settles, for a plan: the walk is run (``probe``, kept for
    the solve) where the problem has at most PROBE_ITEMS items; None where it does not settle it. The
    seconds are what the solve adds to the walk the plan already made (ANSWER_SECONDS: ``auto`` compares
    the time left once every solver is planned); the walk's own time is in the details."""
    if budget <= 0 or problem.n > PROBE_ITEMS:
        return None
    found = probe(problem, budget)
    if found.walked is None:
        return None
    return ANSWER_SECONDS, {
        "nodes": found.walked.nodes,
        "seconds": found.seconds,
        "free_items": int(found.walked.chosen.size),
    }
