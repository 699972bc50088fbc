"""Best-first branch and bound over [VJ82]'s edge branching, the open nodes' bounds computed a batch
at a time on the device (``Ascent``): the root's ascent runs long and fixes edges out of the graph
(``fixing``); every other node starts from its parent's penalties and runs a short ascent, stopping
where its bound passes what the incumbent allows. A node whose 1-tree is a tour is solved by it."""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field

import numpy as np

from clsolve.sdk import deadline, progress

from . import lp
from .device import INF, INFEASIBLE, ONGOING, PRUNED, TOUR, Ascents, Evaluated
from .fixing import forbidden
from .graph import Graph
from .nodes import Node, branching, children, encoded, root, tour_of

#: The root's ascent: rounds of ROOT_ITERATIONS steps, lambda halved each round, while the bound rises.
ROOT_ROUNDS = 6
ROOT_ITERATIONS = 300
#: The root's ascent stops a round after this many steps without a better bound, once its bound is
#: within WIDE_GAP of the incumbent (a share of it); further off, every round runs whole.
ROOT_PATIENCE = 100
WIDE_GAP = 0.01
#: A node's ascent: lambda at its first step, its factor per step, and the steps without a better
#: bound after which it stops.
NODE_LAMBDA = 0.5
NODE_DECAY = 0.93
NODE_PATIENCE = 30


@dataclass
class Tally:
    """What the search did: nodes evaluated, launches, edges fixed out at the root, the root's bound."""

    nodes: int = 0
    launches: int = 0
    fixed_out: int = 0
    root: int = 0
    root_seconds: float = 0.0
    lp_bound: int | None = None
    lp_fixed_out: int = 0
    device_seconds: float = 0.0
    open_peak: int = 0
    stopped: bool = False
    full: bool = False
    notes: list[str] = field(default_factory=list)


def ceil_div(a: int, b: int) -> int:
    return -((-a) // b)


class Search:
    """The search over ``graph`` for a tour shorter than ``value`` (the incumbent ``tour``), keeping
    ``most`` open nodes at most."""

    def __init__(self, graph: Graph, ascents: Ascents, tour: np.ndarray, value: int, length, iterations: int, most: int):
        self.graph, self.ascents, self.length, self.iterations, self.most = graph, ascents, length, iterations, most
        self.tour, self.value = tour, value
        self.tally = Tally()
        self.open: list[tuple[int, int, Node]] = []  # (bound, serial, node): a heap
        self.floor = 0  # a bound known before the search (no cost is negative)
        self.rate = deadline.Rate(1e-3, 1e-6)  # seconds of a launch, by its nodes
        self.lp_seconds = 0.0  # the root's subtour LP's cut rounds at most (0: no LP)
        self.serial = 0

    def _limits(self) -> tuple[int, int]:
        scale = self.graph.scale
        return scale * (self.value - 1), scale * self.value

    def _offer(self, parent: np.ndarray | None = None, vertices: np.ndarray | None = None) -> None:
        """A tour of the graph (a 1-tree ``parent`` of degrees 2, or its ``vertices``), kept where shorter."""
        if vertices is None:
            assert parent is not None
            vertices = tour_of(parent)
        tour = self.graph.tour(vertices)
        value = self.length(tour)
        if value < self.value:
            self.tour, self.value = tour, value

    def relax(self, seconds: float) -> None:
        """The subtour LP (``lp``) at the root: its bound as the floor, its integral tour offered, and
        the edges its reduced costs rule out taken out of the graph."""
        found = lp.relaxed(self.graph.cost, self.graph.required, seconds)
        if found is None:
            return
        scale = self.graph.scale
        slack = 1e-6 * abs(found.value) + 1e-3
        self.floor = max(self.floor, ceil_div(int(np.floor(found.value - slack)), scale))
        self.tally.lp_bound = self.floor
        if found.tour is not None:
            self._offer(vertices=found.tour)
        mask = lp.forbidden(found, self.graph.cost, self._limits()[0], self.graph.required)
        self.tally.lp_fixed_out = int(mask.sum()) // 2
        if mask.any():
            self.graph.cost[mask] = INF
            self.ascents.set_cost(self.graph.cost)

    def root(self) -> Node | None:
        """The root's long ascent, then fixing edges out by it, and the ascent again where any went
        (None where the floor already meets the incumbent)."""
        if self.floor >= self.value:
            self.tally.root = self.floor
            return None
        pi = np.zeros((1, self.graph.n), dtype=np.int32)
        bound, pi, parent = self._ascend(pi)
        if bound is not None and parent is not None:
            mask = forbidden(self.graph.cost, pi[0], parent, bound, self._limits()[0], self.graph.required)
            self.tally.fixed_out = int(mask.sum()) // 2
            if mask.any():
                self.graph.cost[mask] = INF
                self.ascents.set_cost(self.graph.cost)
                again, pi, _ = self._ascend(pi)
                bound = again if bound is None or (again is not None and again > bound) else bound
        self.tally.root = 0 if bound is None else max(0, ceil_div(bound, self.graph.scale))  # no cost is negative
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
            first = np.array([0, codes.size], dtype=np.int32)
            patience = (
                ROOT_PATIENCE
                if bound is None or self.value - bound / self.graph.scale <= WIDE_GAP * self.value
                else ROOT_ITERATIONS
            )
            self.ascents.root.launch(codes, first, pi, ROOT_ITERATIONS, patience, upper, target, 2.0 / 2**k, 0.99)
            got = self.ascents.root.collect()
            if got is None:
                break
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
        """The search to its end, or to the time limit (``tally.stopped``). The device evaluates one
        batch while the host branches on the one before: a batch is taken from the open nodes before
        the previous batch's children join them."""
        watch = deadline.Stopwatch()
        # the LP's first round runs whole: its cut is O(n^2) host steps
        if self.lp_seconds > 0 and (not deadline.limited() or deadline.remaining() > 0.05 + 1e-5 * self.graph.n**2):
            self.relax(self.lp_seconds if not deadline.limited() else min(self.lp_seconds, 0.2 * deadline.remaining()))
        first = self.root()
        self.tally.root_seconds = watch.seconds
        if first is not None and first.bound < self.value:
            self.open.append((first.bound, first.serial, first))
        pending: list[Node] = []
        while pending or (self.open and self.open[0][0] < self.value):
            got = self._collect(pending)
            self.tally.full = len(self.open) > self.most
            if (pending and got is None) or deadline.expired() or self.tally.full:
                self.tally.stopped = True
                for node in pending:  # not evaluated: open with their parents' bounds
                    heapq.heappush(self.open, (node.bound, node.serial, node))
                return
            taken = self._take(self._within(batch))
            if taken:
                self._launch(taken)
            if pending:
                self._branch(pending, got)
            pending = taken
            progress.report("tsp-bnb nodes", self.tally.nodes, None)
            self.tally.open_peak = max(self.tally.open_peak, len(self.open))
        self.open.clear()

    def _within(self, batch: int) -> int:
        """Nodes the next launch may take: ``batch``, fewer where the time left would not see them
        through (by the launches so far)."""
        if not deadline.limited():
            return batch
        return max(1, min(batch, int(self.rate.units_within(0.5 * deadline.remaining()))))

    def _take(self, batch: int) -> list[Node]:
        """Up to ``batch`` open nodes, least bound first, within the batch's edge buffer."""
        taken: list[Node] = []
        room = self.ascents.batch.edges
        while self.open and len(taken) < batch and self.open[0][0] < self.value:
            node = self.open[0][2]
            need = int(np.count_nonzero(node.mate >= 0)) // 2 + len(node.forbidden)
            if need > room:
                break
            room -= need
            taken.append(heapq.heappop(self.open)[2])
        return taken

    def lower(self) -> int:
        """The proven bound: the least open node's (at least ``floor``), or the incumbent where none is
        open."""
        least = self.open[0][0] if self.open else self.value  # a heap: its least first
        return min(self.value, max(self.floor, least))

    def _launch(self, taken: list[Node]) -> None:
        upper, target = self._limits()
        codes, first = encoded(taken)
        pis = np.stack([node.pi for node in taken])
        self.ascents.batch.launch(codes, first, pis, self.iterations, NODE_PATIENCE, upper, target, NODE_LAMBDA, NODE_DECAY)
        self.tally.launches += 1
        self.tally.nodes += len(taken)

    def _collect(self, pending: list[Node]) -> Evaluated | None:
        if not pending:
            return None
        watch = deadline.Stopwatch()
        got = self.ascents.batch.collect()
        self.tally.device_seconds += watch.seconds
        if got is not None:
            self.rate.observe(len(pending), self.ascents.batch.started.seconds)
        return got

    def _branch(self, taken: list[Node], got: Evaluated | None) -> None:
        """The evaluated nodes: tours offered, the others' children opened where their bound allows."""
        assert got is not None
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
