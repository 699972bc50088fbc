"""The cluster bound: an upper bound for every state that sees which sums of the large weights exist
exactly, where the rounded relaxation (``relaxed.py``) sees them only to within a grain an item.

Items whose weights lie within ``spread`` of each other form a cluster; a cluster of two items or
more whose least weight B is large (``LARGE_SPREADS`` spreads or more) gives each of its items the
base B, and every other item the base 0 (Jooken et al.'s instances: a few clusters of large items
around C / 2^k and many light items). For any rate lam >= 0 and any state whose outside items O
(those of L still taken and those not yet added, as in ``relaxed.py``) have capacity ``rest`` left,

    max { p(x) : w(x) <= rest }  <=  lam * rest + sum over O of max(0, p_j - lam * w_j) for base 0
                                     + max { sum (p_j - lam * w_j) x_j : sum B_j x_j <= rest },

since p(x) = sum (p_j - lam w_j) x_j + lam w(x), w(x) <= rest and B_j <= w_j (the Lagrangian
relaxation of the weights above the bases, with the bases' capacity kept exact). The last maximum
is read from the Pareto list of (sum of bases S, value V) over the outside items with a base: V at
the largest S <= rest. The lists are those of a dynamic programme over the items in reverse order of
their levels (on the device, with dp-states' own merge and dominance), one kept every ``stride``
levels as the rounded relaxation keeps its rows; lam is the rate a/``DENOMINATOR`` whose bound of the
whole problem is lowest (the bound is convex in lam: a search over [0, the break item's ratio]).

Values are scaled by DENOMINATOR to stay integral: the bound is floor((V + a * rest + E) / D), with E
the light items' scaled sum, and every such sum must stay below 2^62 (``fits``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyopencl as cl

from clsolve.sdk import Device, Plan, Workspace, deadline

from .core import Core, Level
from .device import DeviceLists

#: Rates are a / DENOMINATOR.
DENOMINATOR = 2**12
#: A cluster's base counts only where its least weight is at least LARGE_SPREADS spreads; the spread
#: is the capacity / 2^SPREAD_BITS (Jooken et al.'s c = 1e10: about 1,200; their clusters are a few
#: hundred wide).
LARGE_SPREADS, SPREAD_BITS = 64, 23
#: Clusters must hold this many items on average (``Clusters.useful``).
MIN_SIZE = 8
#: Rates tried for the bound of the whole problem: steps of 1/RATE_STEPS of the break item's ratio.
RATE_STEPS = 4
#: The most states one run of the dynamic programme may make (merged lists summed) on a GPU and on
#: other devices: where the items form few clusters the lists explode, and the bound is left out.
WORK = {"gpu": 2**35, "other": 2**26}
#: A cluster's step runs on the host while the list times the cluster's items and one is at most this.
HOST_STEP = 2**18
#: The most lists kept (the stride between them is at least the levels / SNAPSHOTS).
SNAPSHOTS = 256


@dataclass
class Clusters:
    """Each item's base (0: none) and the spread that made them."""

    bases: np.ndarray
    spread: int
    count: int  # clusters with a base

    @classmethod
    def of(cls, weights: np.ndarray, capacity: int) -> Clusters:
        spread = capacity >> SPREAD_BITS
        bases = np.zeros(weights.size, dtype=np.int64)
        if not spread:  # capacities below 2^SPREAD_BITS: no cluster
            return cls(bases, spread, 0)
        order = np.argsort(weights, kind="stable")
        ascending = weights[order]
        start, count = 0, 0
        while start < order.size:
            least = int(ascending[start])
            end = int(np.searchsorted(ascending, least + spread, side="right"))
            if end - start >= 2 and least >= LARGE_SPREADS * spread:
                bases[order[start:end]] = least
                count += 1
            start = end
        return cls(bases, spread, count)

    @property
    def clustered(self) -> int:
        return int(np.count_nonzero(self.bases))

    def useful(self) -> bool:
        """Whether the clusters are few enough for short lists: MIN_SIZE items a cluster on average
        (weights spread evenly over a range make clusters of a few items: their lists would be the
        exact dynamic programme's)."""
        return self.count > 0 and self.clustered >= MIN_SIZE * self.count


def fits(core: Core) -> bool:
    """Whether every scaled sum of the bound stays below 2^62."""
    total = int(core.profits.sum()) + int(core.weights.sum()) + core.capacity
    return core.capacity >> SPREAD_BITS > 0 and total * DENOMINATOR < 2**62


@dataclass
class Snapshot:
    """The Pareto list (S, V) over the based outside items of a set of levels, and the light items'
    scaled sum E."""

    S: cl.Buffer
    V: cl.Buffer
    count: int
    extra: int


class ClusterLists:
    """The lists for the levels after ``core``'s current one (at level 0: every item) at rate
    ``rate`` / DENOMINATOR; ``None`` from ``make`` where a list would pass ``slots`` states."""

    def __init__(
        self, device: Device, core: Core, clusters: Clusters, rate: int, stride: int, snapshots: list[Snapshot], work: Workspace
    ):
        """``work``: the workspace that made the snapshots (and takes them back)."""
        self.device, self.clusters, self.rate, self.work = device, clusters, rate, work
        self.first, self.stride, self.snapshots = len(core.levels), stride, snapshots
        self.runs, self.made = 0, 0  # what making them took: runs of the dynamic programme, states made

    @classmethod
    def make(
        cls, device: Device, local_size: int, core: Core, clusters: Clusters, slots: int, memory: int, poison: bool = False
    ) -> ClusterLists | None:
        """The lists at the rate whose bound of the whole problem is lowest, within ``slots`` states a
        list and ``memory`` bytes of kept lists (the stride between them grows to fit)."""
        builder = _Builder(device, local_size, core, clusters, slots, poison, memory)
        best = builder.best_rate(memory)
        if best is None:
            return None
        items = core.upcoming()
        stride = max(1, -(-len(items) // SNAPSHOTS))
        kept = builder.run(items, best, stride, memory)
        if kept is None:
            return None
        made = cls(device, core, clusters, best, builder.stride, kept, builder.kept)
        made.runs, made.made = builder.runs, builder.made
        return made

    @property
    def nbytes(self) -> int:
        return sum(16 * s.count for s in self.snapshots)

    def arguments(self, number: int, core: Core) -> dict[str, object]:
        """The keep kernel's arguments at level ``number`` of ``core`` (as ``RelaxedRows.arguments``)."""
        index = min((number - self.first) // self.stride, len(self.snapshots) - 1)
        snapshot = self.snapshots[index]
        wl, pl = core.taken()
        return {
            "cS": snapshot.S,
            "cV": snapshot.V,
            "ccount": np.uint32(snapshot.count),
            "crate": np.int64(self.rate),
            "cextra": np.int64(snapshot.extra),
            "cdenominator": np.int64(DENOMINATOR),
            "cwl": np.int64(wl),
            "cpl": np.int64(pl),
        }

    def root_bound(self, core: Core) -> int:
        """The bound of the whole problem (``core`` at level 0, the lists made there)."""
        return _root_value(self.device, self.snapshots[0], self.rate, core.capacity)

    def release(self) -> None:
        _release(self.work, self.snapshots)
        self.snapshots = []


class _Builder:
    """The Pareto lists' dynamic programme on the device, with dp-states' lists: an item of base B and
    scaled value v > 0 adds (B, v) to every state (no bound prunes; dominance does)."""

    def __init__(self, device: Device, local_size: int, core: Core, clusters: Clusters, slots: int, poison: bool, memory: int):
        """Lists of at most ``slots`` states; kept snapshots of at most ``memory`` bytes, and one more
        made before the stride grows (``run``)."""
        self.device, self.local_size, self.core, self.slots, self.poison = device, local_size, core, slots, poison
        self.kept = Workspace(device, Plan("dp-states", {"snapshots": memory + 16 * max(slots, HOST_STEP)}))
        self.bases = clusters.bases
        self.runs, self.made = 0, 0  # runs of the dynamic programme and the states they made
        self.stride = 1  # that of the last run

    def values(self, rate: int) -> np.ndarray:
        return self.core.profits * DENOMINATOR - rate * self.core.weights

    def best_rate(self, memory: int) -> int | None:
        """The rate (numerator) whose bound of the whole problem is lowest of 0, 1/RATE_STEPS, 2/RATE_STEPS
        ... of the break item's ratio (the bound is convex in the rate: the walk stops where it rises)
        (None: a list too long, or longer than ``memory`` holds)."""
        core = self.core
        b = min(core.breaking, core.n - 1)
        # rate * C stays below the scaled profits' sum where there is a break item (the items up to it
        # have at least its ratio and weigh more than C); without one (every item fits), rate 0 alone
        top = int(core.profits[b]) * DENOMINATOR // max(int(core.weights[b]), 1) if core.breaking < core.n else 0
        by_base = sorted(range(core.n), key=lambda j: -int(self.bases[j]))  # the shortest lists
        best: tuple[int, int] | None = None  # (bound, rate)
        for rate in sorted({top * step // RATE_STEPS for step in range(RATE_STEPS)}):  # each rate once
            kept = self.run(by_base, rate, core.n + 1, memory)
            if kept is None:
                return None
            found = (_root_value(self.device, kept[0], rate, core.capacity), rate)
            _release(self.kept, kept)
            if best is not None and found[0] >= best[0]:
                break
            best = found
        assert best is not None
        return best[1]

    def run(self, items: list[int], rate: int, stride: int, memory: int | None) -> list[Snapshot] | None:
        """The lists over items[i:] for every i that is a multiple of the stride, which starts at
        ``stride`` and doubles (every other list released) while the kept lists pass ``memory`` bytes
        (None: a list passed the slots or WORK states made, one list alone passes ``memory``, or the
        time limit was reached)."""
        values = self.values(rate)
        state = _State(self, values)
        kept: dict[int, Snapshot] = {}
        extra, room, position = 0, True, len(items)
        while room and (position > 0 or not kept):
            first = max(0, (position - 1) // stride * stride)
            segment = [j for j in items[first:position] if values[j] > 0]
            extra += sum(int(values[j]) for j in segment if self.bases[j] == 0)
            room = state.add([j for j in segment if self.bases[j]])
            if room:
                kept[first] = state.snapshot(extra)
            position = first
            while room and memory is not None and sum(16 * k.count for k in kept.values()) > memory:
                stride *= 2
                room = stride < 2 * max(len(items), 1)
                _release(self.kept, [kept.pop(i) for i in list(kept) if i % stride])
        state.release()
        self.runs, self.made = self.runs + 1, self.made + state.made
        if not room:
            _release(self.kept, kept.values())
            return None
        self.stride = stride
        return [kept[i] for i in sorted(kept)]


class _State:
    """The list of one run: NumPy arrays on the host while a cluster's step is small (all the
    cluster's items at once: the shifted copies S + k B, V + the k best values), then dp-states'
    lists on the device (an item a level)."""

    def __init__(self, builder: _Builder, values: np.ndarray):
        self.builder, self.values = builder, values
        self.S, self.V = np.zeros(1, np.int64), np.zeros(1, np.int64)
        self.lists: DeviceLists | None = None
        self.made = 0
        self.work = WORK["gpu" if builder.device.is_gpu else "other"]
        core = builder.core
        self.based = Core(np.arange(core.n), builder.bases, values, core.capacity, 0, next_add=core.n)

    def add(self, items: list[int]) -> bool:
        """The items (each with a base and a positive value), cluster by cluster; False: no room, or
        the time limit reached."""
        bases = self.builder.bases
        for base in sorted({int(bases[j]) for j in items}, reverse=True):
            if deadline.expired():
                return False
            cluster = sorted((int(self.values[j]) for j in items if bases[j] == base), reverse=True)
            if self.lists is None and self.S.size * (len(cluster) + 1) <= HOST_STEP:
                self.made += self.S.size * (len(cluster) + 1)
                self.S, self.V = _host_step(self.S, self.V, base, cluster, self.builder.core.capacity)
                continue
            lists = self._device()
            for j in (j for j in items if bases[j] == base):
                self.made += 2 * lists.count
                if 2 * lists.count > self.builder.slots or self.made > self.work or deadline.expired():
                    return False
                lists.level(self.based, Level(j, True), -1, reset=False, bit=0)
        return True

    def _device(self) -> DeviceLists:
        if self.lists is None:
            builder = self.builder
            self.lists = DeviceLists(builder.device, builder.local_size, builder.slots, builder.poison)
            self.lists.upload((self.S, self.V, np.zeros(self.S.size, np.uint64), np.zeros(self.S.size, np.uint32)))
        return self.lists

    def snapshot(self, extra: int) -> Snapshot:
        queue, work = self.builder.device.queue, self.builder.kept
        if self.lists is None:
            count = int(self.S.size)
            S, V = (work.upload("snapshots", array) for array in (self.S, self.V))
            return Snapshot(S, V, count, extra)
        count = self.lists.count
        S, V = (work.empty("snapshots", 8 * count) for _ in range(2))
        cl.enqueue_copy(queue, S, self.lists.lists[0][0], byte_count=8 * count)
        cl.enqueue_copy(queue, V, self.lists.lists[0][1], byte_count=8 * count)
        return Snapshot(S, V, count, extra)

    def release(self) -> None:
        if self.lists is not None:
            self.lists.release()


def _host_step(S: np.ndarray, V: np.ndarray, base: int, values: list[int], capacity: int) -> tuple[np.ndarray, np.ndarray]:
    """The Pareto list after a cluster of items of ``base`` and ``values`` (largest first): k of them
    add k * base and the k largest values."""
    tops = np.concatenate([[0], np.cumsum(np.array(values, dtype=np.int64))])
    copies = [k for k in range(tops.size) if int(S[0]) + k * base <= capacity]
    S2 = np.concatenate([S + k * base for k in copies])
    V2 = np.concatenate([V + tops[k] for k in copies])
    inside = np.less_equal(S2, capacity)
    S2, V2 = S2[inside], V2[inside]
    order = np.lexsort((-V2, S2))
    S2, V2 = S2[order], V2[order]
    keep = np.ones(S2.size, dtype=bool)
    keep[1:] = V2[1:] > np.maximum.accumulate(V2)[:-1]
    return S2[keep], V2[keep]


def _root_value(device: Device, snapshot: Snapshot, rate: int, capacity: int) -> int:
    """The bound of the whole problem from the list over every item: its last state is the heaviest
    (at most the capacity: heavier ones are never kept) and the most valuable."""
    V = np.empty(1, np.int64)
    cl.enqueue_copy(device.queue, V, snapshot.V, src_offset=8 * (snapshot.count - 1))
    return (int(V[0]) + rate * capacity + snapshot.extra) // DENOMINATOR


def _release(work: Workspace, snapshots) -> None:
    for snapshot in snapshots:
        work.release("snapshots", snapshot.S, snapshot.V)
