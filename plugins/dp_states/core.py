"""The items as dp-states sees them: sorted by decreasing profit/weight, the break item, the break
solution the lists start from, a greedy incumbent, and the order in which the core grows."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from clsolve.sdk import Knapsack, greedy, ratio_order


@dataclass
class Level:
    """One level of the lists: item ``item`` (sorted index) decided, ``add`` (x = 1 for the shifted
    copy) or remove (x = 0 for it)."""

    item: int
    add: bool


@dataclass
class Core:
    """A problem's items in ratio order and the core [s, t] growing around the break item b: every
    state takes items 0..s and none of t..n-1, except what its levels toggled."""

    order: np.ndarray
    weights: np.ndarray
    profits: np.ndarray
    capacity: int
    breaking: int
    #: the next items to add (t) and to remove (s)
    next_add: int = 0
    next_remove: int = -1
    levels: list[Level] = field(default_factory=list)
    #: Every product a bound compares (a state's room, gap, spare or excess, at most the capacity or
    #: a total, times an item's profit or weight) fits in int64: NumPy's products are exact.
    small: bool = False

    @classmethod
    def of(cls, problem: Knapsack) -> Core:
        profits, weights = problem.profits.astype(np.int64), problem.weights[:, 0].astype(np.int64)
        order = ratio_order(problem)
        w, p = weights[order], profits[order]
        capacity = int(problem.capacities[0])
        fits = np.cumsum(w) <= capacity
        breaking = int(np.argmin(fits)) if not fits.all() else w.size
        largest = max(capacity, int(p.sum()), int(w.sum()), 1) + 1
        small = largest * max(int(p.max(initial=0)), int(w.max(initial=0)), 1) < 2**63
        return cls(order, w, p, capacity, breaking, next_add=breaking, next_remove=breaking - 1, small=small)

    @property
    def n(self) -> int:
        return int(self.weights.size)

    def start(self) -> tuple[int, int]:
        """(W, P) of the break solution: items 0..b-1."""
        b = self.breaking
        return int(self.weights[:b].sum()), int(self.profits[:b].sum())

    def greedy(self) -> tuple[int, np.ndarray]:
        """The break solution, then later items that still fit (``clsolve.dp.fixing.greedy``)."""
        chosen = greedy(self.weights, self.capacity, self.breaking)
        return int(self.profits[chosen].sum()), chosen

    def done(self) -> bool:
        return self.next_remove < 0 and self.next_add >= self.n

    def advance(self) -> Level:
        """The next level: items are added (t = b, b+1, ...) and removed (s = b-1, b-2, ...) in
        turn, as in [Pisinger97]; once one side is exhausted, the other alone."""
        add = self.next_add < self.n and (self.next_remove < 0 or len(self.levels) % 2 == 0)
        if add:
            level = Level(self.next_add, True)
            self.next_add += 1
        else:
            level = Level(self.next_remove, False)
            self.next_remove -= 1
        self.levels.append(level)
        return level

    def upcoming(self) -> list[int]:
        """The items of the levels still to come, in the order ``advance`` will decide them."""
        ahead = Core(
            self.order,
            self.weights,
            self.profits,
            self.capacity,
            self.breaking,
            self.next_add,
            self.next_remove,
            list(self.levels),
            self.small,
        )
        items = []
        while not ahead.done():
            items.append(ahead.advance().item)
        return items

    def taken(self) -> tuple[int, int]:
        """(weight, profit) of the items every state still takes by default: 0..s, those not yet removed."""
        s = self.next_remove + 1
        return int(self.weights[:s].sum()), int(self.profits[:s].sum())

    def next_items(self) -> tuple[tuple[int, int] | None, tuple[int, int] | None]:
        """(p, w) of the next item that may be added and of the next that may be removed (None: none);
        the bounds of the states use them."""
        add = (int(self.profits[self.next_add]), int(self.weights[self.next_add])) if self.next_add < self.n else None
        remove = (int(self.profits[self.next_remove]), int(self.weights[self.next_remove])) if self.next_remove >= 0 else None
        return add, remove

    def selection(self, toggled: list[int]) -> np.ndarray:
        """The sorted items' x after the levels ``toggled`` (their numbers, from 1) toggled their item."""
        chosen = np.zeros(self.n, dtype=bool)
        chosen[: self.breaking] = True
        for number in toggled:
            level = self.levels[number - 1]
            chosen[level.item] = level.add
        return chosen

    def root_bound(self) -> int:
        """Dantzig's bound of the whole problem."""
        W, P = self.start()
        if self.breaking >= self.n:
            return P
        return P + (self.capacity - W) * int(self.profits[self.breaking]) // int(self.weights[self.breaking])
