"""The multiple-choice knapsack by state lists on the host ([Pisinger95] Sections 3 and 5): the
classes decided least certain first, undominated states only, each pruned by the Lagrangian bound
against an incumbent that completes every new state with the classes' best items (and starts from
the Lagrangian rounding improved by swaps within classes, ``swaps.py``). Its work grows with
the states the bound cannot cut, not with the capacity: it takes the capacities the dense DP
(``choice-dp``) cannot hold. It answers under any time limit: the incumbent, and as bound the
largest bound of a state still alive."""

from __future__ import annotations

import numpy as np

from clsolve.sdk import HostSolver, MultipleChoice, Plan, Solution, Timings, deadline, kept, lightest, memory, options

from .excess import excess_bound
from .lagrange import lagrange
from .states import Incumbent, Level, bounds, hopeful, merged
from .swaps import exchange, improve

#: Profits an answer can earn below this (the bound's arithmetic is in float64 beside int64 sums).
PROFIT_LIMIT = 2**62
#: Host bytes per state kept (weight, profit, parent, item).
STATE_BYTES = 32
#: Host bytes per candidate state of a merge (its four arrays, the sort's order and keys, the masks).
CANDIDATE_BYTES = 96
#: Seconds per candidate and log2(candidates) of a merge (a sort), until one of MEASURED_CANDIDATES
#: or more has been timed; a merge is started under a limit only where twice its estimate fits.
MERGE_SECONDS = 2e-8
MEASURED_CANDIDATES = 100_000


class ChoiceStatesSolver(HostSolver):
    name = "choice-states"
    summary = "multiple-choice knapsack: state lists pruned by the Lagrangian bound, on the host (anytime)"
    problem_kinds = ("multiple-choice",)
    anytime = True

    def __init__(self, max_states: int | None = None):
        """``max_states``: the most states kept over all classes (default: what the host budget holds);
        past it the search stops with its incumbent and bound."""
        self.max_states = options.integer("max_states", max_states, minimum=1, none=True)

    def accepts(self, problem) -> str | None:
        if not isinstance(problem, MultipleChoice):
            return f"{self.name} solves multiple-choice knapsacks"
        if problem.total_profit >= PROFIT_LIMIT:
            return f"an answer could earn {problem.total_profit}, at or above 2^62"
        return None

    def plan(self, problem: MultipleChoice, device=None) -> Plan:
        return Plan(
            solver=self.name,
            host_buffers={"items": 24 * (problem.n + problem.k)},
            cell_updates=problem.n,
            seconds=2e-6 * problem.n + 3e-5 * problem.k + 1e-4,
            details={"note": "a search: its states are known only once walked"},
        )

    def solve(self, problem: MultipleChoice, device, plan: Plan) -> Solution:
        watch = deadline.Stopwatch()
        if not problem.at_most_one and lightest(problem) > problem.capacity:
            note = f"the lightest item of every class together weighs {lightest(problem)} > {problem.capacity}"
            timings = Timings(host=watch.seconds)
            return Solution(0, np.zeros(problem.n, bool), True, self.name, "", timings, [note], feasible=False)
        search = Search(problem)
        stopped = search.run(self.max_states or max(1, memory.host_budget() // STATE_BYTES), watch)
        selected = search.chosen()
        value = int(problem.profits[selected].sum())
        notes = _notes(search.levels, search.order.size)
        timings = Timings(host=watch.seconds)
        stats = _stats(search.levels)
        if stopped is None:
            return Solution(value, selected, True, self.name, "", timings, notes, stats=stats)
        notes.insert(0, f"stopped at {stopped} after {len(search.levels)} of {search.order.size} classes")
        return Solution(value, selected, False, self.name, "", timings, notes, bound=search.bound(value), stats=stats)


class Search:
    """One problem's state lists: its classes' kept items end to end (``flat``: global indices, -1 for
    skipping a class), the Lagrangian multiplier and class order, the completion of states by the best
    items of the classes left (``fill_w``, ``fill_p``), the incumbent and the levels decided so far."""

    def __init__(self, problem: MultipleChoice):
        self.problem, self.capacity = problem, problem.capacity
        self.flat, self.starts = _flat(problem)
        real = self.flat >= 0
        self.weights = np.where(real, problem.weights[np.maximum(self.flat, 0)], 0)
        self.profits = np.where(real, problem.profits[np.maximum(self.flat, 0)], 0)
        self.lag = lagrange(self.profits, self.weights, self.starts, self.capacity)
        self.order = np.argsort(self.lag.gap, kind="stable")
        self.rest = np.append(np.cumsum(self.lag.best[self.order][::-1])[::-1], 0.0)  # rest[t]: classes t.. undecided
        best, rounded = self.lag.argbest[self.order], self.lag.rounded[self.order]
        # the incumbent to start from: every class at its best item, or the LP's rounding where better
        self.best_items = rounded if self.profits[rounded].sum() > self.profits[best].sum() else best
        self.fill_w = np.append(np.cumsum(self.weights[self.best_items][::-1])[::-1], 0)
        self.fill_p = np.append(np.cumsum(self.profits[self.best_items][::-1])[::-1], 0)
        self.incumbent = Incumbent(int(self.fill_p[0]), -1, 0)
        lp = self.lag.multiplier * self.capacity + float(self.lag.best.sum())
        self.upper = int(np.floor(lp * (1 + 1e-9) + 1e-9))
        excess = excess_bound(self.profits, self.weights, self.starts, self.capacity)
        self.upper = self.upper if excess is None else min(self.upper, excess)
        by_class = np.empty(self.order.size, dtype=np.int64)
        by_class[self.order] = self.best_items
        swapped = self._swapped(by_class)
        if int(self.profits[swapped].sum()) > self.incumbent.value:
            self.incumbent = Incumbent(int(self.profits[swapped].sum()), -2, 0, items=swapped)
        self.levels: list[Level] = []
        self.state = Level(np.zeros(1, np.int64), np.zeros(1, np.int64), np.full(1, -1), np.full(1, -1))

    def _swapped(self, chosen: np.ndarray) -> np.ndarray:
        """``chosen`` (an item per class) improved by swaps within classes, then, while it is below the
        root's bound, by exchanges of steps between classes and swaps again."""
        arrays = (self.weights, self.profits, self.starts)
        chosen = improve(*arrays, chosen, self.capacity)
        if int(self.profits[chosen].sum()) < self.upper:
            chosen = improve(*arrays, exchange(*arrays, chosen, self.capacity, self.upper), self.capacity)
        return chosen

    def run(self, limit: int, watch) -> str | None:
        """Decide the classes in order; None when the incumbent is proved optimal, else why it stopped."""
        ends = np.append(self.starts[1:], self.flat.size)
        kept, rate = 0, MERGE_SECONDS
        for t, k in enumerate(self.order.tolist()):
            if self.incumbent.value >= self.upper:
                return None  # the incumbent meets the root's bound: optimal
            segment = slice(int(self.starts[k]), int(ends[k]))
            candidates = self.state.weight.size * (segment.stop - segment.start)
            stopped = _stop(candidates, rate, kept, limit)
            if stopped is not None:
                return stopped
            began = watch.seconds
            self.decide(t, segment)
            if candidates >= MEASURED_CANDIDATES:  # small merges are all overhead: no rate from them
                rate = max(MERGE_SECONDS, (watch.seconds - began) / _sorting(candidates))
            kept += self.state.weight.size
            if self.state.weight.size == 0:
                return None  # no state can beat the incumbent: it is optimal
        j = int(np.argmax(self.state.profit))
        if self.state.profit[j] > self.incumbent.value:
            self.incumbent = Incumbent(int(self.state.profit[j]), len(self.levels) - 1, j)
        return None

    def decide(self, t: int, segment: slice) -> None:
        """The t-th class in order (its items ``segment``): the states extended and merged, the
        incumbent improved by their completions, and those the bound rules out dropped."""
        items = np.arange(segment.start, segment.stop)
        new = merged(self.state, self.weights[segment], self.profits[segment], items, self.capacity)
        completed = new.profit + self.fill_p[t + 1]
        fits = new.weight + self.fill_w[t + 1] <= self.capacity
        if fits.any():
            j = int(np.argmax(np.where(fits, completed, -1)))
            if completed[j] > self.incumbent.value:
                self.incumbent = Incumbent(int(completed[j]), t, j)
        keep = hopeful(bounds(new, self.lag.multiplier, self.rest[t + 1], self.capacity), self.incumbent.value)
        if self.incumbent.level == t:
            keep[self.incumbent.state] = True
            self.incumbent.state = int(np.count_nonzero(keep[: self.incumbent.state]))
        self.state = Level(new.weight[keep], new.profit[keep], new.parent[keep], new.item[keep])
        self.levels.append(self.state)

    def bound(self, value: int) -> int:
        """A proven upper bound once stopped: the largest bound of a live state (at first: the root's)."""
        upper = bounds(self.state, self.lag.multiplier, self.rest[len(self.levels)], self.capacity)
        alive = int(np.floor(upper.max() * (1 + 1e-9) + 1e-9)) if upper.size else value
        return max(value, min(alive, self.upper))

    def chosen(self) -> np.ndarray:
        """The incumbent's items: its state walked back through the levels, then the best items of the
        classes after its level."""
        selected = np.zeros(self.problem.n, dtype=bool)
        if self.incumbent.items is not None:
            flat = self.flat[self.incumbent.items]
            selected[flat[flat >= 0]] = True
            return selected
        s = self.incumbent.state
        for level in range(self.incumbent.level, -1, -1):
            item = int(self.levels[level].item[s])
            if self.flat[item] >= 0:
                selected[self.flat[item]] = True
            s = int(self.levels[level].parent[s])
        for item in self.best_items[self.incumbent.level + 1 :].tolist():
            if self.flat[item] >= 0:
                selected[self.flat[item]] = True
        return selected


def _stop(candidates: int, rate: float, kept_states: int, limit: int) -> str | None:
    """Why the next merge must not start (None: it may): the time limit has passed or the merge
    would pass it at the rate measured so far, or its candidates and the states kept would exceed
    the state limit."""
    if deadline.expired() or (deadline.limited() and not deadline.allows(2 * rate * _sorting(candidates))):
        return "the time limit"
    if kept_states + candidates > limit:
        return f"the limit of {limit} states"
    if candidates * CANDIDATE_BYTES > memory.host_budget():
        return f"the host memory: a merge of {candidates} states needs {candidates * CANDIDATE_BYTES} bytes"
    return None


def _sorting(candidates: int) -> float:
    """A merge's work: candidates x log2(candidates) (its sort)."""
    return candidates * max(1.0, float(np.log2(max(candidates, 2))))


def _flat(problem: MultipleChoice) -> tuple[np.ndarray, np.ndarray]:
    """Every class's kept items end to end (global indices; -1: skip the class, with ``at_most_one``)
    and where each class starts."""
    classes = kept(problem)
    if problem.at_most_one:
        classes = [np.concatenate(([-1], c)) for c in classes]
    sizes = np.array([c.size for c in classes], dtype=np.int64)
    return np.concatenate(classes).astype(np.int64), np.cumsum(sizes) - sizes


def _notes(levels: list[Level], classes: int) -> list[str]:
    widest = max((level.weight.size for level in levels), default=0)
    return [f"{len(levels)} of {classes} classes decided by state lists (at most {widest} states)"]


def _stats(levels: list[Level]) -> dict:
    return {"states": int(sum(level.weight.size for level in levels)), "levels": len(levels)}
