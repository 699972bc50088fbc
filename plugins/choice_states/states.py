"""The state lists of the multiple-choice knapsack ([Pisinger95] Section 5, after [DW84]): the classes
decided one at a time, least certain first, each state (W, P) an undominated choice of one item from
every decided class; every state extended by each item of the next class, merged by weight, and kept
only where no lighter or equal state earns as much, and where the Lagrangian bound (``lagrange``) says
it could still beat the incumbent. The incumbent is each new state completed by the classes' best
items at lambda, where they fit."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

#: Relative and absolute slack on the floating-point bound: a state is dropped only where its bound
#: falls short of the incumbent + 1 by more than this.
SLACK = 1e-9


@dataclass
class Level:
    """One decided class's states: weight, profit, parent state (in the level before) and item (flat
    index; -1: the class skipped)."""

    weight: np.ndarray
    profit: np.ndarray
    parent: np.ndarray
    item: np.ndarray


@dataclass
class Incumbent:
    """The best answer found: its value, the level and state it completes, and how (the classes'
    best items after that level); or its items outright (``items``: a flat index per class)."""

    value: int
    level: int
    state: int
    history: list = field(default_factory=list)
    items: np.ndarray | None = None


def merged(level: Level, weights: np.ndarray, profits: np.ndarray, items: np.ndarray, capacity: int) -> Level:
    """Every state of ``level`` extended by each item (weight, profit, flat index), those within the
    capacity merged by weight and cut to the undominated ones (profit strictly rising with weight)."""
    count = level.weight.size
    w = (level.weight[None, :] + weights[:, None]).reshape(-1)
    p = (level.profit[None, :] + profits[:, None]).reshape(-1)
    parent = np.tile(np.arange(count, dtype=np.int64), weights.size)
    item = np.repeat(items, count)
    fits = w <= capacity
    w, p, parent, item = w[fits], p[fits], parent[fits], item[fits]
    order = np.lexsort((-p, w))
    w, p, parent, item = w[order], p[order], parent[order], item[order]
    if p.size:
        keep = np.ones(p.size, dtype=bool)
        keep[1:] = p[1:] > np.maximum.accumulate(p)[:-1]
        w, p, parent, item = w[keep], p[keep], parent[keep], item[keep]
    return Level(w, p, parent, item)


def bounds(level: Level, lam: float, rest: float, capacity: int) -> np.ndarray:
    """Each state's Lagrangian bound: P + lambda (C - W) + the undecided classes' best reduced profits."""
    return level.profit + lam * (capacity - level.weight) + rest


def hopeful(upper: np.ndarray, incumbent: int) -> np.ndarray:
    """The states whose bound may still reach incumbent + 1 (with SLACK for rounding)."""
    return upper + SLACK * np.abs(upper) + SLACK >= incumbent + 1
