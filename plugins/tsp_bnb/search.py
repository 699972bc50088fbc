"""Best-first branch and bound over [VJ82]'s edge branching, the open nodes' bounds computed a batch
at a time on the device (``Ascent``): the root's ascent runs long and fixes edges out of the graph
(``fixing``); every other node starts from its parent's penalties and runs a short ascent, stopping
where its bound passes what the incumbent allows. A node whose 1-tree is a tour is solved by it."""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field

import numpy as np

from clsolve.sdk import deadline, progress

from .device import INF, INFEASIBLE, ONGOING, PRUNED, TOUR, Ascent, encoded
from .fixing import forbidden
from .graph import Graph
from .nodes import Node, children, tour_of

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
        self.open: list[Node] = []
        self.serial = 0

    def _limits(self) -> tuple[int, int]:
        scale = self.graph.scale
        return scale * (self.value - 1), scale * self.value

    def _offer(self, parent: np.ndarray) -> None:
        tour = self.graph.tour(tour_of(parent))
        value = self.length(tour)
        if value < self.value:
            self.tour, self.value = tour, value

    def root(self) -> Node:
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
        return Node(self.tally.root, 0, self.graph.required, (), pi[0])

    def _ascend(self, pi: np.ndarray) -> tuple[int | None, np.ndarray, np.ndarray | None]:
        """Rounds of the root's ascent from ``pi`` while the bound rises: the best bound (scaled; None
        where no 1-tree exists or the time limit came first), its penalties and its 1-tree (None where
        the node is settled: pruned, a tour, infeasible)."""
        bound, parent = None, None
        for k in range(ROOT_ROUNDS):
            if deadline.expired():
                break
            upper, target = self._limits()
            got = self.ascent.run([encoded(self.graph.required, ())], pi, ROOT_ITERATIONS, upper, target, 2.0 / 2**k, 0.99)
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
        root = self.root()
        if root.bound < self.value:
            self.open.append(root)
        while self.open and self.open[0].bound < self.value:
            if deadline.expired():
                self.tally.stopped = True
                return
            taken: list[Node] = []
            while self.open and len(taken) < batch and self.open[0].bound < self.value:
                taken.append(heapq.heappop(self.open))
            self._evaluate(taken)
            progress.report("tsp-bnb nodes", self.tally.nodes, None)
            self.tally.open_peak = max(self.tally.open_peak, len(self.open))
        self.open.clear()

    def lower(self) -> int:
        """The proven bound: the least open node's (at least 0: no cost is negative), or the incumbent
        where none is open."""
        return max(0, min([self.value] + [node.bound for node in self.open]))

    def _evaluate(self, taken: list[Node]) -> None:
        upper, target = self._limits()
        codes = [encoded(node.required, node.forbidden) for node in taken]
        pis = np.stack([node.pi for node in taken])
        got = self.ascent.run(codes, pis, self.iterations, upper, target, NODE_LAMBDA, NODE_DECAY)
        self.tally.launches += 1
        self.tally.nodes += len(taken)
        scale = self.graph.scale
        for k, node in enumerate(taken):
            status = int(got.status[k])
            if status in (PRUNED, INFEASIBLE):
                continue
            if status == TOUR:
                self._offer(got.trees[k])
                continue
            bound = ceil_div(int(got.bounds[k]), scale)
            if bound >= self.value:
                continue
            node.bound, node.pi = bound, got.pi[k]
            for child in children(node, got.trees[k], self.graph.cost, self.serial):
                heapq.heappush(self.open, child)
            self.serial += 3
