"""The ``wavefront`` plugin: one solver for the three problems of [OM], each on the same memory
model (``clsolve.dp.rowstore``): the sweep keeps only its live rows on the device and the finished
part of the grid the answer needs stays on the device or streams to host memory.

* ``LCS``      bit-parallel sweep (``method="bits"``) by stripes or block diagonals (``lcs_tiling.py``),
               or cell by cell (``"cells"``); the subsequence traced back on the device (``lcs.py``).
* ``Knapsack`` KP1, row by row (item by item), decision rows kept for the items (``knapsack.py``).
* ``TSP``      Held-Karp, one level per subset size, predecessors kept for the tour (``held_karp.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from clsolve.sdk import (
    LCS,
    TSP,
    Device,
    DeviceSolver,
    InvalidOptionError,
    Knapsack,
    Plan,
    Solution,
    UnsupportedProblemError,
    options,
)

from . import held_karp, knapsack, lcs, lcs_tiling

STORES = ("auto", "device", "host")


@dataclass(frozen=True)
class Options:
    method: str = "auto"
    store: str = "auto"
    device_memory_limit: int | None = None
    words_per_block: int | None = None
    rows_per_block: int | None = None
    rows_per_step: int | None = None
    schedule: str = "auto"
    poison: bool = False
    block: int | None = None


class WavefrontSolver(DeviceSolver):
    name = "wavefront"
    summary = "[OM]'s wavefront DP: LCS (bit-parallel), KP1 by rows, TSP by Held-Karp; rows streamed to host"
    problem_kinds = ("lcs", "tsp", "knapsack")

    def __init__(
        self,
        method: str = "auto",
        store: str = "auto",
        device_memory_limit: int | None = None,
        words_per_block: int | None = None,
        rows_per_block: int | None = None,
        rows_per_step: int | None = None,
        schedule: str = "auto",
        poison: bool = False,
        block: int | None = None,
    ):
        """``method`` (LCS): ``bits`` (bit-parallel), ``cells`` (eq. 2 cell by cell, any alphabet) or
        ``auto`` (bits unless the match masks would pass 1 GiB). ``store``: where the rows the answer
        needs are kept, ``device``, ``host`` (streamed during the sweep) or ``auto`` (the device when they
        fit). ``device_memory_limit`` (bytes) caps what the solve may use on the device, so that rows
        stream to host memory. ``words_per_block`` / ``rows_per_block`` (LCS) override the block tiling,
        ``rows_per_step`` the rows a work-item updates between two barriers (1..32; 1..31 for stripes).
        ``schedule`` (LCS, bit-parallel): ``diagonals`` (one launch per block diagonal; bit rows may
        stream to host memory), ``stripes`` (one launch, a work-group per block of words for all rows;
        bit rows on the device) or ``auto`` (stripes on a GPU where they apply).
        ``poison`` fills device buffers with garbage first (tests: an unwritten cell shows).
        ``block`` (KP1): runs of light items applied on chip, at most that many (2 to
        ``knapsack.MAX_BLOCK``) a launch, their weights summing to at most the halo local memory holds
        (``kp_block``, temporal blocking); 0: none, a launch per item; None (default): on a GPU where
        at least half the items start a run of 4 or more (``knapsack.launches``)."""
        if method not in lcs.METHODS:
            raise InvalidOptionError(f"method must be one of {', '.join(lcs.METHODS)}, got {method!r}")
        if schedule not in lcs_tiling.SCHEDULES:
            raise InvalidOptionError(f"schedule must be one of {', '.join(lcs_tiling.SCHEDULES)}, got {schedule!r}")
        if store not in STORES:
            raise InvalidOptionError(f"store must be one of {', '.join(STORES)}, got {store!r}")
        device_memory_limit = options.integer("device_memory_limit", device_memory_limit, minimum=1, none=True)
        self.options = Options(
            method,
            store,
            device_memory_limit,
            words_per_block,
            rows_per_block,
            rows_per_step,
            schedule,
            bool(poison),
            options.choice("block", block, (None, 0, *range(2, knapsack.MAX_BLOCK + 1))),
        )

    def accepts(self, problem) -> str | None:
        if isinstance(problem, LCS):
            return None
        if isinstance(problem, TSP):
            return held_karp.held_karp_accepts(problem)
        if isinstance(problem, Knapsack):
            return knapsack.knapsack_accepts(problem)
        return f"{self.name} solves LCS, TSP and KP1 problems"

    def plan(self, problem, device: Device) -> Plan:
        if isinstance(problem, LCS):
            return lcs.plan_lcs(self.name, problem, device, self.options)
        if isinstance(problem, TSP):
            return held_karp.plan_held_karp(self.name, problem, device, self.options)
        return knapsack.plan_knapsack(self.name, problem, device, self.options)

    def least_seconds(self, problem, device: Device) -> float:
        """A knapsack's plan time (its cells at the model's rate), which needs no plan; 0 otherwise."""
        return knapsack.least_seconds(problem, device) if isinstance(problem, Knapsack) else 0.0

    def solve(self, problem, device: Device, plan: Plan) -> Solution:
        if isinstance(problem, LCS):
            return lcs.solve_lcs(problem, device, plan, self.options)
        if isinstance(problem, TSP):
            return held_karp.solve_held_karp(problem, device, plan, self.options)
        return knapsack.solve_knapsack(problem, device, plan, self.options)

    def knapsack_decisions(self, problem: Knapsack, device: Device) -> tuple[int, np.ndarray]:
        """The value and the whole decision table of a KP1, shape (n, capacity + 1), read back (tests)."""
        reason = knapsack.knapsack_accepts(problem)
        if reason is not None:
            raise UnsupportedProblemError(reason)
        solution, table = knapsack.run_knapsack(problem, device, self.plan(problem, device), self.options, table=True)
        assert table is not None
        return solution.value, table

    def lcs_length(self, problem: LCS, device: Device):
        """The LCS length alone, without keeping bit rows (the sweep's top speed, for benchmarks):
        (length, timings, details of the sweep). Not a solve: no subsequence, no check."""
        return lcs.lcs_length(problem, device, self.options)
