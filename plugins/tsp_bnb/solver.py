"""``tsp-bnb``: exact TSP and ATSP past Held-Karp's reach, by branch and bound on edges with Held-Karp
1-tree bounds ([HK71], [VJ82]) computed for a batch of nodes per launch (``onetree.cl``: a work-group
per node), an incumbent from 2-opt, Or-opt and double-bridge kicks (``tour``), edges fixed out by the
root's bound (``fixing``), and asymmetric problems through [JV83]'s symmetric graph (``graph``).
Anytime: under a time limit, the best tour and the least open node's bound."""

from __future__ import annotations

from itertools import permutations

import numpy as np

from clsolve.sdk import (
    TSP,
    Device,
    DeviceSolver,
    InvalidOptionError,
    Plan,
    Solution,
    TimeLimitError,
    Timings,
    Workspace,
    deadline,
    memory,
    options,
)

from . import lp as relaxation
from . import tour as tours
from .device import KERNELS, ascents, plan_buffers
from .graph import SCALED_LIMIT, graph, largest_cost
from .search import Search

#: Vertices of the searched graph at most (2n for an asymmetric problem): the kernel's local arrays.
MAX_VERTICES = 1024
#: Cities solved by trying every tour on the host.
ENUMERATED = 6
#: Host bytes of an open node: its mates (8 per vertex), its share of its parent's penalties (4 per
#: vertex), and NODE_BYTES for its path ends, forbidden edges, object and heap entry.
NODE_BYTES = 600
#: Seconds of the root's subtour LP's cut rounds at most (a fifth of the time left under a limit).
LP_SECONDS = 2.0
#: Open nodes kept at most by default (fewer where the host memory budget holds fewer).
OPEN_NODES = 2_000_000
#: Seconds per scaled-vertex-squared ascent step (Prim's n steps of n/WG work and a reduction), by device.
STEP_SECONDS = {True: 2e-11, False: 4e-10}


class TSPBranchAndBound(DeviceSolver):
    name = "tsp-bnb"
    summary = "TSP and ATSP: branch and bound on edges, Held-Karp 1-tree bounds for a batch of nodes per launch"
    problem_kinds = ("tsp",)
    anytime = True

    def __init__(
        self,
        batch: int | None = None,
        iterations: int | None = None,
        kicks: int | None = None,
        open_nodes: int | None = None,
        work_group: int | None = None,
        lp: bool = False,
    ):
        """``batch``: nodes per launch (default 2048 on a GPU, 64 elsewhere); ``iterations``: ascent
        steps per node at most (default 100 on a GPU, 30 elsewhere); ``kicks``: the incumbent's
        double-bridge kicks (default 20 + n); ``open_nodes``: open nodes the host keeps at most
        (default 2,000,000, fewer where nine tenths of the host memory budget hold fewer; the plan
        counts their memory; the search stops with its bound where they would pass it);
        ``work_group``: work-items per node (a power of two; default by size and device,
        ``device.group_size``); ``lp``: the root's subtour LP by HiGHS first (``lp.py``; needs
        ``highspy``)."""
        self.batch = options.integer("batch", batch, minimum=1, maximum=2**16, none=True)
        self.iterations = options.integer("iterations", iterations, minimum=1, maximum=10**5, none=True)
        self.kicks = options.integer("kicks", kicks, minimum=0, none=True)
        self.open_nodes = options.integer("open_nodes", open_nodes, minimum=1, none=True)
        self.work_group = options.power_of_two("work_group", work_group)
        self.lp = options.flag("lp", lp)
        if self.lp and not relaxation.available():
            raise InvalidOptionError("lp=True: the root's subtour LP needs HiGHS (pip install highspy)")

    def accepts(self, problem) -> str | None:
        if not isinstance(problem, TSP):
            return f"{self.name} solves TSPs"
        vertices = problem.n if problem.symmetric else 2 * problem.n
        if vertices > MAX_VERTICES:
            return f"{self.name} searches at most {MAX_VERTICES} vertices (an asymmetric problem has 2n), got {vertices}"
        if largest_cost(problem.distances) > SCALED_LIMIT:
            return f"{self.name} takes costs up to {SCALED_LIMIT}, got {largest_cost(problem.distances)}"
        return None

    def _open_nodes(self, vertices: int) -> int:
        """``open_nodes``, or by default OPEN_NODES where nine tenths of the host budget hold them."""
        if self.open_nodes is not None:
            return self.open_nodes
        return max(1, min(OPEN_NODES, int(0.9 * memory.host_budget()) // node_bytes(vertices)))

    def _iterations(self, device: Device) -> int:
        return self.iterations or (100 if device.is_gpu else 30)

    def _batch(self, device: Device | None) -> int:
        return self.batch or (2048 if device is not None and device.is_gpu else 64)

    def plan(self, problem: TSP, device: Device) -> Plan:
        vertices = problem.n if problem.symmetric else 2 * problem.n
        batch = self._batch(device)
        steps = 2 * 6 * 300 + 200 * self._iterations(device) * batch // 8  # the root's rounds, and a guess of the tree
        return Plan(
            solver=self.name,
            device_buffers=plan_buffers(vertices, batch),
            host_buffers={"open nodes": self._open_nodes(vertices) * node_bytes(vertices)},
            kernels=KERNELS,
            cell_updates=steps * vertices * vertices,
            launches=12 + 200,
            seconds=0.05 + STEP_SECONDS[device.is_gpu] * steps * vertices * vertices,
            details={"vertices": vertices, "batch": batch, "note": "the tree's size is known only once searched"},
        )

    def solve(self, problem: TSP, device: Device, plan: Plan) -> Solution:
        timings = Timings()
        if problem.n <= ENUMERATED:
            return self._enumerated(problem, device, timings)
        with timings.phase("host"):
            kicks = 20 + problem.n if self.kicks is None else self.kicks
            start = tours.search(problem.distances, kicks, deadline.expired)
        g = graph(problem.distances)
        work = Workspace(device, plan)
        batch = self._batch(device)
        try:
            with timings.phase("kernels"):
                built = ascents(device, work, g.cost, batch, self.work_group)
        except TimeLimitError:  # the limit came while the kernels built: the incumbent and the floor
            return self._unsearched(problem, device, timings, start)
        value = problem.tour_length(start)
        search = Search(g, built, start, value, problem.tour_length, self._iterations(device), self._open_nodes(g.n))
        search.floor = floor(problem.distances)
        if self.lp:
            search.lp_seconds = LP_SECONDS
        with timings.phase("kernels"):
            search.run(batch)
        tally = search.tally
        stats = {
            "nodes": tally.nodes,
            "launches": tally.launches,
            "fixed_out": tally.fixed_out,
            "root_bound": tally.root,
            "root_seconds": round(tally.root_seconds, 4),
            "device_seconds": round(tally.device_seconds, 4),
            "lp_bound": tally.lp_bound,
            "lp_fixed_out": tally.lp_fixed_out,
        }
        notes = [
            f"root bound {tally.root}, {tally.fixed_out} edges fixed out, {tally.nodes} nodes in {tally.launches} launches",
        ]
        bound = search.lower()  # the incumbent's value where the search ended
        if bound < search.value:
            reason = "the open nodes reached open_nodes" if tally.full else "stopped at the time limit"
            notes.insert(0, f"{reason}: the best tour, and the least open node's bound")
        return self._answer(search.tour, search.value, bound, device, timings, notes, stats)

    def _unsearched(self, problem: TSP, device: Device, timings: Timings, start: np.ndarray) -> Solution:
        notes = ["stopped at the time limit while the kernels built: the first tour, and each city's cheapest ways in and out"]
        return self._answer(start, problem.tour_length(start), floor(problem.distances), device, timings, notes, {})

    def _answer(
        self, tour: np.ndarray, value: int, bound: int, device: Device, timings: Timings, notes: list[str], stats: dict
    ) -> Solution:
        """The tour of ``value``, optimal where ``bound`` (a lower bound) reaches it."""
        optimal = bound >= value
        return Solution(
            value,
            np.zeros(0, bool),
            optimal,
            self.name,
            device.label,
            timings,
            notes,
            bound=None if optimal else bound,
            stats=stats,
            tour=tour,
        )

    def _enumerated(self, problem: TSP, device: Device, timings: Timings) -> Solution:
        best, value = None, None
        for rest in permutations(range(1, problem.n)):
            t = np.asarray((0, *rest), dtype=np.int64)
            length = problem.tour_length(t)
            if value is None or length < value:
                best, value = t, length
        assert best is not None and value is not None
        return Solution(value, np.zeros(0, bool), True, self.name, device.label, timings, ["every tour tried"], tour=best)


def floor(distances: np.ndarray) -> int:
    """A lower bound of every tour: each city is left once and entered once, at least as cheaply as
    its cheapest edge out (or in)."""
    d = distances.astype(np.int64).copy()
    np.fill_diagonal(d, np.iinfo(np.int64).max)
    return int(max(d.min(axis=1).sum(), d.min(axis=0).sum()))


def node_bytes(vertices: int) -> int:
    return 12 * vertices + NODE_BYTES
