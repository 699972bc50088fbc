"""``mkp-bnb``: branch and bound for the multidimensional 0-1 knapsack, m >= 2 (30 and more), with
items: [LE12]'s breadth-first steps on batches of nodes (``search.py``), bounded by the surrogate
relaxation's LP bound with multipliers from a subgradient descent (``surrogate.py``).

The problem is presolved first (``clsolve.dp.presolve``: items that fit no capacity dropped,
dimensions that never bind removed, common divisors taken out). What the search holds stays within
``max_nodes`` open nodes (default: what ``memory_limit`` of host memory holds); where that or the time
limit would be passed, the search stops with its incumbent (a feasible item vector, checked by the
engine), ``optimal = False`` and the largest bound of any open node.
"""

from __future__ import annotations

from clsolve.sdk import (
    HOST_NODES,
    HostSolver,
    Knapsack,
    Outcome,
    Plan,
    Relaxation,
    Solution,
    branch_and_bound,
    cheap_bounds,
    memory,
    options,
    planned,
    presolved,
    refusal,
    walk,
)

from .search import Search

#: Nodes expanded together (a batch), by default.
BATCH = 4096
#: auto's model: seconds per item while the root's bounds meet, times OPEN_GAP_MARGIN while they do not.
ITEM_SECONDS = 2e-5
OPEN_GAP_MARGIN = 50


def node_bytes(n: int, m: int) -> int:
    """Bytes one open node holds (profit, bound, m residuals, the decision bits), and room for the
    children an expansion makes beside it."""
    return 3 * (16 + 8 * m + 8 * max(1, -(-n // 64)))


class MultidimensionalBranchAndBound(HostSolver):
    name = "mkp-bnb"
    anytime = True
    summary = "branch and bound for the multidimensional 0-1 knapsack (m >= 2) with surrogate LP bounds, on the host, with items"

    def __init__(
        self,
        max_nodes: int | None = None,
        batch: int = BATCH,
        presolve: bool = True,
        memory_limit: int | None = None,
        host_nodes: int = HOST_NODES,
    ):
        """``max_nodes`` caps the open nodes (default: what ``memory_limit`` holds; ``memory_limit``
        defaults to the host budget); ``batch`` is the number of nodes expanded at once;
        ``presolve`` applies ``clsolve.dp.presolve`` first; ``host_nodes``: nodes walked depth first
        before the batches (``clsolve.mkp.walk``; 0: the batches at once)."""
        self.host_nodes = options.integer("host_nodes", host_nodes, minimum=0)
        self.max_nodes = options.integer("max_nodes", max_nodes, minimum=1, none=True)
        self.batch = options.integer("batch", batch, minimum=1)
        self.presolve = options.flag("presolve", presolve)
        self.memory_limit = options.integer("memory_limit", memory_limit, minimum=2**20, none=True)

    # -- planning ----------------------------------------------------------------------------
    def accepts(self, problem) -> str | None:
        return refusal(self.name, problem)

    def _node_limit(self, problem: Knapsack) -> int:
        budget = self.memory_limit if self.memory_limit is not None else memory.host_budget()
        limit = max(1, budget // node_bytes(problem.n, problem.m))
        return min(limit, self.max_nodes or limit)

    def plan(self, problem: Knapsack, device=None) -> Plan:
        return planned(self.name, problem, self.presolve, self._plan)

    def _plan(self, problem: Knapsack) -> Plan:
        limit = self._node_limit(problem)
        held = min(limit, self.batch * (problem.n + 1))
        settled = walk.planned(problem, self.host_nodes)
        if settled is not None:  # the walk run by the plan settles the problem: its time is measured
            seconds, walked = settled
            measured = True
            details = {
                "max_nodes": limit,
                "host_walk": walked,
                "note": "host_walk: the walk run by the plan settles the problem (seconds: the answer left to make)",
            }
        else:
            # cheap on purpose (auto plans every solver): not the fitted multipliers the search uses
            root, greedy, gap = cheap_bounds(problem)
            seconds = problem.n * ITEM_SECONDS * (OPEN_GAP_MARGIN if gap else 1) + 1e-4
            measured = False
            details = {
                "max_nodes": limit,
                "root_bound": root,
                "greedy": greedy,
                "root_gap": gap,
                "note": "root_bound with the constraints normalised by the capacities (the search fits its "
                "multipliers); cell_updates counts items; the nodes expanded depend on the instance",
            }
        return Plan(
            solver=self.name,
            host_buffers={"open nodes": held * node_bytes(problem.n, problem.m)},
            cell_updates=problem.n,
            seconds=seconds,
            measured=measured,
            details=details,
        )

    # -- solving -----------------------------------------------------------------------------
    def solve(self, problem: Knapsack, device=None, plan: Plan | None = None) -> Solution:
        return presolved(self.name, problem, self.presolve, "host CPU", self._solve)

    def _solve(self, problem: Knapsack) -> Solution:
        return branch_and_bound(self.name, "host CPU", problem, self._search, self.host_nodes)

    def _search(self, core: Knapsack, relaxation: Relaxation, floor: int) -> tuple[Outcome, str]:
        outcome = Search(
            core.profits, core.weights, core.capacities, relaxation, self.batch, self._node_limit(core), floor=floor
        ).run()
        return outcome, (
            f"{outcome.nodes} nodes made over the {core.n} free items in {outcome.batches} batches "
            f"of at most {self.batch}; at most {outcome.longest} open"
        )
