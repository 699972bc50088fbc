"""Depth-first branch and bound for the multiple knapsack ([MT90] Section 6.4's enumeration, MTM's
order): the items by decreasing profit per weight, each put in turn in every knapsack it fits (those
with equal room tried once: the same subtree) or left out; a node is cut where its profit plus the
surrogate relaxation's Dantzig bound (every knapsack's room pooled into one, the items after it
taken by ratio, the break item in part) cannot beat the incumbent."""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate

#: Nodes between two looks at the time limit.
CHECK_NODES = 4096


class Stopped(Exception):
    """The time limit passed during the search: the incumbent stands."""


class Reached(Exception):
    """The incumbent reached the known upper bound: it is optimal."""


class Search:
    """The search over items ``profits``/``weights`` (sorted by ratio, Python ints) and knapsacks of
    ``capacities``; ``best`` and ``placed`` hold the incumbent (a knapsack per sorted item, -1: out)."""

    def __init__(self, profits: list[int], weights: list[int], capacities: list[int], expired, upper: int | None = None):
        self.profits, self.weights, self.capacities = profits, weights, capacities
        self.prefix_w = [0, *accumulate(weights)]
        self.prefix_p = [0, *accumulate(profits)]
        self.expired, self.upper = expired, upper
        self.nodes = 0
        self.placed = self.greedy()
        self.best = sum(p for p, at in zip(profits, self.placed) if at >= 0)

    def offer(self, placed: list[int]) -> None:
        """A feasible placement found elsewhere, completed by best fit; kept where it beats the incumbent."""
        room = list(self.capacities)
        for j, at in enumerate(placed):
            if at >= 0:
                room[at] -= self.weights[j]
        out = list(placed)
        for j, at in enumerate(placed):
            fits = [i for i, r in enumerate(room) if r >= self.weights[j]] if at < 0 else []
            if fits:
                out[j] = min(fits, key=lambda i: room[i])
                room[out[j]] -= self.weights[j]
        value = sum(p for p, at in zip(self.profits, out) if at >= 0)
        if value > self.best:
            self.best, self.placed = value, out

    def greedy(self) -> list[int]:
        """Each item by ratio into the knapsack with the least room that holds it (best fit)."""
        room, out = list(self.capacities), []
        for w in self.weights:
            fits = [i for i, r in enumerate(room) if r >= w]
            at = min(fits, key=lambda i: room[i]) if fits else -1
            if at >= 0:
                room[at] -= w
            out.append(at)
        return out

    def bound(self, j: int, room: int) -> int:
        """Dantzig's bound of items j.. with ``room``: whole items by ratio, then part of the next."""
        end = bisect_right(self.prefix_w, self.prefix_w[j] + room) - 1  # items j .. end - 1 fit whole
        value = self.prefix_p[end] - self.prefix_p[j]
        if end < len(self.weights):
            value += (room - (self.prefix_w[end] - self.prefix_w[j])) * self.profits[end] // self.weights[end]
        return value

    def run(self) -> None:
        """The whole search (raises Stopped at the time limit); ends early where the incumbent reaches
        the known upper bound."""
        room = list(self.capacities)
        try:
            if self.upper is None or self.best < self.upper:
                self._visit(0, room, sum(room), 0, [-1] * len(self.weights))
        except Reached:
            pass

    def _visit(self, j: int, room: list[int], pooled: int, value: int, at: list[int]) -> None:
        self.nodes += 1
        if self.nodes % CHECK_NODES == 0 and self.expired():
            raise Stopped
        n = len(self.weights)
        while j < n and self.weights[j] > max(room):
            j += 1  # fits nowhere any more: out
        if j == n or value + self.bound(j, pooled) <= self.best:
            if value > self.best:
                self.best, self.placed = value, list(at)
                if self.upper is not None and value >= self.upper:
                    raise Reached
            return
        w, tried = self.weights[j], set()
        for i in sorted(range(len(room)), key=lambda i: room[i]):
            if room[i] < w or room[i] in tried:
                continue
            tried.add(room[i])
            room[i] -= w
            at[j] = i
            self._visit(j + 1, room, pooled - w, value + self.profits[j], at)
            at[j] = -1
            room[i] += w
        self._visit(j + 1, room, pooled, value, at)
