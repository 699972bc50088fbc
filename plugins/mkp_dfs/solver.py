"""``mkp-dfs``: branch and bound for the multidimensional 0-1 knapsack (m >= 2) on the device, with
items: every work-item walks one subtree depth first ([HS74]'s order, ``mkp_dfs.cl``), bounded
at every node by the surrogate LP bound of its level ([GP85], ``clsolve.mkp.surrogate``); between
launches the host gives idle work-items halves of the busy subtrees (``subtrees.py``).

Around the search the solve is ``mkp-bnb``'s (``clsolve.mkp.outcome``): presolve, reduced-cost
fixing against a greedy solution, the core's relaxation; under a time limit the search stops between
launches with its incumbent, ``optimal = False`` and the largest bound of a subtree left.
"""

from __future__ import annotations

import numpy as np

from clsolve.sdk import (
    HOST_NODES,
    POISON_BYTE,
    REFIT_LEVELS,
    Device,
    DeviceSolver,
    Knapsack,
    Outcome,
    Plan,
    Relaxation,
    Solution,
    Tables,
    TimeLimitError,
    branch_and_bound,
    cheap_bounds,
    deadline,
    options,
    planned,
    presolved,
    refusal,
)
from clsolve.sdk import (
    walk as host_walk,
)

from .subtrees import KERNELS, LOCAL_SIZE, Subtrees, device_buffers, slot_bytes

#: Items at most (the level tables hold about 12 n^2 bytes, addressed by 32-bit offsets).
MAX_ITEMS = 2**15
#: Slots (work-items, subtrees) per compute unit, by default: a GPU's many, a CPU's few.
GPU_SLOTS_PER_UNIT, CPU_SLOTS_PER_UNIT = 256, 16
#: Nodes per work-item in the first launch; each launch may walk twice as many as the last, and
#: at most what LAUNCH_SECONDS allows (between launches idle work-items get subtrees).
FIRST_BUDGET = 64
LAUNCH_SECONDS = 0.05
#: Splits of one subtree between two launches, at most (at its shallowest 1s).
SPLITS = 32
#: First guess of a launch's cost (seconds of overhead, seconds per node of budget).
FIRST_RATE = (2e-4, 2e-7)
#: auto's model (measured on the H100 host and the development CPU): seconds of setup (fixing, the
#: root's multipliers, the first launches), per item, per fit of a level's multipliers (one every
#: REFIT_LEVELS levels) and per level table entry; where the root's bounds do not meet, seconds of
#: walking per item (mkp-bnb's host steps: 1e-3).
SETUP_SECONDS, ITEM_SECONDS, FIT_SECONDS, TABLE_SECONDS = 3e-3, 2e-5, 1e-3, 2e-8
GAP_ITEM_SECONDS = {"gpu": 2e-5, "other": 3e-4}


class DeviceDepthFirst(DeviceSolver):
    name = "mkp-dfs"
    anytime = True
    summary = (
        "branch and bound for the multidimensional 0-1 knapsack (m >= 2) on the device, a depth-first "
        "walk per work-item with surrogate LP bounds, with items"
    )

    def __init__(self, slots: int | None = None, presolve: bool = True, host_nodes: int = HOST_NODES, poison: bool = False):
        """``slots``: work-items (subtrees walked at once; default: 256 per compute unit on a GPU, 16 on a
        CPU), rounded up to a multiple of 64; ``presolve`` applies ``clsolve.dp.presolve`` first;
        ``host_nodes``: nodes the host may walk depth first before the device search
        (``clsolve.mkp.walk``; 0: the device search at once); ``poison`` fills the buffers the kernel
        writes with a garbage pattern first (for tests)."""
        self.slots = options.integer("slots", slots, minimum=1, none=True)
        self.presolve = options.flag("presolve", presolve)
        self.host_nodes = options.integer("host_nodes", host_nodes, minimum=0)
        self.poison = options.flag("poison", poison)

    def accepts(self, problem) -> str | None:
        reason = refusal(self.name, problem)
        if reason is None and problem.n > MAX_ITEMS:
            reason = (
                f"{self.name} takes at most {MAX_ITEMS} items (its bound tables grow as n^2: "
                f"{Tables.bytes_for(problem.n, problem.m)} bytes here), got n = {problem.n}; mkp-bnb takes more"
            )
        return reason

    def _slots(self, device: Device) -> int:
        wanted = self.slots or device.compute_units * (GPU_SLOTS_PER_UNIT if device.is_gpu else CPU_SLOTS_PER_UNIT)
        return -(-wanted // LOCAL_SIZE) * LOCAL_SIZE

    def plan(self, problem: Knapsack, device: Device) -> Plan:
        return planned(self.name, problem, self.presolve, lambda reduced: self._plan(reduced, device))

    def _plan(self, problem: Knapsack, device: Device) -> Plan:
        n, m, slots = problem.n, problem.m, self._slots(device)
        tables = Tables.bytes_for(n, m)
        words = max(1, -(-n // 64))
        settled = host_walk.planned(problem, self.host_nodes)
        if settled is not None:  # the host walk run by the plan settles the problem: its time is measured
            seconds, walked = settled
            measured = True
            details = {
                "slots": slots,
                "host_walk": walked,
                "note": "host_walk: the host walk run by the plan settles the problem (seconds: the answer left to make)",
            }
        else:
            root, greedy, gap = cheap_bounds(problem)
            measured = False
            walk = n * (GAP_ITEM_SECONDS["gpu" if device.is_gpu else "other"] if gap else 0.0)
            seconds = SETUP_SECONDS + n * ITEM_SECONDS + n / REFIT_LEVELS * FIT_SECONDS + n * n * TABLE_SECONDS + walk
            details = {
                "slots": slots,
                "root_bound": root,
                "greedy": greedy,
                "root_gap": gap,
                "note": "root_bound with the constraints normalised by the capacities; seconds: the level "
                "tables, one launch, and where the root's bounds do not meet a walk per item (the "
                "nodes walked depend on the instance)",
            }
        return Plan(
            solver=self.name,
            device_buffers=device_buffers(n, m, slots),
            host_buffers={"level bounds": tables, "subtrees": 2 * slots * slot_bytes(words)},
            kernels=KERNELS,
            cell_updates=n,
            launches=1,
            seconds=seconds,
            measured=measured,
            details=details,
        )

    def solve(self, problem: Knapsack, device: Device, plan: Plan | None = None) -> Solution:
        return presolved(
            self.name,
            problem,
            self.presolve,
            device.label,
            lambda reduced: branch_and_bound(
                self.name, device.label, reduced, lambda *args: self._search(device, *args), self.host_nodes
            ),
        )

    def _search(self, device: Device, core: Knapsack, relaxation: Relaxation, floor: int) -> tuple[Outcome, str]:
        order = relaxation.order
        if deadline.expired():  # no time for the level tables and a launch: the root's bound
            return _unsearched(core, relaxation, floor, "time limit reached before the search")
        try:
            subtrees = Subtrees(
                device,
                core.profits[order].astype(np.int64),
                core.weights[order].astype(np.int64),
                core.capacities.astype(np.int64),
                relaxation.tables(core.capacities),
                self._slots(device),
                floor,
                POISON_BYTE if self.poison else None,
            )
        except TimeLimitError:  # the first build of the kernel can take longer than a short limit
            return _unsearched(core, relaxation, floor, "time limit reached while the device kernel was built")
        rate = deadline.Rate(*FIRST_RATE)
        budget, launches, widest, stop = FIRST_BUDGET, 0, 1, ""
        walking = splitting = last_split = 0.0
        while subtrees.busy.any():
            budget = _next_budget(budget, rate, last_split)
            if budget < 1:
                stop = f"time limit of {deadline.seconds():g} s reached"
                break
            seconds = subtrees.launch(budget)
            if seconds is None:
                stop = f"time limit of {deadline.seconds():g} s reached during a launch"
                break
            rate.observe(budget, seconds)
            walking, launches = walking + seconds, launches + 1
            watch = deadline.Stopwatch()
            subtrees.split(SPLITS)
            widest = max(widest, int(subtrees.busy.sum()))
            last_split = watch.seconds
            splitting += last_split
        chosen = np.unpackbits(subtrees.best_bits.view(np.uint8), bitorder="little")[: core.n].astype(bool)
        bound = subtrees.open_bound(relaxation) if stop else subtrees.best
        outcome = Outcome(
            subtrees.best,
            chosen,
            not stop,
            bound,
            subtrees.found,
            nodes=subtrees.made,
            batches=launches,
            longest=widest,
            device=subtrees.timings,
        )
        outcome.stop = stop
        return outcome, (
            f"{subtrees.made} nodes walked over the {core.n} free items in {launches} launches "
            f"of {subtrees.slots} work-items ({walking:.3f} s walking, transfers included; {splitting:.3f} s "
            f"splitting on the host)"
        )


def _unsearched(core: Knapsack, relaxation: Relaxation, floor: int, why: str) -> tuple[Outcome, str]:
    """The outcome of a search that walked no node: the incumbent ``floor`` and the root's bound."""
    root = int(relaxation.bounds(0, np.zeros(1, np.int64), core.capacities[None, :])[0])
    return Outcome(floor, np.zeros(core.n, bool), False, max(root, floor), False, stop=why), "no node walked"


def _next_budget(last: int, rate: deadline.Rate, split_seconds: float) -> int:
    """Nodes per work-item for the next launch: twice the last, at most what LAUNCH_SECONDS allows; under
    a time limit at most half the time left once the split after it (and the open bound at the end)
    are counted, since more busy work-items than when the rate was learnt make a launch slower; 0 when
    no launch fits."""
    budget = int(min(2 * last, max(FIRST_BUDGET, rate.units_within(LAUNCH_SECONDS))))
    if deadline.limited():
        if deadline.expired():
            return 0
        left = deadline.remaining() + deadline.grace(1 / 4) - 2 * split_seconds
        budget = min(budget, int(rate.units_within(left / 2)))
    return max(budget, 0)
