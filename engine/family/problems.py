"""Bounded and unbounded knapsacks, and change-making: immutable values over NumPy arrays, validated
when built (the checks of ``clsolve.problems``)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import InvalidProblemError
from ..problems import INT64_MAX, MAX_SCALAR, Memo, _as_integers, _known_optimum, _text

#: Largest count of one item: counts are 32-bit in the kernels' decisions.
MAX_COUNT = 2**31


def _assign(problem, **fields) -> None:
    """Set the fields of a frozen problem as its constructor validated them."""
    for key, value in fields.items():
        object.__setattr__(problem, key, value)


def _capacity(value, field_name: str) -> int:
    array = _as_integers(value, field_name, "one integer")
    if array.size != 1:
        raise InvalidProblemError(f"{field_name}: expected one integer, got shape {array.shape}")
    return int(array.reshape(-1)[0])


def _counts(values, n: int) -> np.ndarray:
    counts = _as_integers(values, "counts", "a 1-D array")
    if counts.shape != (n,):
        raise InvalidProblemError(f"counts: expected shape ({n},) to match the items, got {counts.shape}")
    if counts.size and int(counts.max()) > MAX_COUNT:
        index = int(np.argmax(counts))
        raise InvalidProblemError(f"counts[{index}]: {int(counts[index])} exceeds the limit 2^31 = {MAX_COUNT}")
    return counts


def usable(weights: np.ndarray, counts: np.ndarray | None, capacity: int) -> np.ndarray:
    """How many of each item a packing within ``capacity`` can hold: its count (no limit: as many as
    fit), never more than fit; an item of weight 0 and no count limit: 0 (it must have no profit)."""
    fit = np.where(weights > 0, capacity // np.maximum(weights, 1), 0)
    if counts is None:
        return fit.astype(np.int64)
    return np.where(weights > 0, np.minimum(counts, fit), counts).astype(np.int64)


def _profit_bound(profits: np.ndarray, most: np.ndarray) -> int:
    """Each profit times its usable copies, summed exactly (a Python int): in int64 where a float
    estimate leaves room below 2^62 (no product nor partial sum can overflow then), else term by term."""
    if float(np.dot(profits.astype(np.float64), most.astype(np.float64))) < 2.0**62:
        return int(np.dot(profits, most))
    return sum(int(p) * int(b) for p, b in zip(profits.tolist(), most.tolist()))


@dataclass(frozen=True, eq=False)
class BoundedKnapsack(Memo):
    """A knapsack where item j may be packed up to ``counts[j]`` times (the bounded knapsack), or any
    number of times where ``counts`` is None (the unbounded knapsack); one capacity.

    ``profits`` and ``weights`` have shape (n,), ``counts`` shape (n,) with values in [0, 2^31];
    ``capacity`` is one integer. All values are integers in [0, 2^62]. The answer's ``counts`` says
    how many of each item are packed. The most any packing can earn (each profit times the count of
    it that fits, summed) must fit in a signed 64-bit integer; an unbounded item of weight 0 must
    have profit 0 (else there is no optimum).
    """

    profits: np.ndarray
    weights: np.ndarray
    capacity: int
    counts: np.ndarray | None
    name: str = ""
    known_optimum: int | None = field(default=None, compare=False)

    def __init__(self, profits, weights, capacity, counts=None, name: str = "", known_optimum: int | None = None):
        profits = _as_integers(profits, "profits", "a 1-D array")
        weights = _as_integers(weights, "weights", "a 1-D array")
        if profits.ndim != 1 or profits.size == 0:
            raise InvalidProblemError(f"profits: expected shape (n,) with n >= 1, got {profits.shape}")
        if weights.shape != profits.shape:
            raise InvalidProblemError(f"weights: expected shape {profits.shape} to match profits, got {weights.shape}")
        capacity = _capacity(capacity, "capacity")
        bounds = None if counts is None else _counts(counts, profits.size)
        if bounds is None:
            free = np.flatnonzero((weights == 0) & (profits > 0))
            if free.size:
                j = int(free[0])
                raise InvalidProblemError(
                    f"weights[{j}]: 0 with profit {int(profits[j])} and no count limit: "
                    "any number of copies fits, so there is no optimum (give counts)"
                )
        most = usable(weights, bounds, capacity)
        total = _profit_bound(profits, most)
        if total > INT64_MAX:
            raise InvalidProblemError(
                f"profits: a packing could earn up to {total} (each profit times the copies that fit), "
                f"beyond the signed 64-bit limit {INT64_MAX}"
            )
        for array in (profits, weights, most) + (() if bounds is None else (bounds,)):
            array.setflags(write=False)
        _assign(
            self,
            profits=profits,
            weights=weights,
            capacity=capacity,
            counts=bounds,
            name=_text(str(name), "name"),
            known_optimum=_known_optimum(known_optimum),
            _usable=most,
            _total_profit=total,
        )

    kind = "bounded"

    @property
    def n(self) -> int:
        """Number of items (distinct item types)."""
        return int(self.profits.size)

    @property
    def unbounded(self) -> bool:
        """True where no item has a count limit."""
        return self.counts is None

    @property
    def usable(self) -> np.ndarray:
        """How many copies of each item a packing can hold (``usable``): its count, at most what fits."""
        return self.__dict__["_usable"]

    @property
    def total_profit(self) -> int:
        """The most any packing could earn: each profit times ``usable``, summed."""
        return self.__dict__["_total_profit"]

    def cells(self) -> int:
        """States of one dense DP row: capacity + 1."""
        return self.capacity + 1

    def describe(self) -> str:
        label = f"{self.name}: " if self.name else ""
        if self.unbounded:
            return f"{label}unbounded knapsack with n = {self.n}, capacity {self.capacity}"
        most = int(self.counts.max()) if self.counts is not None else 0
        return f"{label}bounded knapsack with n = {self.n}, counts up to {most}, capacity {self.capacity}"

    def __repr__(self) -> str:
        return f"BoundedKnapsack({self.describe()})"


@dataclass(frozen=True, eq=False)
class ChangeMaking(Memo):
    """Change-making: the fewest coins whose values (``weights``) sum exactly to ``capacity``, with
    up to ``counts[j]`` coins of value j (None: any number of each).

    The answer's ``counts`` says how many coins of each value are used and its ``value`` how many
    coins that is; where no choice of coins sums to the capacity, the answer has ``feasible`` False.
    """

    weights: np.ndarray
    capacity: int
    counts: np.ndarray | None
    name: str = ""
    known_optimum: int | None = field(default=None, compare=False)

    def __init__(self, weights, capacity, counts=None, name: str = "", known_optimum: int | None = None):
        weights = _as_integers(weights, "weights", "a 1-D array")
        if weights.ndim != 1 or weights.size == 0:
            raise InvalidProblemError(f"weights: expected shape (n,) with n >= 1 coin values, got {weights.shape}")
        capacity = _capacity(capacity, "capacity")
        bounds = None if counts is None else _counts(counts, weights.size)
        most = usable(weights, bounds, capacity)
        most = np.where(weights > 0, most, 0)  # a coin of value 0 never helps
        for array in (weights, most) + (() if bounds is None else (bounds,)):
            array.setflags(write=False)
        _assign(
            self,
            weights=weights,
            capacity=capacity,
            counts=bounds,
            name=_text(str(name), "name"),
            known_optimum=_known_optimum(known_optimum),
            _usable=most,
        )

    kind = "change"

    @property
    def n(self) -> int:
        """Number of coin values."""
        return int(self.weights.size)

    @property
    def unbounded(self) -> bool:
        return self.counts is None

    @property
    def usable(self) -> np.ndarray:
        """How many coins of each value an answer can use: its count, at most what fits; 0 for value 0."""
        return self.__dict__["_usable"]

    @property
    def profits(self) -> np.ndarray:
        """Each coin as an item of profit -1: change-making is the exact-sum knapsack of most profit."""
        return np.full(self.n, -1, dtype=np.int64)

    def cells(self) -> int:
        return self.capacity + 1

    def describe(self) -> str:
        label = f"{self.name}: " if self.name else ""
        limit = "unlimited coins" if self.counts is None else f"up to {int(self.counts.max())} coins of a value"
        return f"{label}change-making with {self.n} coin values ({limit}), sum {self.capacity}"

    def __repr__(self) -> str:
        return f"ChangeMaking({self.describe()})"


@dataclass(frozen=True, eq=False)
class MultipleChoice(Memo):
    """The multiple-choice knapsack: items in classes, exactly one item of each class packed (with
    ``at_most_one``: at most one), total weight within ``capacity``, most profit.

    ``profits`` and ``weights`` have shape (n,), ``classes`` shape (n,): the class of each item, in
    0..k-1, every class holding one item at least. The answer's ``selected`` flags the chosen items;
    where no choice of one item per class fits, ``feasible`` is False.
    """

    profits: np.ndarray
    weights: np.ndarray
    capacity: int
    classes: np.ndarray
    at_most_one: bool = False
    name: str = ""
    known_optimum: int | None = field(default=None, compare=False)

    def __init__(
        self, profits, weights, capacity, classes, at_most_one: bool = False, name: str = "", known_optimum: int | None = None
    ):
        profits = _as_integers(profits, "profits", "a 1-D array")
        weights = _as_integers(weights, "weights", "a 1-D array")
        if profits.ndim != 1 or profits.size == 0:
            raise InvalidProblemError(f"profits: expected shape (n,) with n >= 1, got {profits.shape}")
        if weights.shape != profits.shape:
            raise InvalidProblemError(f"weights: expected shape {profits.shape} to match profits, got {weights.shape}")
        labels = _as_integers(classes, "classes", "a 1-D array")
        if labels.shape != profits.shape:
            raise InvalidProblemError(f"classes: expected shape {profits.shape} (a class per item), got {labels.shape}")
        count = int(labels.max()) + 1
        sizes = np.bincount(labels, minlength=count)
        if (sizes == 0).any():
            raise InvalidProblemError(
                f"classes: class {int(np.argmin(sizes))} has no item; classes are numbered 0..k-1, each used"
            )
        best = np.full(count, 0, dtype=object)
        for c, p in zip(labels.tolist(), profits.tolist()):
            best[c] = max(best[c], p)
        total = int(best.sum())
        if total > INT64_MAX:
            raise InvalidProblemError(f"profits: the best item of each class sums to {total}, beyond the signed 64-bit limit")
        if not isinstance(at_most_one, (bool, np.bool_)):
            raise InvalidProblemError(f"at_most_one: expected True or False, got {at_most_one!r}")
        for array in (profits, weights, labels):
            array.setflags(write=False)
        _assign(
            self,
            profits=profits,
            weights=weights,
            capacity=_capacity(capacity, "capacity"),
            classes=labels,
            at_most_one=bool(at_most_one),
            name=_text(str(name), "name"),
            known_optimum=_known_optimum(known_optimum),
            _total_profit=total,
        )

    kind = "multiple-choice"

    @property
    def n(self) -> int:
        """Number of items."""
        return int(self.profits.size)

    @property
    def k(self) -> int:
        """Number of classes."""
        return int(self.classes.max()) + 1

    @property
    def total_profit(self) -> int:
        """The most any answer could earn: each class's best profit, summed."""
        return self.__dict__["_total_profit"]

    def members(self) -> list[np.ndarray]:
        """The item indices of each class, in class order (made once)."""
        memo = self.memo
        if "members" not in memo:
            order = np.argsort(self.classes, kind="stable")
            memo["members"] = np.split(order, np.cumsum(np.bincount(self.classes, minlength=self.k))[:-1])
        return memo["members"]

    def cells(self) -> int:
        return self.capacity + 1

    def describe(self) -> str:
        label = f"{self.name}: " if self.name else ""
        rule = "at most one" if self.at_most_one else "one"
        return f"{label}multiple-choice knapsack with {self.k} classes of {self.n} items ({rule} each), capacity {self.capacity}"

    def __repr__(self) -> str:
        return f"MultipleChoice({self.describe()})"


@dataclass(frozen=True, eq=False)
class MultipleKnapsack(Memo):
    """The multiple knapsack: k knapsacks of their own ``capacities``, each item packed in at most one,
    most profit. ``profits`` and ``weights`` have shape (n,), ``capacities`` shape (k,). The answer's
    ``assignment`` gives each item's knapsack (0..k-1, or -1: not packed)."""

    profits: np.ndarray
    weights: np.ndarray
    capacities: np.ndarray
    name: str = ""
    known_optimum: int | None = field(default=None, compare=False)

    def __init__(self, profits, weights, capacities, name: str = "", known_optimum: int | None = None):
        profits = _as_integers(profits, "profits", "a 1-D array")
        weights = _as_integers(weights, "weights", "a 1-D array")
        capacities = _as_integers(capacities, "capacities", "a 1-D array")
        if profits.ndim != 1 or profits.size == 0:
            raise InvalidProblemError(f"profits: expected shape (n,) with n >= 1, got {profits.shape}")
        if weights.shape != profits.shape:
            raise InvalidProblemError(f"weights: expected shape {profits.shape} to match profits, got {weights.shape}")
        if capacities.ndim != 1 or capacities.size == 0:
            raise InvalidProblemError(f"capacities: expected shape (k,) with k >= 1 knapsacks, got {capacities.shape}")
        total = sum(profits.tolist())
        if total > INT64_MAX:
            raise InvalidProblemError(f"profits: their sum {total} exceeds the signed 64-bit limit {INT64_MAX}")
        for array in (profits, weights, capacities):
            array.setflags(write=False)
        _assign(
            self,
            profits=profits,
            weights=weights,
            capacities=capacities,
            name=_text(str(name), "name"),
            known_optimum=_known_optimum(known_optimum),
        )

    kind = "multiple"

    @property
    def n(self) -> int:
        """Number of items."""
        return int(self.profits.size)

    @property
    def k(self) -> int:
        """Number of knapsacks."""
        return int(self.capacities.size)

    def describe(self) -> str:
        label = f"{self.name}: " if self.name else ""
        return f"{label}multiple knapsack with n = {self.n} items, k = {self.k} knapsacks"

    def __repr__(self) -> str:
        return f"MultipleKnapsack({self.describe()})"


__all__ = ["BoundedKnapsack", "ChangeMaking", "MultipleChoice", "MultipleKnapsack", "MAX_COUNT", "MAX_SCALAR", "usable"]
