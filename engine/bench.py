"""``clsolve bench``: measured speed against the floor the device's own copy bandwidth sets.

For the paper's dense DP (one item per pass) every cell update must at least read the previous value
and write the new one (2 x value bytes) plus one decision bit, so ``floor_seconds = cell_updates *
bytes_per_cell / copy_bandwidth``; ``ratio_to_floor = floor_seconds / kernel_seconds`` (1.0 = at that
floor; above 1 is possible because dp-rows fuses two items per pass). ``ratio_to_fused_floor`` uses
the fused scheme's own floor (one value read and written per two items, plus the bits). Results are
JSON (stdout, or ``--out``); progress goes to stderr.
"""
from __future__ import annotations

import datetime
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
import pyopencl as cl

from . import api, formats, registry
from .buffers import fill
from .devices import Device, get_device
from .dptable import value_dtype
from .problems import Knapsack
from .solution import check_many

KP01_ITEMS = (1000, 2000, 5000, 10000)
KP01_CAPACITIES = (10**5, 10**6, 10**7)


def data_root(explicit: str | None = None) -> Path | None:
    """The shared data folder: --data, $CLSOLVE_DATA, or ``../shared/data`` above the working dir."""
    if explicit:
        return Path(explicit)
    if os.environ.get("CLSOLVE_DATA"):
        return Path(os.environ["CLSOLVE_DATA"])
    here = Path.cwd().resolve()
    for folder in [here, *here.parents]:
        for candidate in (folder / "shared" / "data", folder.parent / "shared" / "data"):
            if candidate.is_dir():
                return candidate
    return None


def copy_bandwidth(device: Device, megabytes: int) -> float:
    """Bytes per second moved (read + written) by the device's own buffer-to-buffer copy."""
    size = megabytes * 2**20
    ctx, queue = device.context, device.queue
    src = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, size)
    dst = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, size)
    fill(queue, src, 1)
    queue.finish()
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        cl.enqueue_copy(queue, dst, src)
        queue.finish()
        best = min(best, time.perf_counter() - start)
    return 2 * size / best


def uncorrelated(n: int, capacity: int, seed: int) -> Knapsack:
    """Pisinger's uncorrelated type with weights scaled to the capacity (about 20 items fit)."""
    rng = np.random.default_rng(seed)
    top = max(1, capacity // 10)
    weights = rng.integers(1, top + 1, size=n)
    profits = rng.integers(1, 1001, size=n)
    return Knapsack(profits, weights, capacity, name=f"uncorrelated n={n} c={capacity}")


def measure(problem: Knapsack, solver: str, device: Device, bandwidth: float, repeats: int) -> dict:
    best = None
    for _ in range(repeats):
        solution = api.solve(problem, solver=solver, device=device)
        if best is None or solution.timings.kernels < best.timings.kernels:
            best = solution
    states = problem.cells()
    updates = problem.n * states
    value_bytes = value_dtype(problem).itemsize
    bytes_per_cell = 2 * value_bytes + 1 / 8          # one item per pass: read f_{i-1}, write f_i, one bit
    fused_bytes_per_cell = value_bytes + 1 / 8        # two items per pass: a row read and written per pair
    floor = updates * bytes_per_cell / bandwidth
    t = best.timings
    return {
        "name": problem.name, "n": problem.n, "capacities": problem.capacities.tolist(), "states": states,
        "cell_updates": updates, "value": best.value, "items": int(best.selected.sum()),
        "known_optimum": problem.known_optimum,
        "seconds": {"total": t.total, "upload": t.upload, "kernels": t.kernels, "download": t.download, "host": t.host},
        "cell_updates_per_second": updates / t.kernels if t.kernels else None,
        "bytes_per_cell_floor": bytes_per_cell, "floor_seconds": floor,
        "ratio_to_floor": floor / t.kernels if t.kernels else None,
        "fused_bytes_per_cell_floor": fused_bytes_per_cell,
        "ratio_to_fused_floor": updates * fused_bytes_per_cell / bandwidth / t.kernels if t.kernels else None,
        "notes": best.notes,
    }


def run_dp_rows(args) -> dict:
    device = get_device(args.device)
    print(f"device: {device.label}", file=sys.stderr)
    bandwidth = copy_bandwidth(device, 1024 if device.is_gpu else 128)
    print(f"copy bandwidth: {bandwidth / 1e9:.1f} GB/s", file=sys.stderr)
    items = KP01_ITEMS[:1] if args.quick else KP01_ITEMS
    capacities = KP01_CAPACITIES[:1] if args.quick else KP01_CAPACITIES
    cases = []
    api.solve(uncorrelated(50, 1000, 0), solver=args.solver, device=device)  # builds the kernels
    for capacity in capacities:
        for n in items:
            problem = uncorrelated(n, capacity, seed=n + capacity)
            print(f"kp01 {problem.name}", file=sys.stderr)
            cases.append({"set": "kp01", **measure(problem, args.solver, device, bandwidth, args.repeats)})
    root = data_root(args.data)
    class_a = root / "2dpacklib" / "classA" / "class_A_only.txt" if root else None
    if class_a is not None and class_a.is_file():
        problems = formats.read(class_a)
        if args.quick:
            problems = [p for p in problems if p.name in ("a01", "a33")]
        for problem in problems:
            print(f"class A {problem.name}", file=sys.stderr)
            cases.append({"set": "class-a", **measure(problem, args.solver, device, bandwidth, args.repeats)})
    else:
        print("class A data not found (pass --data): skipped", file=sys.stderr)
    return {
        "benchmark": "dp-rows", "solver": args.solver,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "device": device.describe(), "copy_bandwidth_bytes_per_second": bandwidth,
        "repeats": args.repeats, "cases": cases,
    }


def ortools_solve(problem: Knapsack, time_limit: float | None = None) -> int | None:
    """OR-Tools' multidimensional branch and bound on one problem (None when OR-Tools is absent; with
    ``time_limit``, -1 when it stopped there without proving its answer)."""
    try:
        from ortools.algorithms.python import knapsack_solver
    except ImportError:
        return None
    solver = knapsack_solver.KnapsackSolver(
        knapsack_solver.SolverType.KNAPSACK_MULTIDIMENSION_BRANCH_AND_BOUND_SOLVER, "clsolve-bench")
    if time_limit is not None:
        solver.set_time_limit(time_limit)
    solver.init(problem.profits.tolist(), problem.weights.T.tolist(), problem.capacities.tolist())
    value = int(solver.solve())
    return value if time_limit is None or solver.is_solution_optimal() else -1


def _two_d_set(args) -> tuple[str, list[Knapsack]]:
    root = data_root(args.data)
    if args.name == "msb":
        folder = root / "2dpacklib" / "MSB-630_Unibo" if root else None
        if folder is None or not folder.is_dir():
            raise SystemExit("clsolve bench msb: MSB-630 folder not found (pass --data)")
        return "MSB-630", [formats.read(f)[0] for f in sorted(folder.glob("*.json"))]
    path = root / "2dpacklib" / "classA" / "class_A_only.txt" if root else None
    if path is None or not path.is_file():
        raise SystemExit("clsolve bench class-a: class A file not found (pass --data)")
    return "class A", formats.read(path)


def _fresh(problems: list[Knapsack]) -> list[Knapsack]:
    """New problem objects with the same data, so no cached presolve carries over between runs."""
    return [Knapsack.derived(p.profits, p.weights, p.capacities, p.name, p.total_profit) for p in problems]


def _timed_batch(problems: list[Knapsack], device: Device, repeats: int, **options) -> tuple[float, list]:
    """Best end-to-end seconds of ``solve_many`` over ``repeats`` runs (fresh problem objects each run)."""
    best, solutions = float("inf"), []
    for _ in range(repeats):
        batch = _fresh(problems)
        start = time.perf_counter()
        solutions = api.solve_many(batch, device=device, **options)
        best = min(best, time.perf_counter() - start)
    return best, solutions


def batch_phases(problems: list[Knapsack], device: Device, **options) -> dict:
    """Where one ``solve_many`` run's time goes: presolve and planning, the solver's host work, upload,
    kernels, download, and the engine's check, in milliseconds (the steps of ``api.solve_many``)."""
    batch = _fresh(problems)
    start = time.perf_counter()
    solver = registry.load(options.pop("solver"), **options)
    solver.checked_plan_many(batch, device)
    planned = time.perf_counter()
    solutions = solver.solve_many(batch, device)
    solved = time.perf_counter()
    assert check_many(batch, solutions) is None
    checked = time.perf_counter()
    phases: dict[str, dict] = {}
    for solution in solutions:  # each batch's timings, shared by its instances (divided by their count)
        note = next((n for n in solution.notes if " in a batch of " in n), None)
        if note is None:
            phases.setdefault("solved by presolve", {"instances": 0})["instances"] += 1
            continue
        method, count = note.split(" in a batch of ")[0], int(note.split(" in a batch of ")[1].split(";")[0])
        phases.setdefault(method, {"instances": count, **{f: getattr(solution.timings, f) * count * 1e3
                                                          for f in ("host", "upload", "kernels", "download")}})
    inner = sum(v.get(f, 0.0) for v in phases.values() for f in ("host", "upload", "kernels", "download"))
    return {"presolve_and_plan_ms": (planned - start) * 1e3, "solve_ms": (solved - planned) * 1e3,
            "solve_other_host_ms": (solved - planned) * 1e3 - inner, "check_ms": (checked - solved) * 1e3,
            "total_ms": (checked - start) * 1e3, "batches": phases}


def run_batch_set(args) -> dict:
    """Table 1 of paper 000 / Fig. 1 of paper 001: sequential, dp-rows one at a time, dp-batch at once."""
    device = get_device(args.device)
    label, problems = _two_d_set(args)
    print(f"device: {device.label}; {len(problems)} {label} instances", file=sys.stderr)
    updates = sum(p.n * p.cells() for p in problems)
    bandwidth = copy_bandwidth(device, 256 if device.is_gpu else 64)
    rows: dict[str, dict] = {}
    variants = {"dp-batch": {}, "dp-batch presolve=False": {"presolve": False},
                "dp-batch method=dp presolve=False": {"method": "dp", "presolve": False}}
    values: dict[str, list[int]] = {}
    for name, options in variants.items():
        api.solve_many(problems[:3], solver="dp-batch", device=device, **options)  # builds the kernels
        seconds, solutions = _timed_batch(problems, device, args.repeats, solver="dp-batch", **options)
        values[name] = [s.value for s in solutions]
        rows[name] = {"seconds_total": seconds, "seconds_mean": seconds / len(problems),
                      "methods": sorted({n.split(" in a batch")[0] for s in solutions for n in s.notes
                                         if " in a batch" in n}),
                      "phases": batch_phases(problems, device, solver="dp-batch", **options)}
        print(f"{name}: {seconds:.4f} s", file=sys.stderr)
    dense = rows["dp-batch method=dp presolve=False"]
    dense["cell_updates_per_second"] = updates / dense["seconds_total"]
    kernel_seconds = dense["phases"]["batches"]["dynamic programming"]["kernels"] / 1e3
    dense["floor_seconds"] = updates * (2 * 4 + 0.125) / bandwidth
    dense["ratio_to_floor_kernels"] = dense["floor_seconds"] / kernel_seconds
    api.solve(problems[0], solver="dp-rows", device=device, presolve=False)
    start = time.perf_counter()
    values["dp-rows"] = [api.solve(p, solver="dp-rows", device=device, presolve=False).value for p in problems]
    elapsed = time.perf_counter() - start
    rows["dp-rows presolve=False"] = {"seconds_total": elapsed, "seconds_mean": elapsed / len(problems)}
    print(f"dp-rows one at a time: {elapsed:.4f} s", file=sys.stderr)
    sample = problems if args.full else problems[:: max(1, len(problems) // 20)]
    start = time.perf_counter()
    reference = {id(p): api.solve(p, solver="sequential").value for p in sample}
    elapsed = time.perf_counter() - start
    rows["sequential"] = {"seconds_mean": elapsed / len(sample), "seconds_total": elapsed / len(sample) * len(problems),
                          "measured_instances": len(sample),
                          "note": "" if args.full else "total extrapolated from the measured sample (--full measures all)"}
    print(f"sequential: {elapsed / len(sample):.4f} s per instance", file=sys.stderr)
    first = values["dp-batch"]
    mismatches = sum(1 for v in values.values() for a, b in zip(first, v) if a != b)
    mismatches += sum(1 for p, v in zip(problems, first) if reference.get(id(p), v) != v)
    if ortools_solve(problems[0]) is not None:
        start = time.perf_counter()
        ortools = [ortools_solve(p) for p in problems]
        elapsed = time.perf_counter() - start
        mismatches += sum(1 for v, o in zip(first, ortools) if v != o)
        rows["ortools-bnb"] = {"seconds_total": elapsed, "seconds_mean": elapsed / len(problems),
                               "note": "KNAPSACK_MULTIDIMENSION_BRANCH_AND_BOUND_SOLVER, values only, host CPU"}
        print(f"OR-Tools B&B: {elapsed:.4f} s", file=sys.stderr)
    for row in rows.values():
        row["speedup_of_dp_batch"] = row["seconds_total"] / rows["dp-batch"]["seconds_total"]
    return {
        "benchmark": args.name, "set": label, "instances": len(problems), "cell_updates_dense": updates,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "device": device.describe(), "copy_bandwidth_bytes_per_second": bandwidth, "value_mismatches": mismatches,
        "solvers": rows,
        "note": "times are end to end (presolve, planning, upload, kernels, backtracking, download, the engine's "
                "check) with items, kernels built beforehand, fresh problem objects each run; dp-batch rows are "
                "the best of --repeats runs. 'phases' splits one more run into its steps (ms). presolve=False "
                "solves the instances as given (the papers' setting); the dense-DP floor assumes one item per "
                "pass: a 4-byte value read and written and one decision bit per cell update",
    }


def correlated(n: int, seed: int) -> Knapsack:
    """Paper 003's Table I: w uniform in [1, 100], p = w + 10, C = sum(w) / 2."""
    rng = np.random.default_rng(seed)
    weights = rng.integers(1, 101, n)
    return Knapsack(weights + 10, weights, int(weights.sum()) // 2, name=f"correlated n={n} seed={seed}")


def uncorrelated_at(capacity: int, n: int, seed: int) -> Knapsack:
    """Uncorrelated items whose weights sum to about twice ``capacity``."""
    rng = np.random.default_rng(seed)
    top = max(2, 4 * capacity // n)
    return Knapsack(rng.integers(1, top, n), rng.integers(1, top, n), capacity,
                    name=f"uncorrelated n={n} C={capacity:.0e} seed={seed}")


#: OR-Tools' branch and bound gets this many instances of each case, each with this time limit.
ORTOOLS_INSTANCES, ORTOOLS_SECONDS = 3, 10.0


def _bnb_case(problems: list[Knapsack], device: Device, time_limit: float, check: bool, ortools: bool,
              **options) -> dict:
    """Solve each problem with bnb (end to end); nodes and the host/device split from the solutions."""
    rows = []
    for problem in problems:
        start = time.perf_counter()
        solution = api.solve(problem, solver="bnb", device=device, time_limit=time_limit, **options)
        seconds = time.perf_counter() - start
        row = {"seconds": seconds, "optimal": solution.optimal, "value": solution.value, **solution.stats}
        if check and problem.cells() * problem.n < 5e10:
            row["dp_rows_value"] = api.solve(problem, solver="dp-rows", device=device).value
        if ortools and len(rows) < ORTOOLS_INSTANCES:
            start = time.perf_counter()
            value = ortools_solve(problem, time_limit=ORTOOLS_SECONDS)
            row["ortools_seconds"] = time.perf_counter() - start
            row["ortools_proved"] = value != -1
        rows.append(row)
    times = [r["seconds"] for r in rows]
    out = {"instances": len(rows), "solved_to_optimum": sum(r["optimal"] for r in rows),
           "seconds_mean": sum(times) / len(times), "seconds_max": max(times),
           "nodes_mean": sum(r.get("nodes", 0) for r in rows) / len(rows),
           "host_steps_mean": sum(r.get("host_steps", 0) for r in rows) / len(rows),
           "device_steps_mean": sum(r.get("device_steps", 0) for r in rows) / len(rows),
           "host_seconds_mean": sum(r.get("host_seconds", 0) for r in rows) / len(rows),
           "device_seconds_mean": sum(r.get("device_seconds", 0) for r in rows) / len(rows),
           "value_mismatches": sum(1 for r in rows if "dp_rows_value" in r and r["optimal"]
                                   and r["dp_rows_value"] != r["value"])}
    timed = [r for r in rows if "ortools_seconds" in r]
    if timed:
        out["ortools_instances"] = len(timed)
        out["ortools_seconds_mean"] = sum(r["ortools_seconds"] for r in timed) / len(timed)
        out["ortools_seconds_max"] = max(r["ortools_seconds"] for r in timed)
        out["ortools_proved_optimal"] = sum(r["ortools_proved"] for r in timed)
        out["ortools_time_limit_seconds"] = ORTOOLS_SECONDS
    return out


def run_bnb(args) -> dict:
    """Paper 003's Table I (and beyond) and uncorrelated instances with capacities 1e7 to 1e12."""
    device = get_device(args.device)
    print(f"device: {device.label}", file=sys.stderr)
    ortools = ortools_solve(Knapsack([1], [1], 1)) is not None
    api.solve(correlated(50, 0), solver="bnb", device=device)  # builds the kernels
    sizes = (100, 200) if args.quick else (100, 200, 300, 400, 500, 1000, 10000)
    count = 3 if args.quick else 10
    limit = 20.0
    cases = {}
    for n in sizes:
        problems = [correlated(n, seed) for seed in range(count if n <= 1000 else 2)]
        cases[f"correlated n={n}"] = _bnb_case(problems, device, limit, True, ortools and n <= 500)
        print(f"correlated n={n}: {cases[f'correlated n={n}']['seconds_max']:.4f} s max", file=sys.stderr)
    for capacity in ((10**7,) if args.quick else (10**7, 10**8, 10**9, 10**10, 10**11, 10**12)):
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
            solution = api.solve(problem, solver="bnb", device=device, time_limit=limit)
            published[path.name] = {"seconds": time.perf_counter() - start, "optimal": solution.optimal,
                                    "equals_published_optimum": solution.value == optimum,
                                    "nodes": solution.stats.get("nodes")}
        cases["large_scale (Pisinger types 1-3, published optima)"] = published
        print("large_scale: done", file=sys.stderr)
    thresholds = {}
    for threshold in ((0, 10**9) if args.quick else (0, 16, 192, 4096, 10**9)):
        problems = [correlated(500 if not args.quick else 200, seed) for seed in range(count)]
        thresholds[str(threshold)] = _bnb_case(problems, device, limit, False, False, host_threshold=threshold)
        print(f"host_threshold={threshold}: {thresholds[str(threshold)]['seconds_mean']:.4f} s mean", file=sys.stderr)
    return {
        "benchmark": "bnb", "device": device.describe(), "ortools_installed": ortools,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "cases": cases, "host_threshold_sweep_correlated": thresholds,
        "note": "seconds are end to end per instance (sort, search, items, the engine's check), kernels built "
                f"beforehand; time limit {limit} s per instance; values checked against dp-rows where its table is "
                "small; OR-Tools (KNAPSACK_MULTIDIMENSION_BRANCH_AND_BOUND_SOLVER, host CPU, values only) on the first "
                f"{ORTOOLS_INSTANCES} instances of each case with a {ORTOOLS_SECONDS} s limit, where installed",
    }


def run_mckp(args) -> dict:
    from .bench_mckp import run
    return run(args)


def run_scale(args) -> dict:
    from .bench_scale import run
    return run(args)


def run_wavefront(args) -> dict:
    from . import bench_wavefront
    return bench_wavefront.run(args)


BENCHMARKS = {"bnb": run_bnb, "dp-rows": run_dp_rows, "mckp": run_mckp, "msb": run_batch_set,
              "class-a": run_batch_set, "scale": run_scale, "wavefront": run_wavefront}


def add_parser(sub):
    bench = sub.add_parser("bench", help="run a benchmark, print JSON",
                           description="Measure a solver; JSON on stdout (or --out), progress on stderr.")
    bench.add_argument("name", choices=sorted(BENCHMARKS), help="which benchmark")
    bench.add_argument("--device", default=None, help="device spec (default: $CLSOLVE_DEVICE or auto)")
    bench.add_argument("--solver", default="dp-rows", help="solver to time (default dp-rows)")
    bench.add_argument("--data", default=None, help="the shared data folder (default: $CLSOLVE_DATA or ../shared/data)")
    bench.add_argument("--quick", action="store_true", help="smallest sizes only (for CPUs and smoke tests)")
    bench.add_argument("--repeats", type=int, default=2, help="runs per case; the fastest counts")
    bench.add_argument("--full", action="store_true", help="msb/class-a: time sequential on every instance; mckp: add N = 1e6")
    bench.add_argument("--copies", type=int, default=100, help="scale: copies of MSB-630 in the batch (default 100)")
    bench.add_argument("--max-cities", type=int, default=None,
                       help="wavefront: largest Held-Karp n to try (default: up to 33, stopping at the first refusal)")
    bench.add_argument("--out", default=None, help="write the JSON here instead of stdout")
    return bench


def main(args) -> int:
    result = BENCHMARKS[args.name](args)
    text = json.dumps(result, indent=1)
    if args.out:
        Path(args.out).write_text(text + "\n")
        print(f"wrote {args.out}", file=sys.stderr)
    else:
        print(text)
    return 0
