"""What a search over the core leaves (``Outcome``), and the solve every multidimensional branch and
bound shares around it (``branch_and_bound``): reduced-cost fixing, the relaxation of the core, the
search, and the solution of the whole problem (items, proof or open bound, notes)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from clsolve.problems import Knapsack, exact_sum
from clsolve.solution import Solution, Timings

from .surrogate import Relaxation
from .walk import kept, probe

#: Profits and weights must keep their sums below this (exact int64 profits and residuals).
SUM_LIMIT = 2**62


@dataclass
class Outcome:
    value: int
    chosen: np.ndarray  # bool, by position in the relaxation's order
    optimal: bool
    bound: int
    found: bool  # the search went past its floor (else ``chosen`` is empty)
    nodes: int = 0
    batches: int = 0
    longest: int = 0
    stop: str = ""
    device: Timings | None = None  # the search's transfers and kernels, where it ran on a device


#: A search: (the core, its relaxation, the value it must beat) -> its outcome and a note on its work.
Search = Callable[[Knapsack, Relaxation, int], tuple[Outcome, str]]


def refusal(name: str, problem) -> str | None:
    """Why a multidimensional branch and bound cannot take ``problem``, or None."""
    if not isinstance(problem, Knapsack):
        return f"{name} solves knapsack problems only"
    if problem.m == 1:
        return f"{name} solves knapsacks with m >= 2 capacities (for m = 1: bnb or dp-states)"
    if problem.total_profit >= SUM_LIMIT:
        return f"{name} needs the sum of the profits below 2^62, got {problem.total_profit}"
    if any(exact_sum(column) >= SUM_LIMIT for column in problem.weights.T):
        return f"{name} needs every dimension's sum of weights below 2^62"
    return None


# long: fixing, then the host walk or the search, and the solution of the whole problem with its notes
def branch_and_bound(name: str, where: str, problem: Knapsack, search: Search, host_nodes: int = 0) -> Solution:
    """Fix items by reduced costs, search the core left (first walked on the host for up to
    ``host_nodes`` nodes: ``clsolve.mkp.walk``), and answer for the whole problem."""
    began = time.perf_counter()
    planned = kept(problem, host_nodes)  # run by the plan: its time counts here too
    probed = probe(problem, host_nodes)
    earlier = probed.seconds if planned else 0.0
    fixing, walked = probed.fixing, probed.walked
    notes = [
        f"reduced costs fixed {int(fixing.fixed_in.sum())} item(s) in and "
        f"{int((~fixing.free & ~fixing.fixed_in).sum())} out against the greedy value {fixing.value}"
    ]
    stats: dict = {"fixed": int((~fixing.free).sum()), "nodes": 0, "batches": 0, "longest": 0}
    value, selected, bound, stop = fixing.value, fixing.chosen.copy(), fixing.value, ""
    device = Timings()
    if walked is not None:
        if walked.found:
            value = walked.value + fixing.profit_in
            selected = fixing.fixed_in.copy()
            selected[np.flatnonzero(fixing.free)[walked.chosen]] = True
        notes.append(
            f"{walked.nodes} nodes walked depth first on the host over the {walked.chosen.size} free items; "
            f"multipliers (the fixing's prices) {np.round(walked.multipliers, 4).tolist()}"
        )
        stats.update(nodes=walked.nodes, host_walk=True, multipliers=[float(u) for u in walked.multipliers])
    elif fixing.core is not None:
        core = fixing.core
        relaxation = Relaxation(core.profits, core.weights, core.capacities)  # a new core each solve
        outcome, note = search(core, relaxation, fixing.floor)
        stop, device = outcome.stop, outcome.device or device
        bound = max(value, outcome.bound + fixing.profit_in)
        if outcome.found:
            value = outcome.value + fixing.profit_in
            selected = fixing.fixed_in.copy()
            selected[np.flatnonzero(fixing.free)[relaxation.order[outcome.chosen]]] = True
        notes.append(
            f"{note}; root multipliers {np.round(relaxation.u, 4).tolist()}, fitted again at "
            f"{relaxation.fits - 1} of {len(relaxation.levels)} levels"
        )
        stats.update(
            nodes=outcome.nodes, batches=outcome.batches, longest=outcome.longest, multipliers=[float(u) for u in relaxation.u]
        )
    if stop:
        notes.append(f"{stop}: best found {value}, open upper bound {bound} (gap {bound - value})")
    return Solution(
        value=value,
        selected=selected,
        optimal=not stop,
        solver=name,
        device=where,
        timings=Timings(
            device.upload, device.kernels, device.download, max(0.0, time.perf_counter() - began - device.total) + earlier
        ),
        notes=notes,
        bound=bound if stop else None,
        stats=stats,
    )
