"""``clsolve bench``: measured speed against the floor the device's own copy bandwidth sets.

For the paper's dense DP (one item per pass) every cell update must at least read the previous value
and write the new one (2 x value bytes) plus one decision bit, so ``floor_seconds = cell_updates *
bytes_per_cell / copy_bandwidth``; ``ratio_to_floor = floor_seconds / kernel_seconds`` (1.0 = at that
floor; above 1 is possible because dp-rows fuses two items per pass). ``ratio_to_fused_floor`` uses
the fused scheme's own floor (one value read and written per two items, plus the bits). Results are JSON (stdout, or ``--out``); progress goes to stderr.
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

from . import api, formats
from .buffers import fill
from .devices import Device, get_device
from .dptable import value_dtype
from .problems import Knapsack

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


def ortools_solve(problem: Knapsack) -> int | None:
    """OR-Tools' multidimensional branch and bound on one problem (None when OR-Tools is absent)."""
    try:
        from ortools.algorithms.python import knapsack_solver
    except ImportError:
        return None
    solver = knapsack_solver.KnapsackSolver(
        knapsack_solver.SolverType.KNAPSACK_MULTIDIMENSION_BRANCH_AND_BOUND_SOLVER, "clsolve-bench")
    solver.init(problem.profits.tolist(), problem.weights.T.tolist(), problem.capacities.tolist())
    return int(solver.solve())


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


def run_batch_set(args) -> dict:
    """Table 1 of paper 000 / Fig. 1 of paper 001: sequential, dp-rows one at a time, dp-batch at once."""
    device = get_device(args.device)
    label, problems = _two_d_set(args)
    print(f"device: {device.label}; {len(problems)} {label} instances", file=sys.stderr)
    updates = sum(p.n * p.cells() for p in problems)
    rows = {}
    api.solve_many(problems[:2], solver="dp-batch", device=device)  # builds the kernels
    api.solve(problems[0], solver="dp-rows", device=device)
    best = float("inf")
    for _ in range(args.repeats):
        start = time.perf_counter()
        batch = api.solve_many(problems, solver="dp-batch", device=device)
        best = min(best, time.perf_counter() - start)
    values = [s.value for s in batch]
    rows["dp-batch"] = {"seconds_total": best, "seconds_mean": best / len(problems),
                        "methods": sorted({s.notes[0].split(" in a batch")[0] for s in batch})}
    print(f"dp-batch: {best:.4f} s", file=sys.stderr)
    api.solve_many(problems[:2], solver="dp-batch", device=device, method="dp")
    best_dp = float("inf")
    for _ in range(args.repeats):
        start = time.perf_counter()
        dense = api.solve_many(problems, solver="dp-batch", device=device, method="dp")
        best_dp = min(best_dp, time.perf_counter() - start)
    rows["dp-batch method=dp"] = {"seconds_total": best_dp, "seconds_mean": best_dp / len(problems),
                                  "cell_updates_per_second": updates / best_dp}
    print(f"dp-batch method=dp: {best_dp:.4f} s", file=sys.stderr)
    start = time.perf_counter()
    single = [api.solve(p, solver="dp-rows", device=device).value for p in problems]
    elapsed = time.perf_counter() - start
    rows["dp-rows"] = {"seconds_total": elapsed, "seconds_mean": elapsed / len(problems)}
    print(f"dp-rows one at a time: {elapsed:.4f} s", file=sys.stderr)
    sample = problems if args.full else problems[:: max(1, len(problems) // 20)]
    start = time.perf_counter()
    reference = {id(p): api.solve(p, solver="sequential").value for p in sample}
    elapsed = time.perf_counter() - start
    rows["sequential"] = {"seconds_mean": elapsed / len(sample), "seconds_total": elapsed / len(sample) * len(problems),
                          "measured_instances": len(sample),
                          "note": "" if args.full else "total extrapolated from the measured sample (--full measures all)"}
    print(f"sequential: {elapsed / len(sample):.4f} s per instance", file=sys.stderr)
    mismatches = sum(1 for p, v, s, d in zip(problems, values, single, dense)
                     if v != s or v != d.value or reference.get(id(p), v) != v)
    if ortools_solve(problems[0]) is not None:
        start = time.perf_counter()
        ortools = [ortools_solve(p) for p in problems]
        elapsed = time.perf_counter() - start
        mismatches += sum(1 for v, o in zip(values, ortools) if v != o)
        rows["ortools-bnb"] = {"seconds_total": elapsed, "seconds_mean": elapsed / len(problems),
                               "note": "KNAPSACK_MULTIDIMENSION_BRANCH_AND_BOUND_SOLVER, values only, host CPU"}
        print(f"OR-Tools B&B: {elapsed:.4f} s", file=sys.stderr)
    for name, row in rows.items():
        row["speedup_of_dp_batch"] = row["seconds_total"] / rows["dp-batch"]["seconds_total"]
    return {
        "benchmark": args.name, "set": label, "instances": len(problems), "cell_updates": updates,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "device": device.describe(), "value_mismatches": mismatches, "solvers": rows,
        "note": "dp-batch and dp-rows times are end to end (upload, kernels, backtracking, download) with items, "
                "kernels built beforehand; the best of --repeats runs for dp-batch",
    }


BENCHMARKS = {"dp-rows": run_dp_rows, "msb": run_batch_set, "class-a": run_batch_set}


def add_parser(sub):
    bench = sub.add_parser("bench", help="run a benchmark, print JSON",
                           description="Measure a solver; JSON on stdout (or --out), progress on stderr.")
    bench.add_argument("name", choices=sorted(BENCHMARKS), help="which benchmark")
    bench.add_argument("--device", default=None, help="device spec (default: $CLSOLVE_DEVICE or auto)")
    bench.add_argument("--solver", default="dp-rows", help="solver to time (default dp-rows)")
    bench.add_argument("--data", default=None, help="the shared data folder (default: $CLSOLVE_DATA or ../shared/data)")
    bench.add_argument("--quick", action="store_true", help="smallest sizes only (for CPUs and smoke tests)")
    bench.add_argument("--repeats", type=int, default=2, help="runs per case; the fastest counts")
    bench.add_argument("--full", action="store_true", help="msb/class-a: time sequential on every instance")
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
