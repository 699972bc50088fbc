"""Host side of ``bnb`` (kernels in ``opencl/bnb.cl``): breadth-first branch and bound for the 0-1
knapsack, paper 003 (Lalami and El Baz).

Items are sorted by decreasing profit/weight. The list of nodes of step k holds every node still
promising after items 0..k-1 were decided; one step branches every node on item k, bounds the new
sons, labels the nodes whose upper bound cannot beat the best lower bound, and compacts the list.
While the list is short the host runs the step itself in NumPy (``host_threshold``); above it the
list lives on the device and one step is two kernels (branch + bound + label + per-work-group best
lower bound and count, then compaction) plus one small read of the per-group results.

Items: each compaction records where every kept node came from (its index in the previous list, and
whether it is the x_k = 1 or the x_k = 0 son). When a son's lower bound beats the best one, the host
walks these records back to the root and completes the path with the son's greedy packing: the
incumbent is always a full item vector, checked by the engine like every solution.

Memory: the list may not pass ``max_nodes`` (default: what the device's memory holds). A step that
would pass it is cut into chunks of the list, each explored to the end before the next (depth first
over chunks, breadth first inside one), which keeps the search exact. On the host, the lists, the
chunks waiting on the stack and the origin records live within ``memory_limit`` bytes (default: half
of the memory available when the solve starts).

Anytime: where the engine's time limit (``clsolve.runtime.deadline``) passes or the host budget is reached,
the search stops at the next step boundary and returns the incumbent (a full item vector whose value
is its items' profit), ``optimal = False``, and as ``bound`` the largest upper bound of any node
still open; a note says which limit stopped it. A step cannot be interrupted, so under a time limit
the search predicts each step's cost (the launches, and the transfers and sorts that follow them)
from the steps before it (``clsolve.runtime.deadline.Rate``) and stops before one that would end past the
limit; the device list is kept short enough that downloading it to split it fits a quarter of the
margin, and the largest upper bound of a device list comes with each step's small read.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import pyopencl as cl

from clsolve.dp.fixing import Fixing, fix, sort_by_ratio
from clsolve.dp.presolve import Reduction, reduction
from clsolve.dp.table import work_group_size
from clsolve.errors import TimeLimitError
from clsolve.plugin import cache, options
from clsolve.plugin.contract import DeviceSolver
from clsolve.plugin.plan import DEVICE_MEMORY_SHARE, Plan
from clsolve.problems import Knapsack
from clsolve.runtime import deadline, kernels, memory
from clsolve.runtime.devices import Device
from clsolve.solution import Solution, Timings

#: The kernels (paper 003: labelling by bounds, then compaction).
SOURCE = kernels.builtin("bnb.cl")

#: Lists shorter than this are branched by the host (NumPy); the paper switches at 192 nodes.
#: Measured with ``clsolve bench bnb`` on the H100 (ci/results/bench-bnb-h100.json, the
#: host_threshold sweep over ten n = 500 correlated instances): a device step costs about 200 us
#: (two launches and one synchronizing read), a host step over the short lists that the dominance
#: filter leaves about 130 us, so the host keeps lists of up to a few thousand nodes.
HOST_THRESHOLD = 4096
#: Device bytes per node of the list: two buffer sets of (W, P, U, L: 8 bytes, s: 4 bytes) with room
#: for both sons (2 slots), the keep flags (2 bytes) and the origin records (2 x 4 bytes).
NODE_BYTES = 2 * 2 * 36 + 2 + 8
#: Items the host's greedy lower bound visits at most per step (the device's visits all).
HOST_GREEDY_ITEMS = 64
#: Device lists up to this many nodes are filtered for dominance on the host after each step
#: (36 bytes a node each way).
DOMINANCE_MAX_NODES = 2**20
#: The smallest ``max_nodes`` taken: a list cut into chunks of fewer nodes is explored almost node by
#: node, each chunk paying a step's fixed costs (a search of hours on instances a DP solves at once).
MIN_NODES = 256
#: Host bytes per node of a list (W, P, S, U, L as int64).
HOST_NODE_BYTES = 40
#: How often the host bytes of the search are counted (the lists grow at most a few hundred MB/s).
BUDGET_CHECK_SECONDS = 0.02
#: Model of one device step (two launches, one small read, one small write) for ``auto``.
STEP_SECONDS = {"gpu": 6e-5, "other": 2e-4}
#: Bytes of one node on the wire (W, P, U, L: 8 bytes, s: 4 bytes).
WIRE_NODE_BYTES = 36
#: Seconds per byte of first touching fresh host memory (page faults): about 0.4 GB/s on a 2-core
#: virtual machine, the slowest host measured (a bare host is several times faster).
HOST_TOUCH_SECONDS = 3e-9
#: First guesses of what the uninterruptible parts of a step cost (overhead s, s per unit); each is
#: replaced by measurements as the search runs (``clsolve.runtime.deadline.Rate``).
FIRST_RATES = {"device step": (1e-4, 1e-9), "device step (cpu)": (1e-4, 2e-8), "host step": (1e-4, 3e-7),
               "filter": (1e-4, 3e-7), "transfer": (1e-4, 1e-9)}
_U32 = 0xFFFFFFFF


@dataclass
class Items:
    """The instance as the search sees it: items sorted by decreasing profit/weight."""

    weights: np.ndarray      # int64, sorted
    profits: np.ndarray      # int64, sorted
    order: np.ndarray        # original index of each sorted item
    suffix_min: np.ndarray   # min(weights[i:]) (last entry: a sentinel above any capacity)
    capacity: int
    prefix_weights: np.ndarray | None = None   # sums of weights[:i] (None when they pass int64)
    prefix_profits: np.ndarray | None = None
    small: bool = False                        # capacity x largest profit < 2^63: int64 bounds are exact
    dominance: bool = True

    @property
    def n(self) -> int:
        return int(self.weights.size)


@dataclass
class Frontier:
    """A list of nodes of one step (host arrays), a slice [offset, offset + q) of the list that step
    produced, with the origin records of the steps before it."""

    step: int
    nodes: tuple[np.ndarray, ...]         # W, P, S, U, L (int64)
    offset: int = 0
    records: tuple | list = ()           # per earlier step: (q, origin array, offset)
    bound: int = 0                       # an upper bound on every node's U


@dataclass
class Search:
    """What one search has found so far."""

    best: int
    selected: np.ndarray                 # in sorted order
    nodes: int = 0                        # nodes branched
    host_steps: int = 0
    device_steps: int = 0
    chunks: int = 0
    host_seconds: float = 0.0
    device_seconds: float = 0.0
    stopped: str = ""                    # why the search stopped early ("" while it runs to the end)
    open_bound: int = 0


class BranchAndBoundSolver(DeviceSolver):
    name = "bnb"
    summary = "breadth-first branch and bound for KP01 on an OpenCL device (paper 003), any capacity up to 2^62, with items"

    def __init__(self, max_nodes: int | None = None, host_threshold: int = HOST_THRESHOLD,
                 local_size: int | None = None, presolve: bool = True, dominance: bool = True,
                 dominance_max_nodes: int = DOMINANCE_MAX_NODES, fixing: bool = True,
                 memory_limit: int | None = None):
        """``max_nodes`` caps the list (default: what the device holds; at least ``MIN_NODES``, below
        which the chunks of the list would be explored almost node by node), beyond which the list is
        explored in chunks; ``memory_limit`` caps the host bytes of lists and records (default: half of
        what is available); ``host_threshold``: lists shorter than this are
        branched on the host; ``local_size`` overrides the work-group size; ``presolve`` applies
        ``clsolve.dp.presolve`` first (dropping items that cannot fit, dividing by common divisors).
        ``dominance`` removes, after each step, every node another node dominates (decided weight no
        larger and decided profit no smaller: the same items remain for both, so the dominated one
        cannot lead further); the host does it, so device lists are filtered while they hold at most
        ``dominance_max_nodes`` nodes. ``fixing`` first fixes every item the bounds decide
        (``clsolve.dp.fixing``, as MT2 does) and searches only the core that is left."""
        self.max_nodes = options.integer("max_nodes", max_nodes, minimum=MIN_NODES, none=True)
        self.host_threshold = options.integer("host_threshold", host_threshold, minimum=0)
        self.local_size = options.power_of_two("local_size", local_size)
        self.presolve = options.flag("presolve", presolve)
        self.dominance = options.flag("dominance", dominance)
        self.dominance_max_nodes = options.integer("dominance_max_nodes", dominance_max_nodes, minimum=0)
        self.fixing = options.flag("fixing", fixing)
        self.memory_limit = options.integer("memory_limit", memory_limit, minimum=2**20, none=True)

    # -- planning ----------------------------------------------------------------------------
    def accepts(self, problem) -> str | None:
        if not isinstance(problem, Knapsack):
            return f"{self.name} solves knapsack problems only"
        reduced = reduction(problem, self.presolve).problem
        if reduced is not None and reduced.m != 1:
            return f"{self.name} solves the 0-1 knapsack with one capacity (m = 1); this problem has m = {problem.m}"
        return None

    def _local_size(self, device: Device) -> int:
        return work_group_size(device.max_work_group_size, self.local_size)

    def _node_limit(self, device: Device, items: int) -> int:
        """The longest list the device may hold beside the items (and ``max_nodes``, when smaller)."""
        limit = (int(device.global_memory * DEVICE_MEMORY_SHARE) - 24 * items - 2**20) // NODE_BYTES
        limit = min(limit, device.max_allocation // 16, 2**30)
        return max(2, min(limit, self.max_nodes or limit))

    def _stages(self, problem: Knapsack) -> tuple[Reduction, Fixing | None, Reduction | None]:
        """Presolve, then (m = 1, ``fixing``) variable fixing by bounds, then presolve of the core. The
        search explores the last stage's problem; None where a stage left nothing to decide."""
        first = reduction(problem, self.presolve)
        if first.problem is None or not self.fixing or first.problem.m != 1:
            return first, None, None
        fixed = fix(first.problem)
        if fixed.core is None:
            return first, fixed, None
        if not fixed.changed:
            return first, None, None
        return first, fixed, reduction(fixed.core, self.presolve)

    def _searched(self, problem: Knapsack) -> Knapsack | None:
        first, fixed, core = self._stages(problem)
        if fixed is None:
            return first.problem
        return None if core is None else core.problem

    def plan(self, problem: Knapsack, device: Device) -> Plan:
        reduced = self._searched(problem)
        n = 0 if reduced is None else reduced.n
        limit = self._node_limit(device, n)
        kind = "gpu" if device.is_gpu else "other"
        # the list is allocated for min(limit, 2^n) nodes; the tree's real size is unknown before the search
        nodes = min(limit, 2 ** min(n, 40))
        # auto's estimate: one step per item; unless the root's bounds already meet, the tree's size is
        # unknown, so the estimate carries a margin of 10 (a DP must look 10 times dearer to lose)
        gap = 0
        if reduced is not None:
            items = self._items(reduced)
            W, P, S, U, L = self._root(items)
            gap = int(U[0] - L[0])
        buffers = {"items": 24 * n, "keep": 2 * nodes, "origin": 8 * nodes}
        for copy in "ab":
            for field_name, size in (("W", 8), ("P", 8), ("s", 4), ("U", 8), ("L", 8)):
                buffers[f"{field_name}_{copy}"] = 2 * nodes * size
        return Plan(solver=self.name,
                    device_buffers=buffers,
                    cell_updates=n, launches=2 * n,
                    seconds=n * STEP_SECONDS[kind] * (10 if gap else 1) + 0.001,
                    details={"max_nodes": limit, "root_gap": gap, "host_threshold": self.host_threshold,
                             "local_size": self._local_size(device), "host_memory_limit": self._budget(),
                             "note": "cell_updates counts branching steps (one per item); the nodes "
                                     "explored depend on the instance"})

    # -- solving -----------------------------------------------------------------------------
    def solve(self, problem: Knapsack, device: Device, plan: Plan) -> Solution:
        first, fixed, core = self._stages(problem)
        if first.problem is None:
            return first.trivial(self.name, device.label)
        if fixed is None:
            return first.expand(self._solve(first.problem, device))
        if core is None:
            return first.expand(fixed.trivial(self.name, device.label))
        inner = core.trivial(self.name, device.label) if core.problem is None else \
            core.expand(self._solve(core.problem, device))
        return first.expand(fixed.expand(inner))

    def _items(self, problem: Knapsack) -> Items:
        """The sorted items (once per problem and dominance setting: ``plan`` and ``solve`` both need them)."""
        return cache.per_problem(problem, ("bnb items", self.dominance), lambda: self._sorted_items(problem))

    def _sorted_items(self, problem: Knapsack) -> Items:
        profits, weights = problem.profits, problem.weights[:, 0]
        order = sort_by_ratio(profits, weights)
        w, p = weights[order].astype(np.int64), profits[order].astype(np.int64)
        suffix = np.minimum.accumulate(w[::-1])[::-1]
        suffix_min = np.append(suffix, np.int64(2**63 - 1))
        items = Items(w, p, order, suffix_min, int(problem.capacities[0]), dominance=self.dominance)
        if sum(int(x) for x in w) < 2**63:
            items.prefix_weights = np.concatenate([[0], np.cumsum(w)])
            items.prefix_profits = np.concatenate([[0], np.cumsum(p)])  # the profit sum is < 2^63
        items.small = items.n > 0 and items.capacity * int(p.max()) < 2**63
        return items

    def _budget(self) -> int:
        return self.memory_limit if self.memory_limit is not None else memory.default_budget()

    def _solve(self, problem: Knapsack, device: Device) -> Solution:
        start = time.perf_counter()
        items = self._items(problem)
        root = self._root(items)
        selected = self._completion(items, np.zeros(0, bool), int(root[0][0]), int(root[2][0]))
        # the incumbent's value is its items' profit: the full greedy completion may pack more than the
        # root's lower bound, whose host greedy visits at most HOST_GREEDY_ITEMS items
        search = Search(best=max(int(root[4][0]), int(items.profits[selected].sum())), selected=selected)
        engine = _DeviceSteps(self, items, device, self._budget())
        stack = [Frontier(0, root, bound=int(root[3][0]))]
        try:
            while stack and not search.stopped:
                self._explore(stack.pop(), stack, items, search, engine, deadline.current())
        finally:
            device.queue.finish()  # the last origin records may still be in flight
        if search.stopped:
            search.open_bound = max([f.bound for f in stack] + [search.open_bound, search.best])
        selected = np.zeros(items.n, dtype=bool)
        selected[items.order[search.selected]] = True
        total = time.perf_counter() - start
        timings = Timings(upload=engine.upload_seconds, kernels=engine.kernel_seconds,
                          download=engine.download_seconds,
                          host=total - engine.upload_seconds - engine.kernel_seconds - engine.download_seconds)
        notes = [f"{search.nodes} nodes branched in {search.host_steps} host and {search.device_steps} device steps "
                 f"(host threshold {self.host_threshold}); {search.host_seconds * 1e3:.1f} ms on the host, "
                 f"{search.device_seconds * 1e3:.1f} ms in device steps"]
        if search.chunks:
            notes.append(f"the list passed max_nodes = {engine.limit}: explored in {search.chunks} extra chunk(s)")
        if search.stopped:
            notes.append(f"{search.stopped}: best found {search.best}, open upper bound "
                         f"{search.open_bound} (gap {search.open_bound - search.best})")
        stats = {"nodes": search.nodes, "host_steps": search.host_steps, "device_steps": search.device_steps,
                 "chunks": search.chunks, "host_seconds": search.host_seconds,
                 "device_seconds": search.device_seconds}
        return Solution(value=search.best, selected=selected, optimal=not search.stopped, solver=self.name,
                        device=device.label, timings=timings, notes=notes,
                        bound=search.open_bound if search.stopped else None, stats=stats)

    # -- the search --------------------------------------------------------------------------
    def _root(self, items: Items) -> tuple[np.ndarray, ...]:
        zero = np.zeros(1, dtype=np.int64)
        W, P, S = _extend(items, zero.copy(), zero.copy(), zero.copy())
        return W, P, S, _upper(items, W, P, S), _lower(items, W, P, S)

    def _completion(self, items: Items, decided: np.ndarray, W: int, S: int) -> np.ndarray:
        """Sorted indices of the items of a node's greedy solution: its path (``decided``: items
        0..k), then items k+1..S-1 (the greedy prefix), then the greedy packing after S (the items
        its lower bound counts)."""
        chosen: list[int] = np.flatnonzero(decided).tolist()
        chosen.extend(range(decided.size, min(S, items.n)))
        rest = items.capacity - W
        for i in range(S + 1, items.n):
            if items.suffix_min[i] > rest:
                break
            if items.weights[i] <= rest:
                rest -= int(items.weights[i])
                chosen.append(i)
        return np.asarray(chosen, dtype=np.int64)

    def _path(self, records: tuple | list, step: int, index: int) -> np.ndarray:
        """x_0..x_{step-1} of node ``index`` of the list step ``step`` produced."""
        bits = np.zeros(step, dtype=bool)
        for level in range(step - 1, -1, -1):
            q, origin, offset = records[level]
            came = int(origin[index])
            bits[level] = came < q
            index = offset + came % q
        return bits

    def _improve(self, items: Items, search: Search, frontier: Frontier, step: int, son: int, value: int,
                 W: int, S: int) -> None:
        """Record son ``son`` (x_step = 0 of node ``son`` of ``frontier``) as the new incumbent."""
        decided = np.append(self._path(frontier.records, step, frontier.offset + son), False)
        selected = self._completion(items, decided, W, S)
        # the full greedy completion packs at least what the son's lower bound counted
        search.selected, search.best = selected, max(value, int(items.profits[selected].sum()))

    def _explore(self, frontier: Frontier, stack: list, items: Items, search: Search,
                 engine: _DeviceSteps, limit: deadline.Deadline) -> None:
        """Breadth first from ``frontier`` to the last item; chunks beyond the node limit go on the stack."""
        nodes, offset, step = frontier.nodes, frontier.offset, frontier.step
        records = list(frontier.records)  # appended once per step; frontiers pushed later keep a copy
        on_device = False
        filtered = 0  # list size after the last dominance filter of a device list
        while step < items.n:
            count = engine.count if on_device else nodes[0].size
            if count == 0:
                return
            device_path = on_device or count >= self.host_threshold
            engine.fit_limit(limit)
            stop = _stop_reason(limit, engine, records, stack, nodes, on_device,
                                engine.predict(count, on_device, device_path))
            if not stop and device_path and not on_device:
                stop = engine.upload_within(nodes)
                on_device = not stop
            if stop:
                search.stopped = stop
                top = engine.top if on_device else int(nodes[3].max())
                search.open_bound = max(search.open_bound, top)
                return
            search.nodes += count
            here = Frontier(step, () if on_device else nodes, offset, records)
            if on_device:
                origin, filtered = self._device_step(items, search, engine, here, filtered, limit)
            else:
                nodes, origin = self._host_step(items, search, engine, here)
            records.append((count, origin, offset))
            offset, step = 0, step + 1
            if on_device and (engine.count > engine.limit or 0 < engine.count < self.host_threshold // 4):
                nodes, on_device = engine.download(), False
            if not on_device:
                nodes = self._split(nodes, step, records, stack, engine.limit, search)

    def _device_step(self, items: Items, search: Search, engine: _DeviceSteps, here: Frontier,
                     filtered: int, limit: deadline.Deadline) -> tuple[np.ndarray, int]:
        """Branch the device list on item ``here.step``; filter it for dominance when it has doubled
        since the last filter (amortized: the transfers and the sort cost at most about twice the
        list's own growth) and the filter fits in the time left. Returns the origin records and the
        size at the last filter."""
        began = time.perf_counter()
        improved, origin = engine.step(here.step, search.best)
        search.device_seconds += time.perf_counter() - began
        search.device_steps += 1
        if improved is not None:
            value, son, W, S = improved
            self._improve(items, search, here, here.step, son, value, W, S)
        kept = engine.count
        if self._filters(items, kept) and kept >= 2 * filtered and limit.allows(engine.filter_seconds(kept)):
            survivors = engine.filter(items, here.step + 1)
            if survivors is not None:
                origin = origin[survivors]
            filtered = max(engine.count, 64)
        return origin, filtered

    def _host_step(self, items: Items, search: Search, engine: _DeviceSteps,
                   here: Frontier) -> tuple[tuple[np.ndarray, ...], np.ndarray]:
        """Branch the host list on item ``here.step`` (NumPy); returns the new list and its origins."""
        began = time.perf_counter()
        nodes, origin, improved = _host_step(items, here.nodes, here.step, search.best)
        elapsed = time.perf_counter() - began
        engine.rates["host step"].observe(here.nodes[0].size, elapsed)
        search.host_seconds += elapsed
        search.host_steps += 1
        if improved is not None:
            value, son, W, S = improved
            self._improve(items, search, here, here.step, son, value, W, S)
        return nodes, origin

    def _filters(self, items: Items, size: int) -> bool:
        """Whether a device list of ``size`` nodes is filtered for dominance."""
        return items.dominance and items.prefix_weights is not None and 1 < size <= self.dominance_max_nodes

    def _split(self, nodes, step, records, stack, size, search) -> tuple[np.ndarray, ...]:
        """Keep the first ``size`` nodes; push the rest as frontiers (explored later, depth first)."""
        total = nodes[0].size
        if total <= size:
            return nodes
        bound = int(nodes[3].max())
        for start in range(((total - 1) // size) * size, 0, -size):
            part = tuple(a[start:start + size] for a in nodes)
            stack.append(Frontier(step, part, start, tuple(records), bound))
            search.chunks += 1
        return tuple(a[:size] for a in nodes)


def _held_bytes(records: list, stack: list, nodes, on_device: bool) -> int:
    """Host bytes of the search: origin records, the chunks on the stack, the list (when on the host).
    Records shared by several frontiers are counted once."""
    arrays = {id(origin): origin.nbytes for _, origin, _ in records}
    for frontier in stack:
        arrays.update((id(origin), origin.nbytes) for _, origin, _ in frontier.records)
        arrays.update((id(a), a.nbytes) for a in frontier.nodes)
    if not on_device:
        arrays.update((id(a), a.nbytes) for a in nodes)
    return sum(arrays.values())


def _stop_reason(limit: deadline.Deadline, engine: _DeviceSteps, records: list, stack: list, nodes,
                 on_device: bool, predicted: float) -> str:
    """Why the search must stop before the next step, predicted to take ``predicted`` seconds ("" to
    go on)."""
    if limit.expired():
        return f"time limit of {limit.seconds:g} s reached"
    if not limit.allows(predicted):
        return (f"time limit of {limit.seconds:g} s reached (the next step, predicted to take "
                f"{predicted:.3f} s, would end past it)")
    now = time.perf_counter()
    if now < engine.next_count:  # counting walks every record: at most every BUDGET_CHECK_SECONDS
        return ""
    held = _held_bytes(records, stack, nodes, on_device)
    engine.next_count = time.perf_counter() + max(BUDGET_CHECK_SECONDS, 10 * (time.perf_counter() - now))
    if held > engine.budget:
        return (f"host memory budget of {memory.size(engine.budget)} reached ({memory.size(held)} of lists and "
                f"records; raise memory_limit to search further)")
    return ""


# -- one step on the host (NumPy), the same arithmetic as opencl/bnb.cl ------------------------------
def _extend(items: Items, W: np.ndarray, P: np.ndarray, S: np.ndarray):
    n, w, p, c = items.n, items.weights, items.profits, items.capacity
    if items.prefix_weights is not None:  # items S, S+1, .. fit one after another exactly while their sum does
        prefix = items.prefix_weights
        end = np.searchsorted(prefix, c - W + prefix[S], side="right") - 1
        profits = items.prefix_profits
        assert profits is not None  # set together with prefix_weights
        return W + (prefix[end] - prefix[S]), P + (profits[end] - profits[S]), end
    while True:
        at = np.minimum(S, n - 1)
        more = (n > S) & (w[at] <= c - W)
        if not more.any():
            return W, P, S
        W = W + np.where(more, w[at], 0)
        P = P + np.where(more, p[at], 0)
        S = S + more


def _upper(items: Items, W: np.ndarray, P: np.ndarray, S: np.ndarray) -> np.ndarray:
    """U = P + floor((c - W) p_s / w_s) (see ``fractional`` in opencl/bnb.cl)."""
    n = items.n
    at = np.minimum(S, n - 1)
    if items.small:  # r * p_s < capacity * max(p) < 2^63: exact in int64
        return np.where(n > S, P + (items.capacity - W) * items.profits[at] // items.weights[at], P)
    r = (items.capacity - W).astype(np.uint64)
    ps, ws = items.profits[at].astype(np.uint64), items.weights[at].astype(np.uint64)
    small = (r <= _U32) & (ps <= _U32)
    exact = (np.where(small, r, 0) * np.where(small, ps, 0)) // ws
    approx = (r.astype(np.float64) * ps.astype(np.float64) / ws.astype(np.float64) * (1.0 + 1e-15))
    approx = np.minimum(np.minimum(approx, 2.0**63).astype(np.uint64) + 1, ps)
    fraction = np.where(small, exact, approx).astype(np.int64)
    return np.where(n > S, P + fraction, P)


def _lower(items: Items, W: np.ndarray, P: np.ndarray, S: np.ndarray) -> np.ndarray:
    """L = P + the greedy packing after S (``lower_bound`` in opencl/bnb.cl), vectorized over the
    nodes; only items light enough for some node's residual capacity are visited, and that set is
    filtered again as the residuals shrink."""
    w, p = items.weights, items.profits
    rest, L = items.capacity - W, P.copy()
    first = int(S.min()) + 1
    if first >= items.n or items.suffix_min[first] > rest.max():
        return L  # nothing after the slack items fits any node (correlated instances: the usual case)
    # the host visits at most HOST_GREEDY_ITEMS items that could fit (a shorter greedy still packs a
    # feasible set, so L stays a valid lower bound; the incumbent's own completion is the full greedy)
    candidates = first + np.flatnonzero(w[first:] <= rest.max())[:HOST_GREEDY_ITEMS]
    while candidates.size:
        limit = int(rest.max())
        for position, i in enumerate(candidates.tolist()):
            take = (i > S) & (w[i] <= rest)
            rest = rest - np.where(take, w[i], 0)
            L = L + np.where(take, p[i], 0)
            if take.any() and position % 16 == 15 and int(rest.max()) < limit:
                candidates = candidates[position + 1:]
                candidates = candidates[w[candidates] <= rest.max()]
                break
        else:
            break
    return L


def undominated(items: Items, nodes, step: int) -> np.ndarray:
    """Indices of the nodes of step ``step`` no other node dominates: a node's decided weight and
    profit (items 0..step-1) are W and P less its greedy prefix step..s-1; sorted by weight (then by
    profit, descending), a node survives when its profit beats every lighter or equal node's."""
    W, P, S = nodes[0], nodes[1], nodes[2]
    if W.size < 2:
        return np.arange(W.size)
    prefix_w, prefix_p = items.prefix_weights, items.prefix_profits
    assert prefix_w is not None and prefix_p is not None  # the dominance filter runs only where they exist
    weight = W - (prefix_w[S] - prefix_w[step])
    profit = P - (prefix_p[S] - prefix_p[step])
    order = np.lexsort((-profit, weight))
    ranked = profit[order]
    before = np.maximum.accumulate(ranked)
    survives = np.empty(ranked.size, dtype=bool)
    survives[0] = True
    survives[1:] = ranked[1:] > before[:-1]
    return order[survives]


def _host_step(items: Items, nodes, step: int, best: int):
    """Branch every node on item ``step``; returns the kept nodes, their origins and the improvement."""
    W, P, S, U, L = nodes
    inside = step < S
    sw = np.where(inside, W - items.weights[step], W)
    sp = np.where(inside, P - items.profits[step], P)
    ss = np.where(inside, S, S + 1)
    sw, sp, ss = _extend(items, sw, sp, ss)
    su, sl = _upper(items, sw, sp, ss), _lower(items, sw, sp, ss)
    son = int(np.argmax(sl))
    improved = (int(sl[son]), son, int(sw[son]), int(ss[son])) if sl[son] > best else None
    best = max(best, int(sl[son]))  # the host labels with this step's own best lower bound already
    keep = np.concatenate([inside & (best < U), su > best])
    origin = np.flatnonzero(keep).astype(np.uint32)
    joined = [np.concatenate(pair)[origin] for pair in ((W, sw), (P, sp), (S, ss), (U, su), (L, sl))]
    if items.dominance and items.prefix_weights is not None:
        survivors = undominated(items, joined, step + 1)
        origin, joined = origin[survivors], [a[survivors] for a in joined]
    return tuple(joined), origin, improved


def _named(buffers: list, suffix: str = "") -> dict[str, object]:
    """A node list's five buffers (W, P, S, U, L of paper 003) as kernel arguments."""
    return {f"{field}{suffix}": buffer for field, buffer in zip("WPSUL", buffers)}


class _DeviceSteps:
    """The list on the device: buffers sized once per search, two kernels per step; and what the
    uninterruptible parts of a step cost (``rates``), learnt as the search runs."""

    def __init__(self, solver: BranchAndBoundSolver, items: Items, device: Device, budget: int):
        self.device, self.items, self.budget = device, items, budget
        self.next_count = 0.0
        # a list downloaded to be split must fit the host budget as well
        self.node_limit = max(MIN_NODES, min(solver._node_limit(device, items.n), budget // (2 * HOST_NODE_BYTES)))
        self.limit = self.node_limit
        self.local_size = solver._local_size(device)
        self.count = 0
        self.top = 0                      # an upper bound on the U of every node of the device list
        self.capacity = 0
        self.upload_seconds = self.kernel_seconds = self.download_seconds = 0.0
        self._ready = False
        self.sets: list = [[], []]
        step = "device step" if device.is_gpu else "device step (cpu)"
        self.rates = {name: deadline.Rate(*FIRST_RATES[first]) for name, first in
                      (("device step", step), ("host step", "host step"), ("filter", "filter"),
                       ("transfer", "transfer"))}

    # -- time ------------------------------------------------------------------------------------
    def fit_limit(self, limit: deadline.Deadline) -> None:
        """Under a time limit, keep the list short enough that downloading a step's sons into fresh
        host memory (to split them) takes at most a quarter of the margin; on a CPU device, whose
        buffers are host memory first touched by the kernels, grown buffers as well."""
        if not limit.limited:
            return
        share = limit.margin / 4
        per_node = 2 * WIRE_NODE_BYTES * (self.rates["transfer"].per_unit + HOST_TOUCH_SECONDS)
        nodes = share / per_node
        if self.device.is_cpu:
            nodes = min(nodes, share / (NODE_BYTES * HOST_TOUCH_SECONDS))
        self.limit = max(MIN_NODES, min(self.node_limit, int(nodes)))

    def predict(self, count: int, on_device: bool, device_path: bool) -> float:
        """Seconds the next step on ``count`` nodes is predicted to take, with the upload before it
        and the download after it that cannot be skipped (the dominance filter is optional)."""
        if not device_path:
            return self.rates["host step"].predict(count)
        seconds = self.rates["device step"].predict(count)
        if not on_device:
            seconds += self.rates["transfer"].predict(WIRE_NODE_BYTES * count)
        if 2 * count > self.limit:
            seconds += self.rates["transfer"].predict(2 * WIRE_NODE_BYTES * count)
        return seconds

    def filter_seconds(self, count: int) -> float:
        return self.rates["filter"].predict(count) + self.rates["transfer"].predict(2 * WIRE_NODE_BYTES * count)

    # -- buffers ---------------------------------------------------------------------------------
    def _setup(self, need: int, keep_list: bool = False) -> None:
        """Item buffers once; node buffers for ``need`` nodes (grown by doubling, up to the limit),
        copying the current list into the new buffers when ``keep_list``."""
        ctx, flags = self.device.context, cl.mem_flags
        if not self._ready:
            self.program = kernels.program(self.device, SOURCE, {"LOCAL_SIZE": self.local_size})
            items = self.items
            self.w = cl.Buffer(ctx, flags.READ_ONLY | flags.COPY_HOST_PTR, hostbuf=items.weights)
            self.p = cl.Buffer(ctx, flags.READ_ONLY | flags.COPY_HOST_PTR, hostbuf=items.profits)
            self.suffix = cl.Buffer(ctx, flags.READ_ONLY | flags.COPY_HOST_PTR, hostbuf=items.suffix_min)
            self.branch = self.program.kernel("bnb_branch").set(
                w=self.w, p=self.p, suffix_min=self.suffix, n=np.uint32(items.n), c=np.uint64(items.capacity))
            self.compact = self.program.kernel("bnb_compact")
            self._ready = True
        if need <= self.capacity:
            return
        # a chunk split off under an earlier (longer) limit still fits
        capacity = max(need, min(self.limit, max(2 * self.capacity, 4096)))
        slots = 2 * capacity
        old = self.sets[0] if keep_list and self.capacity else None
        self.sets = [[cl.Buffer(ctx, flags.READ_WRITE, slots * size) for size in (8, 8, 4, 8, 8)] for _ in range(2)]
        if old is not None and self.count:
            for src, dst, size in zip(old, self.sets[0], (8, 8, 4, 8, 8)):
                cl.enqueue_copy(self.device.queue, dst, src, byte_count=self.count * size)
        self.capacity = capacity
        self.keep = cl.Buffer(ctx, flags.READ_WRITE, slots)
        self.origin = cl.Buffer(ctx, flags.READ_WRITE, 4 * slots)
        groups = -(-capacity // self.local_size)
        self.results = cl.Buffer(ctx, flags.READ_WRITE, 24 * groups)
        self.offsets = cl.Buffer(ctx, flags.READ_WRITE, 4 * groups)

    def upload(self, nodes) -> None:
        began = time.perf_counter()
        count = nodes[0].size
        self._setup(count)
        queue = self.device.queue
        for buf, array, dtype in zip(self.sets[0], nodes, (np.int64, np.int64, np.uint32, np.int64, np.int64)):
            cl.enqueue_copy(queue, buf, np.ascontiguousarray(array, dtype=dtype))
        queue.finish()
        self.count = count
        self.top = int(nodes[3].max()) if count else 0
        elapsed = time.perf_counter() - began
        self.rates["transfer"].observe(WIRE_NODE_BYTES * count, elapsed)
        self.upload_seconds += elapsed

    def upload_within(self, nodes) -> str:
        """Upload the list; "" when done, or why not: the time limit passed while the kernels were
        built (the first build can take longer than a short limit)."""
        try:
            self.upload(nodes)
        except TimeLimitError:
            return "time limit reached while the device kernels were built"
        return ""

    def download(self) -> tuple[np.ndarray, ...]:
        """The current list (on the device) as host arrays."""
        count, queue = self.count, self.device.queue
        queue.finish()  # the last compaction: kernel time, not transfer time
        began = time.perf_counter()
        out = []
        for buf, dtype in zip(self.sets[0], (np.int64, np.int64, np.uint32, np.int64, np.int64)):
            array = np.empty(count, dtype=dtype)
            if count:
                cl.enqueue_copy(queue, array, buf)
            out.append(array)
        queue.finish()
        out[2] = out[2].astype(np.int64)
        elapsed = time.perf_counter() - began
        self.rates["transfer"].observe(WIRE_NODE_BYTES * count, elapsed)
        self.download_seconds += elapsed
        return tuple(out)

    def filter(self, items: Items, step: int) -> np.ndarray | None:
        """Drop the dominated nodes of the device list of step ``step``; the survivors' indices, or
        None where every node survives."""
        listed = self.download()
        began = time.perf_counter()
        survivors = undominated(items, listed, step)
        self.rates["filter"].observe(listed[0].size, time.perf_counter() - began)
        if survivors.size == listed[0].size:
            return None
        self.upload(tuple(a[survivors] for a in listed))
        return survivors

    # -- one step --------------------------------------------------------------------------------
    def step(self, step: int, best: int):
        """Branch the list on item ``step``; returns (improvement or None, origin records)."""
        q, queue, size = self.count, self.device.queue, self.local_size
        self._setup(q, keep_list=True)
        groups = -(-q // size)
        began = time.perf_counter()
        current, other = self.sets
        self.branch.set(q=np.uint32(q), k=np.uint32(step), best=np.uint64(best), **_named(current),
                        keep=self.keep, results=self.results).enqueue(queue, (groups * size,), (size,))
        results = np.empty(3 * groups, dtype=np.uint64)
        cl.enqueue_copy(queue, results, self.results)           # blocking: waits for the kernel
        values, packed = results[0::3], results[1::3]
        counts = (packed & np.uint64(_U32)).astype(np.int64)
        kept = int(counts.sum())
        improved = None
        g = int(np.argmax(values))
        if int(values[g]) > best:
            son = int(packed[g] >> np.uint64(32))
            node = np.empty(1, dtype=np.int64)
            slack = np.empty(1, dtype=np.uint32)
            cl.enqueue_copy(queue, node, current[0], src_offset=8 * (q + son))
            cl.enqueue_copy(queue, slack, current[2], src_offset=4 * (q + son))
            improved = (int(values[g]), son, int(node[0]), int(slack[0]))
        origin = np.empty(kept, dtype=np.uint32)
        if kept:
            offsets = np.zeros(groups, dtype=np.uint32)
            offsets[1:] = np.cumsum(counts[:-1])
            self._offsets = offsets                             # kept alive until the copy is done
            cl.enqueue_copy(queue, self.offsets, offsets, is_blocking=False)
            self.compact.set(q=np.uint32(q), keep=self.keep, offsets=self.offsets, **_named(current),
                             **_named(other, "2"), origin=self.origin).enqueue(queue, (groups * size,), (size,))
            # not waited for: the next blocking read on this in-order queue (the next step's results,
            # or a download) completes it before the host reads these records
            cl.enqueue_copy(queue, origin, self.origin, is_blocking=False)
        self.sets = [other, current]
        self.count = kept
        self.top = int(results[2::3].max()) if kept else 0
        elapsed = time.perf_counter() - began
        self.rates["device step"].observe(q, elapsed)
        self.kernel_seconds += elapsed
        return improved, origin
