"""Host-side facts of a dense knapsack DP table, shared by the DP solver plugins.

A DP row holds one value per state, a state being a capacity vector (c1, .., cm) flattened
row-major. Decision bits (one per item and state) use the tiled layout of ``opencl/dp_states.h``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..batch.packed import PackedProblems
from ..errors import InvalidOptionError
from ..problems import Knapsack
from ..runtime import cache
from .ratios import partial_order

INT32_MAX = 2**31 - 1
#: Relative margin on ``value_bound``'s double-precision LP bound before it is rounded up.
VALUE_BOUND_MARGIN = 1e-9
#: Byte the DP solvers' ``poison`` option fills device buffers with, so unwritten cells show.
POISON_BYTE = 0xA5
#: Rough device model for ``auto``'s estimates: bytes per second streamed, seconds per launch.
MODEL_BANDWIDTH = {"gpu": 1.0e12, "other": 2.0e10}
MODEL_LAUNCH_SECONDS = {"gpu": 1.2e-5, "other": 4e-5}
#: Host memory a streamed DP fills per second, for plans whose rows stream there: page-locking it
#: (``clsolve.dp.rowstore.PIN_BYTES_PER_SECOND``, 2e9; a GPU's arenas of 16 MiB and more) and copying
#: into it (about 2e10).
MODEL_COPY_BANDWIDTH = 1.8e9
#: Seconds one item step of a batched DP over small rows takes however few states it has (each
#: work-item walks its 32 states one after another; measured on the H100: 1.4 ms for 21 launches
#: over 210 rows of 1001 states), and subsets per second of subset enumeration (H100: 4.4e8 subsets
#: in 1.2 ms; PoCL on 2 cores: 4.4e8 in 1.8 s).
MODEL_DP_STEP_SECONDS = {"gpu": 6e-5, "other": 1e-4}
MODEL_SUBSETS_PER_SECOND = {"gpu": 3e11, "other": 2e8}
#: Kernels index states with 32-bit unsigned integers.
MAX_STATES = 2**32 - 1
MAX_DIMS = 3
#: Items a trace-back on the device reads at once (build option BACK_DEPTH of ``dp_rows_backtrack``
#: and ``kp_backtrack``): a work-group of 2^BACK_DEPTH work-items reads the decision bits of that many
#: items at every state the walk may reach through them, one round trip to memory for all of them.
BACK_DEPTH = 8


def value_dtype(problem: Knapsack, force_bits: int | None = None, bound: int | None = None) -> np.dtype:
    """int32 when no state value can pass 2^31 - 1, else int64. ``bound``: the largest value a state can
    hold (default: the sum of all profits; ``value_bound`` where every value is a feasible set's profit)."""
    top = problem.total_profit if bound is None else bound
    if force_bits == 64 or (force_bits is None and top > INT32_MAX):
        return np.dtype(np.int64)
    if force_bits not in (None, 32):
        raise InvalidOptionError(f"value_bits must be 32, 64 or None, got {force_bits}")
    if top > INT32_MAX:
        raise InvalidOptionError(f"value_bits=32 cannot hold values up to {top} > 2^31 - 1 (leave value_bits unset, or 64)")
    return np.dtype(np.int32)


def value_bound(problem: Knapsack) -> int:
    """An upper bound on the profit of every feasible set of items: the smallest of the total profit and,
    per capacity dimension, the LP (Dantzig) bound of that dimension alone (each relaxes the others).
    Every state of a 0-1 DP whose values are feasible sets' profits stays at or below it, and so does
    every item's profit (an item too heavy to fit may have any). Computed once per problem."""
    total = problem.total_profit
    if total <= INT32_MAX:
        return total
    return cache.per_problem(problem, "value bound", lambda: _lp_value_bound(problem))


def _lp_value_bound(problem: Knapsack) -> int:
    total = problem.total_profit
    weights = np.asarray(problem.weights).reshape(problem.n, problem.m)
    best = min([float(total)] + [_dantzig(problem.profits, w, int(c)) for w, c in zip(weights.T, problem.capacities)])
    # never below one item's profit: every profit is handed to the kernels in the value type
    return min(total, max(int(math.floor(best * (1 + VALUE_BOUND_MARGIN))) + 1, int(problem.profits.max())))


def _dantzig(profits: np.ndarray, weights: np.ndarray, capacity: int) -> float:
    """Dantzig's bound of one capacity dimension alone, in double precision: the items up to the break
    item in ratio order (``partial_order`` where every weight is at least 1)."""
    if int(weights.min()) >= 1 and float(weights.sum(dtype=np.float64)) < 2**61:
        partial = partial_order(profits.astype(np.int64), weights.astype(np.int64), capacity, capacity)
        head = partial.order[: partial.end]  # the break item is among them, if any
    else:
        with np.errstate(divide="ignore"):
            ratio = np.divide(profits.astype(np.float64), weights, out=np.full(profits.size, np.inf), where=weights > 0)
        head = np.argsort(-ratio, kind="stable")
    used = np.cumsum(weights[head].astype(np.float64))
    gained = np.cumsum(profits[head].astype(np.float64))
    whole = int(np.searchsorted(used, capacity, side="right"))  # items head[:whole] fit whole
    bound = gained[whole - 1] if whole else 0.0
    if whole < head.size and weights[head[whole]] > 0:
        bound += (capacity - (used[whole - 1] if whole else 0.0)) * (profits[head[whole]] / weights[head[whole]])
    return float(bound)


def opencl_type(dtype: np.dtype) -> str:
    return {np.dtype(np.int32): "int", np.dtype(np.int64): "long"}[np.dtype(dtype)]


def dp_refusal(problem: Knapsack, solver: str, given: Knapsack | None = None) -> str | None:
    """Why a dense DP over ``problem``'s capacities is impossible, or None. ``given`` is the problem
    as the user gave it when ``problem`` is its presolved form (the message then names both)."""
    if problem.m > MAX_DIMS:
        binding = "" if given is None or given.m == problem.m else f", {problem.m} of them binding after presolve"
        return (
            f"{solver} solves m = 1, 2 or 3 capacity dimensions; this problem has m = "
            f"{problem.m if given is None else given.m}{binding} "
            "(a multidimensional knapsack needs a solver for m > 3)"
        )
    states = problem.cells()
    if states > MAX_STATES:
        caps = " x ".join(str(c + 1) for c in problem.capacities.tolist())
        return (
            f"the DP row would have {caps} = {states} states, above the limit of 2^32 - 1 = {MAX_STATES} "
            "(use a branch-and-bound solver for such capacities)"
        )
    return None


def dp_accepts(problem, solver: str, given: Knapsack | None = None) -> str | None:
    """``Solver.accepts`` of the dense DP solvers: knapsacks whose DP row is possible (``given``:
    the user's problem when ``problem`` is its presolved form)."""
    if not isinstance(problem, Knapsack):
        return f"{solver} solves knapsack problems only"
    return dp_refusal(problem, solver, given)


def work_group_size(max_work_group_size: int, requested: int | None = None, preferred: int = 256) -> int:
    """``requested``, else the largest power of two <= min(preferred, the device's limit)."""
    if requested is not None:
        return int(requested)
    size = 1
    while size * 2 <= min(preferred, max_work_group_size):
        size *= 2
    return size


def spans(problem: Knapsack) -> tuple[int, int]:
    """(span1, span2) of the flattening state = c1*span1 + c2*span2 + c3 (see dp_states.h)."""
    caps = problem.capacities.tolist()
    if problem.m == 1:
        return 1, 0
    if problem.m == 2:
        return caps[1] + 1, 1
    return (caps[1] + 1) * (caps[2] + 1), caps[2] + 1


def clamped_weights(problem: Knapsack) -> np.ndarray:
    """Weights as an (n, 3) uint32 array, each clamped to capacity + 1 (an item that cannot fit
    stays unable to fit) and padded with zero weights for unused dimensions."""
    out = np.zeros((problem.n, 3), dtype=np.uint32)
    limits = problem.capacities + 1
    out[:, : problem.m] = np.minimum(problem.weights, limits[None, :]).astype(np.uint32)
    return out


def reachable_floors(problem: Knapsack) -> np.ndarray:
    """Per item i, the least capacity a trace-back from the capacity C reaches at row i, C minus the
    weight of the items after i (at least 0): a row's states below it are never read back (int64; m = 1,
    zeros for m > 1, whose states interleave the dimensions)."""
    if problem.m != 1 or problem.n == 0:
        return np.zeros(problem.n, dtype=np.int64)

    def floors() -> np.ndarray:
        weights = clamped_weights(problem)[:, 0].astype(np.int64)
        after = np.concatenate([np.cumsum(weights[::-1])[::-1][1:], [0]])
        return np.maximum(0, int(problem.capacities[0]) - after)

    return cache.per_problem(problem, "reachable floors", floors)


@dataclass
class Concatenated:
    """Many knapsacks (m <= 3) as the device sees them: items of all instances end to end."""

    weights: np.ndarray  # (N, 3) uint32, clamped as in ``clamped_weights``, zero-padded to 3 dimensions
    profits: np.ndarray  # (N,) of the value type
    capacities: np.ndarray  # (k, 3) uint32, zero-padded
    sizes: np.ndarray  # (k,) int64: items per instance
    first_item: np.ndarray  # (k,) int64: where each instance's items start
    states: np.ndarray  # (k,) int64: prod(capacity_d + 1)

    @classmethod
    def of(cls, packed: PackedProblems, dtype: np.dtype, clamp_capacities: bool = False) -> Concatenated:
        """A packed batch of knapsacks (m <= 3 each) as the device sees it, profits as ``dtype``.
        ``clamp_capacities`` lowers each capacity to its dimension's total weight where that is
        smaller (a capacity at or above it never binds): for subset enumeration, whose work does
        not depend on the capacities but whose sums are 32-bit."""
        n, m, _ = packed.segments()
        k = len(n)
        first = np.zeros(k, dtype=np.int64)
        np.cumsum(n[:-1], out=first[1:])
        width = packed.shared_width()
        if width is not None and int(packed.weights.max(initial=0)) * int(n.max()) < 2**63:
            return cls._of_one_width(packed, width, n, first, dtype, clamp_capacities)
        items, dims, entries = packed.weight_entries()
        limits = packed.capacities
        if clamp_capacities:
            if int(packed.weights.max(initial=0)) * int(n.max(initial=0)) < 2**53:  # float sums are exact
                totals = np.bincount(entries, weights=packed.weights, minlength=limits.size).astype(np.int64)
            else:
                totals = np.zeros(limits.size, dtype=object)
                np.add.at(totals, entries, packed.weights.astype(object))
            limits = np.minimum(limits, totals).astype(np.int64)
        capacities = np.zeros((k, 3), dtype=np.int64)
        capacities[np.repeat(np.arange(k), m), np.arange(limits.size) - np.repeat(packed.capacity_offsets[:-1], m)] = limits
        weights = np.zeros((int(n.sum()), 3), dtype=np.int64)
        weights[items, dims] = np.minimum(packed.weights, limits[entries] + 1)  # an item that cannot fit stays so
        profits = packed.profits.astype(dtype)
        states = (capacities + 1).prod(axis=1)
        return cls(weights.astype(np.uint32), profits, capacities.astype(np.uint32), n.astype(np.int64), first, states)

    @classmethod
    def _of_one_width(
        cls, packed: PackedProblems, width: int, n: np.ndarray, first: np.ndarray, dtype: np.dtype, clamp_capacities: bool
    ) -> Concatenated:
        """``of`` for a batch whose knapsacks all have ``width`` dimensions (weight sums below 2^63):
        the weights as (items, width) rows, no per-entry index arithmetic."""
        rows = packed.weights.reshape(-1, width)
        limits = packed.capacities.reshape(-1, width)
        if clamp_capacities:
            limits = np.minimum(limits, np.add.reduceat(rows, first, axis=0))
        capacities = np.zeros((len(n), 3), dtype=np.int64)
        capacities[:, :width] = limits
        weights = np.zeros((rows.shape[0], 3), dtype=np.int64)
        weights[:, :width] = np.minimum(rows, np.repeat(limits, n, axis=0) + 1)  # an item that cannot fit stays so
        states = (capacities + 1).prod(axis=1)
        return cls(
            weights.astype(np.uint32),
            packed.profits.astype(dtype),
            capacities.astype(np.uint32),
            n.astype(np.int64),
            first,
            states,
        )


@dataclass(frozen=True)
class DecisionLayout:
    """Where the decision bit of a state lives (the tiled layout of ``opencl/dp_states.h``)."""

    states: int
    local_size: int

    @property
    def tile_states(self) -> int:
        return 32 * self.local_size

    @property
    def tiles(self) -> int:
        return -(-self.states // self.tile_states)

    @property
    def words_per_row(self) -> int:
        return self.tiles * self.local_size

    @property
    def row_bytes(self) -> int:
        return 4 * self.words_per_row

    def word_of(self, state: int) -> int:
        """The word of a row holding ``state``'s bit (``decision_word``)."""
        return (state // self.tile_states) * self.local_size + state % self.local_size

    def bit_of(self, state: int) -> int:
        """The bit of that word (``decision_bit``)."""
        return (state // self.local_size) % 32

    def taken(self, row: np.ndarray, state: int) -> bool:
        """The decision bit of ``state`` in one row of words."""
        return bool((int(row[self.word_of(state)]) >> self.bit_of(state)) & 1)

    def unpack(self, words: np.ndarray) -> np.ndarray:
        """Boolean decisions of shape (rows, states) from words of shape (rows, words_per_row)."""
        rows = words.reshape(-1, self.tiles, self.local_size)
        bits = (rows[:, :, None, :] >> np.arange(32, dtype=np.uint32)[None, None, :, None]) & 1
        return bits.reshape(rows.shape[0], -1)[:, : self.states].astype(bool)
