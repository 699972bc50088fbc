"""Best-first branch and bound over [VJ82]'s edge branching, the open nodes' bounds computed a batch
at a time on the device (``Ascent``): the root's ascent runs long and fixes edges out of the graph
(``fixing``); every other node starts from its parent's penalties and runs a short ascent, stopping
where its bound passes what the incumbent allows. A node whose 1-tree is a tour is solved by it."""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field

import numpy as np

from clsolve.sdk import deadline, progress

from .device import INF, INFEASIBLE, ONGOING, PRUNED, TOUR, Ascent
from .fixing import forbidden
from .graph import Graph
from .nodes import Node, branching, children, encoded, root, tour_of

#: The root's ascent: rounds of ROOT_ITERATIONS steps, lambda halved each round, while the bound rises.
ROOT_ROUNDS = 6
ROOT_ITERATIONS = 300
#: A node's ascent: lambda at its first step, and its factor per step.
NODE_LAMBDA = 0.5
NODE_DECAY = 0.93


@dataclass
class Tally:
    """What the search did: nodes evaluated, launches, edges fixed out at the root, the root's bound."""

    nodes: int = 0
    launches: int = 0
    fixed_out: int = 0
    root: int = 0
    root_seconds: float = 0.0
    device_seconds: float = 0.0
    open_peak: int = 0
    stopped: bool = False
    notes: list[str] = field(default_factory=list)


def ceil_div(a: int, b: int) -> int:
    return -((-a) // b)


class Search:
    """The search over ``graph`` for a tour shorter than ``value`` (the incumbent ``tour``)."""

    def __init__(self, graph: Graph, ascent: Ascent, tour: np.ndarray, value: int, length, iterations: int):
        self.graph, self.ascent, self.length, self.iterations = graph, ascent, length, iterations
        self.tour, self.value = tour, value
        self.tally = Tally()
        self.open: list[tuple[int, int, Node]] = []  # (bound, serial, node): a heap
        self.serial = 0

    def _limits(self) -> tuple[int, int]:
        scale = self.graph.scale
        return scale * (self.value - 1), scale * self.value

    def _offer(self, parent: np.ndarray) -> None:
        tour = self.graph.tour(tour_of(parent))
        value = self.length(tour)
        if value < self.value:
            self.tour, self.value = tour, value

    def root(self) -> Node | None:
        """The root's long ascent, then fixing edges out by it, and the ascent again where any went."""
        pi = np.zeros((1, self.graph.n), dtype=np.int32)
        bound, pi, parent = self._ascend(pi)
        if bound is not None and parent is not None:
            mask = forbidden(self.graph.cost, pi[0], parent, bound, self._limits()[0], self.graph.required)
            self.tally.fixed_out = int(mask.sum()) // 2
            if mask.any():
                self.graph.cost[mask] = INF
                self.ascent.set_cost(self.graph.cost)
                again, pi, _ = self._ascend(pi)
                bound = again if bound is None or (again is not None and again > bound) else bound
        scaled = -(2**62) if bound is None else bound
        self.tally.root = ceil_div(scaled, self.graph.scale)
        return root(self.graph.n, self.graph.required, pi[0], self.tally.root)

    def _ascend(self, pi: np.ndarray) -> tuple[int | None, np.ndarray, np.ndarray | None]:
        """Rounds of the root's ascent from ``pi`` while the bound rises: the best bound (scaled; None
        where no 1-tree exists or the time limit came first), its penalties and its 1-tree (None where
        the node is settled: pruned, a tour, infeasible)."""
        bound, parent = None, None
        for k in range(ROOT_ROUNDS):
            if deadline.expired():
                break
            upper, target = self._limits()
            codes = 2 * np.asarray(self.graph.required, dtype=np.int32)
            got = self.ascent.run(
                codes, np.array([0, codes.size], dtype=np.int32), pi, ROOT_ITERATIONS, upper, target, 2.0 / 2**k, 0.99
            )
            self.tally.launches += 1
            if got.status[0] == INFEASIBLE:
                return None, pi, None
            if got.status[0] == TOUR:
                self._offer(got.trees[0])
            if bound is not None and got.bounds[0] <= bound:
                break
            bound, pi, parent = int(got.bounds[0]), got.pi, got.trees[0]
            if got.status[0] != ONGOING:
                return bound, pi, None
        return bound, pi, parent

    def run(self, batch: int) -> None:
        """The search to its end, or to the time limit (``tally.stopped``)."""
        watch = deadline.Stopwatch()
        first = self.root()
        self.tally.root_seconds = watch.seconds
        if first is not None and first.bound < self.value:
            self.open.append((first.bound, first.serial, first))
        while self.open and self.open[0][0] < self.value:
            if deadline.expired():
                self.tally.stopped = True
                return
            taken: list[Node] = []
            while self.open and len(taken) < batch and self.open[0][0] < self.value:
                taken.append(heapq.heappop(self.open)[2])
            self._evaluate(taken)
            progress.report("tsp-bnb nodes", self.tally.nodes, None)
            self.tally.open_peak = max(self.tally.open_peak, len(self.open))
        self.open.clear()

    def lower(self) -> int:
        """The proven bound: the least open node's (at least 0: no cost is negative), or the incumbent
        where none is open."""
        return max(0, min([self.value] + [entry[0] for entry in self.open]))

    def _evaluate(self, taken: list[Node]) -> None:
        upper, target = self._limits()
        codes, first = encoded(taken)
        pis = np.stack([node.pi for node in taken])
        watch = deadline.Stopwatch()
        got = self.ascent.run(codes, first, pis, self.iterations, upper, target, NODE_LAMBDA, NODE_DECAY)
        self.tally.device_seconds += watch.seconds
        self.tally.launches += 1
        self.tally.nodes += len(taken)
        scale = self.graph.scale
        live = []
        for k, node in enumerate(taken):
            status = int(got.status[k])
            if status in (PRUNED, INFEASIBLE):
                continue
            if status == TOUR:
                self._offer(got.trees[k])
                continue
            bound = ceil_div(int(got.bounds[k]), scale)
            if bound < self.value:
                node.bound, node.pi = bound, got.pi[k]
                live.append(k)
        if not live:
            return
        mates = np.stack([taken[k].mate for k in live])
        _, fixed, a1, b1, a2, b2 = (x.tolist() for x in branching(got.trees[live], got.pi[live], mates, self.graph.cost))
        for row, k in enumerate(live):
            for child in children(taken[k], fixed[row], (a1[row], b1[row]), (a2[row], b2[row]), self.serial):
                heapq.heappush(self.open, (child.bound, child.serial, child))
            self.serial += 3
