"""Host side of ``bnb`` (kernels in ``bnb.cl``): breadth-first branch and bound for the 0-1
knapsack, [LE12] (Lalami and El Baz).

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
chunks waiting on the stack and the origin records live within ``memory_limit`` bytes (default: the host
budget, ``clsolve.runtime.memory.host_budget``).

Anytime: where the engine's time limit (``clsolve.runtime.deadline``) passes or the host budget is reached,
the search stops at the next step boundary and returns the incumbent (a full item vector whose value
is its items' profit), ``optimal = False``, and as ``bound`` the largest upper bound of any node
still open; a note says which limit stopped it. A step cannot be interrupted, so under a time limit
the search predicts each step's cost (the launches, and the transfers and sorts that follow them)
from the steps before it (``clsolve.runtime.deadline.Rate``) and stops before one that would end past the
limit; the device list is kept short enough that downloading it to split it fits a quarter of the
margin, and the largest upper bound of a device list comes with each step's small read.
"""

# long module: the search's steps, splits, stops and records share the frontier and its rates
from __future__ import annotations

import numpy as np

from clsolve.sdk import (
    Device,
    DeviceSolver,
    Knapsack,
    Plan,
    Solution,
    Stages,
    Timings,
    cache,
    deadline,
    log,
    memory,
    options,
    reduction,
    sort_by_ratio,
    stages,
    work_group_size,
)

from .device import KERNELS, DeviceSteps, device_buffers, list_nodes
from .nodes import Frontier, Items, Search, extend, host_step, lower, upper
from .tuning import (
    BUDGET_CHECK_SECONDS,
    DOMINANCE_MAX_NODES,
    HOST_THRESHOLD,
    MIN_NODES,
    NODE_BYTES,
    OPEN_GAP_MARGIN,
    STEP_SECONDS,
)


class BranchAndBoundSolver(DeviceSolver):
    name = "bnb"
    anytime = True
    summary = "breadth-first branch and bound for KP01 on an OpenCL device ([LE12]), any capacity up to 2^62, with items"

    def __init__(
        self,
        max_nodes: int | None = None,
        host_threshold: int = HOST_THRESHOLD,
        local_size: int | None = None,
        presolve: bool = True,
        dominance: bool = True,
        dominance_max_nodes: int = DOMINANCE_MAX_NODES,
        fixing: bool = True,
        memory_limit: int | None = None,
        aggregate: bool = False,
    ):
        """``max_nodes`` caps the list (default: what the device holds; at least ``MIN_NODES``, below
        which the chunks of the list would be explored almost node by node), beyond which the list is
        explored in chunks; ``memory_limit`` caps the host bytes of lists and records (default: the host
        budget); ``host_threshold``: lists shorter than this are
        branched on the host; ``local_size`` overrides the work-group size; ``presolve`` applies
        ``clsolve.dp.presolve`` first (dropping items that cannot fit, dividing by common divisors).
        ``dominance`` removes, after each step, every node another node dominates (decided weight no
        larger and decided profit no smaller: the same items remain for both, so the dominated one
        cannot lead further); the host does it, so device lists are filtered while they hold at most
        ``dominance_max_nodes`` nodes. ``fixing`` first fixes every item the bounds decide
        (``clsolve.dp.fixing``, as MT2 does) and searches only the core that is left. ``aggregate``
        searches equal items as one type of 1, 2, 4, ... copies (``clsolve.dp.multiplicity``); off by
        default: the nodes drop, but the host's greedy bound visits more of the lighter blocks."""
        self.max_nodes = options.integer("max_nodes", max_nodes, minimum=MIN_NODES, none=True)
        self.host_threshold = options.integer("host_threshold", host_threshold, minimum=0)
        self.local_size = options.power_of_two("local_size", local_size)
        self.presolve = options.flag("presolve", presolve)
        self.dominance = options.flag("dominance", dominance)
        self.dominance_max_nodes = options.integer("dominance_max_nodes", dominance_max_nodes, minimum=0)
        self.fixing = options.flag("fixing", fixing)
        self.memory_limit = options.integer("memory_limit", memory_limit, minimum=2**20, none=True)
        self.aggregate = options.flag("aggregate", aggregate)

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
        local = self._local_size(device)  # a node's bytes, and its share of its work-group's results
        limit = (device.memory_budget - 8 * (3 * items + 1) - 2**20) * local // (NODE_BYTES * local + 28)
        limit = min(limit, device.max_allocation // 16, 2**30)
        return max(2, min(limit, self.max_nodes or limit))

    def _stages(self, problem: Knapsack) -> Stages:
        return stages(problem, self.presolve, self.fixing, aggregate=self.aggregate)

    def _searched(self, problem: Knapsack) -> Knapsack | None:
        return self._stages(problem).searched

    def plan(self, problem: Knapsack, device: Device) -> Plan:
        reduced = self._searched(problem)
        n = 0 if reduced is None else reduced.n
        limit = self._node_limit(device, n)
        kind = "gpu" if device.is_gpu else "other"
        # the list is allocated for min(limit, 2^n) nodes; the tree's real size is unknown before the search
        nodes = list_nodes(n, limit)
        # auto's estimate: one step per item; unless the root's bounds already meet, the tree's size is
        # unknown, so the estimate carries a margin of 10 (a DP must look 10 times dearer to lose)
        gap = 0
        if reduced is not None:
            items = self._items(reduced)
            W, P, S, U, L = self._root(items)
            gap = int(U[0] - L[0])
        return Plan(
            solver=self.name,
            device_buffers=device_buffers(n, nodes, self._local_size(device)),
            kernels=KERNELS,
            cell_updates=n,
            launches=2 * n,
            seconds=n * STEP_SECONDS[kind] * (OPEN_GAP_MARGIN if gap else 1) + 0.001,
            details={
                "max_nodes": limit,
                "root_gap": gap,
                "host_threshold": self.host_threshold,
                "local_size": self._local_size(device),
                "host_memory_limit": self._budget(),
                "note": "cell_updates counts branching steps (one per item); the nodes explored depend on the instance",
            },
        )

    # -- solving -----------------------------------------------------------------------------
    def solve(self, problem: Knapsack, device: Device, plan: Plan) -> Solution:
        return self._stages(problem).solve(lambda searched: self._solve(searched, device), self.name, device.label)

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
        return self.memory_limit if self.memory_limit is not None else memory.host_budget()

    def _solve(self, problem: Knapsack, device: Device) -> Solution:
        watch = deadline.Stopwatch()
        items = self._items(problem)
        root = self._root(items)
        selected = self._completion(items, np.zeros(0, bool), int(root[0][0]), int(root[2][0]))
        # the incumbent's value is its items' profit: the full greedy completion may pack more than the
        # root's lower bound, whose host greedy visits at most HOST_GREEDY_ITEMS items
        search = Search(best=max(int(root[4][0]), int(items.profits[selected].sum())), selected=selected)
        engine = DeviceSteps(items, device, self._budget(), self._node_limit(device, items.n), self._local_size(device))
        stack = [Frontier(0, root, bound=int(root[3][0]))]
        try:
            while stack and not search.stopped:
                self._explore(stack.pop(), stack, items, search, engine)
        finally:
            device.queue.finish()  # leave nothing queued (a step stopped by an error)
        if search.stopped:
            search.open_bound = max([f.bound for f in stack] + [search.open_bound, search.best])
        selected = np.zeros(items.n, dtype=bool)
        selected[items.order[search.selected]] = True
        total = watch.seconds
        timings = Timings(
            upload=engine.upload_seconds,
            kernels=engine.kernel_seconds,
            download=engine.download_seconds,
            host=total - engine.upload_seconds - engine.kernel_seconds - engine.download_seconds,
        )
        notes = [
            f"{search.nodes} nodes branched in {search.host_steps} host and {search.device_steps} device steps "
            f"(host threshold {self.host_threshold}); {search.host_seconds * 1e3:.1f} ms on the host, "
            f"{search.device_seconds * 1e3:.1f} ms in device steps"
        ]
        if search.chunks:
            notes.append(f"the list passed max_nodes = {engine.limit}: explored in {search.chunks} extra chunk(s)")
        if search.stopped:
            notes.append(
                f"{search.stopped}: best found {search.best}, open upper bound "
                f"{search.open_bound} (gap {search.open_bound - search.best})"
            )
        stats = {
            "nodes": search.nodes,
            "host_steps": search.host_steps,
            "device_steps": search.device_steps,
            "chunks": search.chunks,
            "host_seconds": search.host_seconds,
            "device_seconds": search.device_seconds,
        }
        return Solution(
            value=search.best,
            selected=selected,
            optimal=not search.stopped,
            solver=self.name,
            device=device.label,
            timings=timings,
            notes=notes,
            bound=search.open_bound if search.stopped else None,
            stats=stats,
        )

    # -- the search --------------------------------------------------------------------------
    def _root(self, items: Items) -> tuple[np.ndarray, ...]:
        zero = np.zeros(1, dtype=np.int64)
        W, P, S = extend(items, zero.copy(), zero.copy(), zero.copy())
        return W, P, S, upper(items, W, P, S), lower(items, W, P, S)

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

    def _improve(self, items: Items, search: Search, frontier: Frontier, step: int, son: int, value: int, W: int, S: int) -> None:
        """Record son ``son`` (x_step = 0 of node ``son`` of ``frontier``) as the new incumbent."""
        decided = np.append(self._path(frontier.records, step, frontier.offset + son), False)
        selected = self._completion(items, decided, W, S)
        # the full greedy completion packs at least what the son's lower bound counted
        search.selected, search.best = selected, max(value, int(items.profits[selected].sum()))

    def _explore(self, frontier: Frontier, stack: list, items: Items, search: Search, engine: DeviceSteps) -> None:
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
            engine.fit_limit()
            stop = _stop_reason(engine, records, stack, nodes, on_device, engine.predict(count, on_device, device_path))
            if not stop and device_path and not on_device:
                stop = engine.upload_within(nodes)
                on_device = not stop
            if stop:
                search.stopped = stop
                top = engine.top if on_device else int(nodes[3].max())
                search.open_bound = max(search.open_bound, top)
                return
            search.nodes += count
            if log.current() is not None:  # the log's incumbent and the largest open upper bound
                top = engine.top if on_device else int(nodes[3].max())
                log.found(search.best, max([top, search.best] + [f.bound for f in stack]))
            here = Frontier(step, () if on_device else nodes, offset, records)
            if on_device:
                origin, filtered = self._device_step(items, search, engine, here, filtered)
            else:
                nodes, origin = self._host_step(items, search, engine, here)
            records.append((count, origin, offset))
            offset, step = 0, step + 1
            if on_device and (engine.count > engine.limit or 0 < engine.count < self.host_threshold // 4):
                nodes, on_device = engine.download(), False
            if not on_device:
                nodes = self._split(nodes, step, records, stack, engine.limit, search)

    def _device_step(
        self, items: Items, search: Search, engine: DeviceSteps, here: Frontier, filtered: int
    ) -> tuple[np.ndarray, int]:
        """Branch the device list on item ``here.step``; filter it for dominance when it has doubled
        since the last filter (amortized: the transfers and the sort cost at most about twice the
        list's own growth) and the filter fits in the time left. Returns the origin records and the
        size at the last filter."""
        watch = deadline.Stopwatch()
        improved, origin = engine.step(here.step, search.best)
        search.device_seconds += watch.seconds
        search.device_steps += 1
        if improved is not None:
            value, son, W, S = improved
            self._improve(items, search, here, here.step, son, value, W, S)
        kept = engine.count
        if self._filters(items, kept) and kept >= 2 * filtered and deadline.allows(engine.filter_seconds(kept)):
            survivors = engine.filter(items, here.step + 1)
            if survivors is not None:
                origin = origin[survivors]
            filtered = max(engine.count, 64)
        return origin, filtered

    def _host_step(
        self, items: Items, search: Search, engine: DeviceSteps, here: Frontier
    ) -> tuple[tuple[np.ndarray, ...], np.ndarray]:
        """Branch the host list on item ``here.step`` (NumPy); returns the new list and its origins."""
        watch = deadline.Stopwatch()
        nodes, origin, improved = host_step(items, here.nodes, here.step, search.best)
        elapsed = watch.seconds
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
            part = tuple(a[start : start + size] for a in nodes)
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


def _stop_reason(engine: DeviceSteps, records: list, stack: list, nodes, on_device: bool, predicted: float) -> str:
    """Why the search must stop before the next step, predicted to take ``predicted`` seconds ("" to
    go on)."""
    if deadline.expired():
        return f"time limit of {deadline.seconds():g} s reached"
    if not deadline.allows(predicted):
        return (
            f"time limit of {deadline.seconds():g} s reached (the next step, predicted to take "
            f"{predicted:.3f} s, would end past it)"
        )
    if engine.counted.seconds < engine.count_every:  # counting walks every record: at most every BUDGET_CHECK_SECONDS
        return ""
    counting = deadline.Stopwatch()
    held = _held_bytes(records, stack, nodes, on_device)
    engine.counted, engine.count_every = deadline.Stopwatch(), max(BUDGET_CHECK_SECONDS, 10 * counting.seconds)
    if held > engine.budget:
        return (
            f"host memory budget of {memory.format_bytes(engine.budget)} reached ({memory.format_bytes(held)} of lists and "
            f"records; raise memory_limit to search further)"
        )
    return ""


# -- one step on the host (NumPy), the same arithmetic as bnb.cl ------------------------------
