"""``clsolve bench family``: bounded and unbounded knapsacks, change-making and multiple-choice
knapsacks on the classic families (``clsolve.family.generators``: Pisinger's uncorrelated, weakly and
strongly correlated and subset-sum instances with counts in U[1, 10] and capacity half the total
weight; unbounded with capacity half the weights' sum; change-making with coin values in U[1, R];
[Pisinger95]'s multiple-choice families, 10 to 10,000 classes of 10 to 1,000 items; multiple knapsacks
of those families with 5 to 50 similar or dissimilar capacities, ``auto`` only).

For each instance: ``auto``, ``bounded-dp`` and ``dp-states`` (bounded knapsacks as binary-split 0-1
knapsacks; ``choice-dp`` and ``choice-states`` for multiple-choice ones) end to end under ``--time-limit`` (default 10 s),
after a warm solve of a small instance of the same kind; and the Martello-Toth codes of the
``mknapsack`` package (MTB2, MTU2, MTC2) on the same host where it is importable. Every answer is
the engine's checked one; the values of solvers that prove theirs must agree.
"""

from __future__ import annotations

import datetime
import sys
import time
from typing import Any

import numpy as np

import clsolve
from clsolve import family as generated
from clsolve import get_device

from .common import solve_row

FAMILIES = ("uncorrelated", "weakly", "strongly", "subset-sum")
LIMIT_SECONDS = 10.0


def _cases(quick: bool, seeds: int) -> list[tuple[str, Any]]:
    sizes = [(1000, 1000)] if quick else [(1000, 1000), (1000, 10000), (10000, 1000), (10000, 10000)]
    out: list[tuple[str, Any]] = []
    for seed in range(1, seeds + 1):
        for family in FAMILIES:
            for n, R in sizes:
                out.append(("bounded", generated.generators.bounded(family, n, R, 10, seed)))
                out.append(("unbounded", generated.generators.bounded(family, n, R, None, seed)))
        for family in generated.generators.CHOICE_FAMILIES:
            for k, size in [(10, 10), (100, 10)] if quick else [(10, 10), (100, 100), (1000, 10), (1000, 1000), (10000, 10)]:
                for R in (1000,) if quick else (1000, 10000):
                    out.append(("multiple-choice", generated.generators.choice(family, k, size, R, seed)))
        for family in FAMILIES:
            for n, k in [(50, 5)] if quick else [(50, 5), (200, 10), (1000, 10), (1000, 50)]:
                for similar in (True, False):
                    out.append(("multiple", generated.generators.multiple(family, n, k, 1000, similar, seed)))
        for n in [10, 100] if quick else [10, 100, 1000]:
            for R in (1000, 10000):
                out.append(("change", generated.generators.change(n, R, None, seed)))
                out.append(("change", generated.generators.change(n, R, 10, seed)))
    return out


def _solvers(kind: str) -> tuple[str, ...]:
    if kind == "multiple-choice":
        return ("auto", "choice-dp", "choice-states")
    if kind == "multiple":
        return ("auto",)
    return ("auto", "bounded-dp", "dp-states") if kind != "change" else ("auto", "bounded-dp", "sequential")


def mt_solve(kind: str, problem) -> dict | None:
    """MTB2, MTU2 or MTC2 of the ``mknapsack`` package on ``problem`` (None where it is not importable:
    it ships wheels for Python 3.11 and below with numpy < 2): seconds and value."""
    try:
        import mknapsack
    except ImportError:
        return None
    start = time.perf_counter()
    if kind == "multiple":
        solved = mknapsack.solve_multiple_knapsack(
            problem.profits.tolist(), problem.weights.tolist(), problem.capacities.tolist(), method="mtm"
        )
        return {"seconds": time.perf_counter() - start, "value": int(np.dot(np.asarray(solved) > 0, problem.profits))}
    if kind == "multiple-choice":
        return None  # the MT codes have no multiple-choice solver
    if kind == "bounded":
        counts = mknapsack.solve_bounded_knapsack(
            problem.profits.tolist(), problem.weights.tolist(), problem.counts.tolist(), problem.capacity, method="mtb2"
        )
        value = int(np.dot(counts, problem.profits))
    elif kind == "unbounded":
        counts = mknapsack.solve_unbounded_knapsack(
            problem.profits.tolist(), problem.weights.tolist(), problem.capacity, method="mtu2"
        )
        value = int(np.dot(counts, problem.profits))
    else:
        if problem.counts is not None:
            return None  # MTC2 makes change from unlimited coins only
        counts = mknapsack.solve_change_making(problem.weights.tolist(), problem.capacity, method="mtc2")
        value = int(np.sum(counts))
    return {"seconds": time.perf_counter() - start, "value": value}


def _warm(device) -> None:
    """Build the kernels of every solver timed here before the clock runs."""
    for kind, problem in (
        ("bounded", generated.generators.bounded("strongly", 20, 100, 5, 0)),
        ("change", generated.generators.change(5, 100, None, 0)),
    ):
        for solver in _solvers(kind):
            clsolve.solve(problem, solver=solver, device=device)


def run(args) -> dict:
    device = get_device(args.device)
    limit = args.time_limit or LIMIT_SECONDS
    _warm(device)
    rows = []
    for kind, problem in _cases(args.quick, 3 if args.full else 1):
        size = {"capacities": problem.capacities.tolist()} if kind == "multiple" else {"capacity": problem.capacity}
        row = {"kind": kind, "name": problem.name, "n": problem.n, **size, "solvers": {}}
        for solver in _solvers(kind):
            row["solvers"][solver] = result = solve_row(problem, solver, device, limit)
            print(
                f"  {problem.name} {solver}: {result['seconds']:.3f} s {result.get('value', result.get('reason', ''))}",
                file=sys.stderr,
            )
        proved = {r["value"] for r in row["solvers"].values() if r.get("optimal")}
        if len(proved) > 1:
            raise AssertionError(f"{problem.name}: solvers prove different optima {sorted(proved)}")
        peer = mt_solve(kind, problem)
        if peer is not None:
            row["mt"] = peer
        rows.append(row)
    return {
        "benchmark": "family",
        "device": device.label,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "time_limit": limit,
        "rows": rows,
        "summary": _summary(rows),
    }


def _summary(rows: list[dict]) -> dict:
    """Per kind and solver: instances proved, and the slowest proof."""
    out: dict = {}
    for row in rows:
        for solver, result in row["solvers"].items():
            entry = out.setdefault(row["kind"], {}).setdefault(
                solver, {"instances": 0, "proved": 0, "slowest_proof_seconds": 0.0}
            )
            entry["instances"] += 1
            if result.get("optimal"):
                entry["proved"] += 1
                entry["slowest_proof_seconds"] = max(entry["slowest_proof_seconds"], result["seconds"])
    return out
