"""Items grouped by equal value or equal weight, each group sorted ([HC22], Sect. 5.3).

Grouped by value, a group's items are sorted lightest first; grouped by weight, most valuable first.
Either way, by Theorem 2 some optimal solution takes a prefix of every group, so the DP needs per
group only the prefix sums of weights (Eq. 5) and of profits.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from clsolve.sdk import Knapsack, cache

GROUPINGS = ("auto", "value", "weight")


#: Keys spanning fewer values than this are counted and sorted as 16-bit offsets (counting and radix
#: sort, linear in N) rather than by comparison.
NARROW_SPAN = 2**16


def _narrow(key: np.ndarray) -> np.ndarray | None:
    """``key`` less its minimum as uint16 where its values span fewer than NARROW_SPAN, else None."""
    if key.size == 0:
        return None
    low = key.min()
    return (key - low).astype(np.uint16) if int(key.max()) - int(low) < NARROW_SPAN else None


def _key(problem: Knapsack, by: str) -> np.ndarray:
    if by not in ("value", "weight"):
        raise ValueError(f"grouping must be 'value' or 'weight', got {by!r}")
    return problem.profits if by == "value" else problem.weights[:, 0]


def sizes(problem: Knapsack, by: str) -> np.ndarray:
    """The sizes of the groups ``by`` value or weight, in increasing key (counted once per problem:
    O(N) for narrow keys, a sort otherwise)."""

    def count() -> np.ndarray:
        key = _key(problem, by)
        narrow = _narrow(key)
        if narrow is None:
            return np.unique(key, return_counts=True)[1]
        counts = np.bincount(narrow)
        return counts[counts > 0]

    return cache.per_problem(problem, ("mckp group sizes", by), count)


def distinct(problem: Knapsack) -> dict[str, int]:
    """Number of groups each grouping would make."""
    return {"value": int(sizes(problem, "value").size), "weight": int(sizes(problem, "weight").size)}


def choose_grouping(problem: Knapsack, requested: str) -> str:
    """``requested``, or for ``auto`` the grouping with fewer groups (by value on a tie)."""
    if requested != "auto":
        return requested
    counts = distinct(problem)
    return "weight" if counts["weight"] < counts["value"] else "value"


@dataclass
class Groups:
    """The groups of one knapsack (m = 1) in the order the DP visits them."""

    by: str
    #: (M + 1,) start of each group in ``order``, and N at the end.
    first: np.ndarray
    #: The key the items are grouped by (profits or weights).
    key: np.ndarray
    _order: np.ndarray | None = None

    @classmethod
    def of(cls, problem: Knapsack, by: str) -> Groups:
        """The groups of ``problem`` by ``by`` (their sizes: ``sizes``); the partition itself
        (``order``) is made when first used."""
        key = _key(problem, by)
        return cls(by, np.concatenate([[0], np.cumsum(sizes(problem, by))]).astype(np.int64), key)

    @property
    def order(self) -> np.ndarray:
        """Original item index at each position (stable by key, O(N log N)); group g occupies positions
        first[g] .. first[g+1] - 1; the within-group sort is ``sort_range``'s."""
        if self._order is None:
            narrow = _narrow(self.key)
            self._order = np.argsort(self.key if narrow is None else narrow, kind="stable")
        return self._order

    @property
    def count(self) -> int:
        return len(self.first) - 1

    @property
    def sizes(self) -> np.ndarray:
        return np.diff(self.first)

    @property
    def largest(self) -> int:
        return int(self.sizes.max(initial=0))

    def sort_range(self, problem: Knapsack, begin: int, end: int) -> None:
        """Sort the items of groups begin .. end - 1 in place (the host does this for the next groups
        while the device works on the current ones)."""
        lo, hi = int(self.first[begin]), int(self.first[end])
        items = self.order[lo:hi]
        group = np.repeat(np.arange(end - begin), self.sizes[begin:end])
        second = problem.weights[items, 0] if self.by == "value" else -problem.profits[items]
        self.order[lo:hi] = items[np.lexsort((second, group))]

    def prefix_sums(
        self, problem: Knapsack, begin: int, end: int, states: int, value_dtype: np.dtype
    ) -> tuple[np.ndarray, np.ndarray]:
        """(W_k, P_k) for k = 1..|G| of groups begin .. end - 1 (sorted first), positions lo .. hi - 1.
        W_k is clamped to ``states`` (uint32): a clamped prefix never fits any capacity."""
        lo, hi = int(self.first[begin]), int(self.first[end])
        items = self.order[lo:hi]
        sizes = self.sizes[begin:end]
        starts = self.first[begin:end] - lo
        weights = problem.weights[items, 0]
        profits = problem.profits[items]
        prefix_w = np.cumsum(weights)
        prefix_p = np.cumsum(profits)
        if len(items):
            before_w = np.repeat(prefix_w[starts] - weights[starts], sizes)
            before_p = np.repeat(prefix_p[starts] - profits[starts], sizes)
            prefix_w = prefix_w - before_w
            prefix_p = prefix_p - before_p
        return np.minimum(prefix_w, states).astype(np.uint32), prefix_p.astype(value_dtype)

    def selected(self, n: int, taken: np.ndarray) -> np.ndarray:
        """The item vector that takes the first taken[g] items of each group g."""
        rank = np.arange(len(self.order)) - np.repeat(self.first[:-1], self.sizes)
        chosen = rank < np.repeat(np.asarray(taken, dtype=np.int64), self.sizes)
        selected = np.zeros(n, dtype=bool)
        selected[self.order[chosen]] = True
        return selected
