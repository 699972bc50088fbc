"""``clsolve bench kpm``: multidimensional knapsacks against OR-Tools on the same host.

Sets: 2DPackLib's class A (43 two-dimensional plates), OR-Library's ``mknap1`` (7 problems, m 5..10,
at their published optima) and generated Chu-Beasley-style instances ([CB98]; n = 100 with m = 5, 10,
30 and tightness 0.25, 0.5, 0.75, and n = 250, 500 with m = 5, tightness 0.5). Per instance:
clsolve's ``auto``, ``mkp-bnb`` (host) and ``mkp-dfs`` (device) end to end with items under the time limit; OR-Tools'
multidimensional branch and bound (values only) and CP-SAT (every core of the host) under the same
limit where OR-Tools is installed. Class A also reports the totals over its 43 instances, and the set
solved in one ``solve_many`` (the best of 3).
"""

from __future__ import annotations

import datetime
import sys
import time
from typing import Any

import clsolve
from clsolve import FormatError, Knapsack, formats, get_device
from clsolve.generators import chu_beasley

from .common import best, cpsat_solve, data_root, fresh, ortools_solve, solve_row

DEFAULT_TIME_LIMIT = 10.0
SEARCHES = ("mkp-bnb", "mkp-dfs")
#: Generated Chu-Beasley-style cases: (n, m, tightness).
CHU_BEASLEY = [(100, m, alpha) for m in (5, 10, 30) for alpha in (0.25, 0.5, 0.75)] + [(250, 5, 0.5), (500, 5, 0.5)]


def _sets(args) -> dict[str, list[Knapsack]]:
    root = data_root(args.data)
    sets: dict[str, list[Knapsack]] = {}
    class_a = root / "2dpacklib" / "classA" / "class_A_only.txt" if root else None
    if class_a is not None and class_a.is_file():
        sets["class-a"] = formats.read(class_a)
    mknap1 = root / "orlib-mkp" / "mknap1.txt" if root else None
    if mknap1 is not None and mknap1.is_file():
        sets["mknap1"] = formats.read(mknap1, scale=10)
    cases = CHU_BEASLEY[:1] if args.quick else CHU_BEASLEY
    sets["chu-beasley"] = [chu_beasley(n, m, alpha, seed=1) for n, m, alpha in cases]
    if not sets:
        raise FormatError("kpm", None, "no instances (pass --data or set CLSOLVE_DATA)")
    return sets


def _peers(problem: Knapsack, limit: float) -> dict:
    row: dict = {}
    start = time.perf_counter()
    value = ortools_solve(problem, time_limit=limit)
    if value is not None:
        row["ortools_bnb"] = {
            "seconds": time.perf_counter() - start,
            "proved": value != -1,
            "value": value if value != -1 else None,
        }
        row["cpsat"] = cpsat_solve(problem, limit)
    return row


def _row(problem: Knapsack, device, limit: float) -> dict:
    row: dict[str, Any] = {"name": problem.name, "n": problem.n, "m": problem.m, "known_optimum": problem.known_optimum}
    row["auto"] = solve_row(fresh([problem])[0], "auto", device, limit)
    for solver in SEARCHES:  # where auto chose one of them, that run is its row too
        row[solver] = (
            row["auto"] if row["auto"].get("solver") == solver else solve_row(fresh([problem])[0], solver, device, limit)
        )
    row.update(_peers(problem, limit))
    best = row["auto"]
    if problem.known_optimum is not None and best.get("optimal"):
        row["equals_known_optimum"] = best["value"] == problem.known_optimum
    return row


def _searches(row: dict) -> str:
    return "; ".join(
        f"{solver} {row[solver]['seconds']:.3f} s{' proved' if row[solver].get('optimal') else ''}" for solver in SEARCHES
    )


def _totals(rows: list[dict]) -> dict:
    out: dict[str, Any] = {"instances": len(rows)}
    for key in ("auto", *SEARCHES, "ortools_bnb", "cpsat"):
        entries = [r[key] for r in rows if r.get(key)]
        if len(entries) == len(rows):
            out[key] = {
                "seconds": sum(e["seconds"] for e in entries),
                "proved": sum(bool(e.get("optimal", e.get("proved"))) for e in entries),
            }
    return out


def _batch(problems: list[Knapsack], device, repeats: int = 3) -> dict:
    """The whole set in one ``solve_many`` (auto), the best of ``repeats`` runs on fresh copies after a
    warm one."""
    seconds, solutions = best(
        repeats, lambda batch: list(clsolve.solve_many(batch, solver="auto", device=device)), lambda: fresh(problems)
    )
    return {
        "seconds": seconds,
        "instances": len(problems),
        "proved": sum(s.optimal for s in solutions),
        "solvers": sorted({s.solver for s in solutions}),
    }


def _warm_up(sets: dict[str, list[Knapsack]], device, limit: float) -> None:
    """Before timing: every solver's kernels built (per m, and the launch shapes the dense DPs pick per
    instance) and OR-Tools loaded (its first call costs tens of milliseconds): ``auto`` on every class
    A and ``mknap1`` instance, the searches on the device and OR-Tools on the first plates, and a small
    instance of every m the sets hold; results dropped."""
    for problem in sets.get("class-a", []) + sets.get("mknap1", []):
        solve_row(fresh([problem])[0], "auto", device, limit)
    for problem in sets.get("class-a", [])[:2]:
        for solver in SEARCHES:
            clsolve.solve(fresh([problem])[0], solver=solver, device=device, host_nodes=0)
        _peers(problem, limit)
    if "class-a" in sets:
        clsolve.solve_many(fresh(sets["class-a"][:4]), solver="dp-batch", device=device)
    for m in sorted({p.m for problems in sets.values() for p in problems}):
        small = chu_beasley(12, m, 0.5, seed=0)
        for solver in SEARCHES:
            clsolve.solve(small, solver=solver, device=device, host_nodes=0)


def run(args) -> dict:
    device = get_device(args.device)
    limit = float(args.time_limit) if getattr(args, "time_limit", None) else DEFAULT_TIME_LIMIT
    print(f"device: {device.label}; {limit} s per instance", file=sys.stderr)
    sets = _sets(args)
    _warm_up(sets, device, limit)
    results: dict[str, list[dict]] = {}
    for name, problems in sets.items():
        results[name] = []
        for problem in problems:
            row = _row(problem, device, limit)
            results[name].append(row)
            peers = ", ".join(f"{k} {row[k]['seconds']:.3f} s" for k in ("ortools_bnb", "cpsat") if row.get(k))
            print(
                f"  {name}: {problem.name}: auto ({row['auto'].get('solver')}) {row['auto']['seconds']:.3f} s"
                f"{' proved' if row['auto'].get('optimal') else ''}; {_searches(row)}; {peers}",
                file=sys.stderr,
            )
    batch = _batch(sets["class-a"], device) if "class-a" in sets else None
    return {
        "benchmark": "kpm",
        "class_a_solve_many": batch,
        "device": device.describe(),
        "time_limit_seconds": limit,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "sets": results,
        "totals": {name: _totals(rows) for name, rows in results.items()},
        "note": "seconds are end to end per instance with items (presolve, search, the engine's check), one run "
        "each on fresh copies (where auto chose mkp-bnb or mkp-dfs, its run is that solver's row too); "
        "OR-Tools' KNAPSACK_MULTIDIMENSION_BRANCH_AND_BOUND_SOLVER (values only) "
        "and CP-SAT (all host cores) on the same host under the same limit",
    }
