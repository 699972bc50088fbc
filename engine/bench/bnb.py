"""``clsolve bench bnb``: branch and bound on correlated and uncorrelated instances ([LE12]'s
Table I), against OR-Tools."""

from __future__ import annotations

import datetime
import sys
import time

import numpy as np

import clsolve
from clsolve import Device, Knapsack, formats, get_device

from .common import data_root, ortools_solve


def correlated(n: int, seed: int) -> Knapsack:
    """[LE12]'s Table I: w uniform in [1, 100], p = w + 10, C = sum(w) / 2."""
    rng = np.random.default_rng(seed)
    weights = rng.integers(1, 101, n)
    return Knapsack(weights + 10, weights, int(weights.sum()) // 2, name=f"correlated n={n} seed={seed}")


def uncorrelated_at(capacity: int, n: int, seed: int) -> Knapsack:
    """Uncorrelated items whose weights sum to about twice ``capacity``."""
    rng = np.random.default_rng(seed)
    top = max(2, 4 * capacity // n)
    return Knapsack(
        rng.integers(1, top, n), rng.integers(1, top, n), capacity, name=f"uncorrelated n={n} C={capacity:.0e} seed={seed}"
    )


#: OR-Tools' branch and bound gets this many instances of each case, each with this time limit.
ORTOOLS_INSTANCES, ORTOOLS_SECONDS = 3, 10.0


def _bnb_case(problems: list[Knapsack], device: Device, time_limit: float, check: bool, ortools: bool, **options) -> dict:
    """Solve each problem with bnb (end to end); nodes and the host/device split from the solutions."""
    rows: list[dict] = []
    for problem in problems:
        start = time.perf_counter()
        solution = clsolve.solve(problem, solver="bnb", device=device, time_limit=time_limit, **options)
        seconds = time.perf_counter() - start
        row = {"seconds": seconds, "optimal": solution.optimal, "value": solution.value, **solution.stats}
        if check and problem.cells() * problem.n < 5e10:
            row["dp_rows_value"] = clsolve.solve(problem, solver="dp-rows", device=device).value
        if ortools and len(rows) < ORTOOLS_INSTANCES:
            start = time.perf_counter()
            value = ortools_solve(problem, time_limit=ORTOOLS_SECONDS)
            row["ortools_seconds"] = time.perf_counter() - start
            row["ortools_proved"] = value != -1
        rows.append(row)
    times = [r["seconds"] for r in rows]
    out = {
        "instances": len(rows),
        "solved_to_optimum": sum(r["optimal"] for r in rows),
        "seconds_mean": sum(times) / len(times),
        "seconds_max": max(times),
        "nodes_mean": sum(r.get("nodes", 0) for r in rows) / len(rows),
        "host_steps_mean": sum(r.get("host_steps", 0) for r in rows) / len(rows),
        "device_steps_mean": sum(r.get("device_steps", 0) for r in rows) / len(rows),
        "host_seconds_mean": sum(r.get("host_seconds", 0) for r in rows) / len(rows),
        "device_seconds_mean": sum(r.get("device_seconds", 0) for r in rows) / len(rows),
        "value_mismatches": sum(1 for r in rows if "dp_rows_value" in r and r["optimal"] and r["dp_rows_value"] != r["value"]),
    }
    timed = [r for r in rows if "ortools_seconds" in r]
    if timed:
        out["ortools_instances"] = len(timed)
        out["ortools_seconds_mean"] = sum(r["ortools_seconds"] for r in timed) / len(timed)
        out["ortools_seconds_max"] = max(r["ortools_seconds"] for r in timed)
        out["ortools_proved_optimal"] = sum(r["ortools_proved"] for r in timed)
        out["ortools_time_limit_seconds"] = ORTOOLS_SECONDS
    return out


def run_bnb(args) -> dict:
    """[LE12]'s Table I (and beyond) and uncorrelated instances with capacities 1e7 to 1e12."""
    device = get_device(args.device)
    print(f"device: {device.label}", file=sys.stderr)
    ortools = ortools_solve(Knapsack([1], [1], 1)) is not None
    clsolve.solve(correlated(50, 0), solver="bnb", device=device)  # builds the kernels
    sizes = (100, 200) if args.quick else (100, 200, 300, 400, 500, 1000, 10000)
    count = 3 if args.quick else 10
    limit = 20.0
    cases = {}
    for n in sizes:
        problems = [correlated(n, seed) for seed in range(count if n <= 1000 else 2)]
        cases[f"correlated n={n}"] = _bnb_case(problems, device, limit, True, ortools and n <= 500)
        print(f"correlated n={n}: {cases[f'correlated n={n}']['seconds_max']:.4f} s max", file=sys.stderr)
    for capacity in (10**7,) if args.quick else (10**7, 10**8, 10**9, 10**10, 10**11, 10**12):
        problems = [uncorrelated_at(capacity, 1000, seed) for seed in range(3)]
        cases[f"uncorrelated n=1000 C={capacity:.0e}"] = _bnb_case(problems, device, limit, capacity <= 10**7, ortools)
        print(f"uncorrelated C={capacity:.0e}: done", file=sys.stderr)
    root = data_root(args.data)
    folder = root / "kp01" / "instances_01_KP" / "large_scale" if root else None
    if folder is not None and folder.is_dir() and not args.quick:
        published = {}
        for path in sorted(folder.iterdir(), key=lambda p: (p.name.split("_")[1], int(p.name.split("_")[2]))):
            (problem,) = formats.read(path)
            optimum = int((folder.parent / "large_scale-optimum" / path.name).read_text().strip())
            start = time.perf_counter()
            solution = clsolve.solve(problem, solver="bnb", device=device, time_limit=limit)
            published[path.name] = {
                "seconds": time.perf_counter() - start,
                "optimal": solution.optimal,
                "equals_published_optimum": solution.value == optimum,
                "nodes": solution.stats.get("nodes"),
            }
        cases["large_scale (Pisinger types 1-3, published optima)"] = published
        print("large_scale: done", file=sys.stderr)
    thresholds = {}
    for threshold in (0, 10**9) if args.quick else (0, 16, 192, 4096, 10**9):
        problems = [correlated(500 if not args.quick else 200, seed) for seed in range(count)]
        thresholds[str(threshold)] = _bnb_case(problems, device, limit, False, False, host_threshold=threshold)
        print(f"host_threshold={threshold}: {thresholds[str(threshold)]['seconds_mean']:.4f} s mean", file=sys.stderr)
    return {
        "benchmark": "bnb",
        "device": device.describe(),
        "ortools_installed": ortools,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "cases": cases,
        "host_threshold_sweep_correlated": thresholds,
        "note": "seconds are end to end per instance (sort, search, items, the engine's check), kernels built "
        f"beforehand; time limit {limit} s per instance; values checked against dp-rows where its table is "
        "small; OR-Tools (KNAPSACK_MULTIDIMENSION_BRANCH_AND_BOUND_SOLVER, host CPU, values only) on the first "
        f"{ORTOOLS_INSTANCES} instances of each case with a {ORTOOLS_SECONDS} s limit, where installed",
    }
