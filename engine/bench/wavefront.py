"""``clsolve bench wavefront``: [OM]'s problems on the wavefront solver.

* LCS of two random strings (alphabet 4) for lengths 1e4 .. 1e6: cell updates per second value-only
  (the sweep, no bit rows kept) and with the subsequence (plan and solve: bit rows kept, traced
  back), each run on a fresh copy of the problem (symbol codes paid every time), the store the plan
  chose, the default schedule (stripes on a GPU) beside the block diagonals, and for a run
  forced to stream its rows to host memory the share of copy time hidden behind compute. The floor
  for the subsequence run is writing m x n / 8 bytes of bit rows at the device's copy bandwidth; the
  sweep is bound by its critical path (``steps``: n / rows_per_step + words inner steps for
  stripes, a block's height per block diagonal for diagonals), reported in ns per step.
* KP1 rows (a check of the model against ``dp-rows``): light uncorrelated items, with runs applied on
  chip (``kp_block``, the default on a GPU) and with a launch per item (``block=0``): kernel seconds,
  cell updates per second, the bytes each moves through global memory per cell update (values read
  and written, decision bits) and the floor they set at the copy bandwidth.
* Held-Karp TSP: random Euclidean instances (TSPLIB EUC_2D rounding) from n = 16 up to the largest n
  the device holds (or ``--max-cities``), the TSPLIB files of the data folder, and one run streamed.
* ``pylcs`` and ``python-tsp``, when installed, timed on the same machine for comparison.
"""

# long module: the LCS and TSP benchmarks share their instances, warm-up and peers
from __future__ import annotations

import datetime
import itertools
import sys
import time
from typing import Any

import numpy as np

import clsolve
from clsolve import LCS, TSP, DoesNotFitError, InvalidOptionError, check, formats, get_device

from .common import best, copy_bandwidth, data_root
from .dp_rows import light

LCS_LENGTHS = (10**4, 3 * 10**4, 10**5, 3 * 10**5, 10**6)
LCS_QUICK = (10**3, 10**4)
TSP_QUICK = (8, 10, 12)


def _log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def random_strings(length: int, seed: int, alphabet: int = 4) -> LCS:
    rng = np.random.default_rng(seed)
    return LCS(rng.integers(0, alphabet, length), rng.integers(0, alphabet, length), name=f"random {length}")


def euclidean(n: int, seed: int) -> TSP:
    rng = np.random.default_rng(seed)
    xy = rng.integers(0, 1000, (n, 2)).astype(float)
    return TSP(formats.distances_from_coordinates("EUC_2D", xy), name=f"euclidean n={n} seed={seed}")


def _best_fresh(repeats: int, problem: LCS, run):
    """``_best`` of ``run(copy)`` on a fresh copy of ``problem`` each time: what a solver computes
    once per problem (symbol codes) is paid in every timed run."""
    return best(repeats, run, lambda: LCS(problem.a, problem.b, name=problem.name))


def _solve(solver, problem: LCS, device):
    """Plan and solve, as ``clsolve.solve`` does (without the engine's check, done after timing)."""
    return solver.solve(problem, device, solver.plan(problem, device))


def _keep_sweep(sweeps: list, result):
    """Note the sweep's own time (kernels) of an ``lcs_length`` result and pass the result on."""
    sweeps.append(result[1].kernels)
    return result


def bench_lcs(device, lengths, repeats: int, bandwidth: float) -> list[dict]:
    rows = []
    for length in lengths:
        problem = random_strings(length, seed=length)
        cells = problem.cells()
        row = {"m": length, "n": length, "cells": cells}
        solver: Any = clsolve.load_solver("wavefront")  # lcs_length: the value-only sweep
        sweeps: list[float] = []
        seconds, (value, _, details) = _best_fresh(repeats, problem, lambda p: _keep_sweep(sweeps, solver.lcs_length(p, device)))
        sweep = min(sweeps)
        steps = details["steps"]
        row.update(
            value_only_seconds=seconds,
            value_only_cells_per_second=cells / seconds,
            length=value,
            value_only_sweep_seconds=sweep,
            value_only_sweep_cells_per_second=cells / sweep,
            steps=steps,
            sweep_ns_per_step=sweep / steps * 1e9,
            geometry=details,
        )
        _log(
            f"lcs {length}: value only {seconds:.4f} s end to end, {cells / seconds / 1e9:.1f} G cells/s "
            f"(sweep alone {sweep:.4f} s, {cells / sweep / 1e9:.1f} G cells/s, {details['schedule']})"
        )
        if details["schedule"] != "diagonals":
            diagonals: Any = clsolve.load_solver("wavefront", schedule="diagonals")
            sweeps = []
            other, _ = _best_fresh(repeats, problem, lambda p: _keep_sweep(sweeps, diagonals.lcs_length(p, device)))
            row.update(diagonals_value_only_seconds=other, diagonals_value_only_sweep_seconds=min(sweeps))
        try:
            seconds, solution = _best_fresh(repeats, problem, lambda p: _solve(solver, p, device))
            check(problem, solution)
            assert solution.value == value
            floor = cells / 8 / bandwidth
            row.update(
                subsequence_seconds=seconds,
                subsequence_cells_per_second=cells / seconds,
                schedule=solution.stats["schedule"],
                store=solution.stats["store"],
                diagonals=solution.stats["diagonals"],
                bit_row_bytes=solution.stats["bit_row_bytes"],
                bit_row_write_floor_seconds=floor,
                ratio_to_floor=floor / seconds,
                timings=solution.timings.to_dict(),
            )
            _log(
                f"lcs {length}: with subsequence {seconds:.4f} s, {cells / seconds / 1e9:.1f} G cells/s "
                f"({solution.stats['store']}, {solution.stats['schedule']})"
            )
            if solution.stats["schedule"] != "diagonals":
                diagonals = clsolve.load_solver("wavefront", schedule="diagonals")
                other, _ = _best_fresh(repeats, problem, lambda p: _solve(diagonals, p, device))
                row["diagonals_subsequence_seconds"] = other
        except DoesNotFitError as exc:
            row["subsequence_refused"] = str(exc)
            _log(f"lcs {length}: with subsequence refused: {exc}")
        rows.append(row)
    return rows


#: Stripes (words per work-group) and rows per inner step of the stripes' tiling sweep.
STRIPE_WORDS = (32, 64, 128, 256)
STRIPE_STEP_ROWS = (4, 8, 12, 16, 20, 24, 31)
#: Block shapes (words per block, rows per block) and rows per inner step of the tiling sweep.
TILING_SHAPES = ((32, 1024), (32, 2048), (64, 1024), (64, 2048), (128, 1024), (128, 2048), (128, 4096), (256, 2048), (256, 4096))
TILING_STEP_ROWS = (1, 2, 4, 8, 16, 32)


def bench_lcs_tiling(device, length: int, repeats: int, quick: bool = False) -> list[dict]:
    """Value-only sweeps of one size under several block shapes (words per block x rows per block,
    block diagonals; words per stripe) and rows per inner step (rows a work-item updates between
    two barriers)."""
    problem = random_strings(length, seed=length)
    rows = []
    shapes, steps = (TILING_SHAPES[:1], (1, 8)) if quick else (TILING_SHAPES, TILING_STEP_ROWS)
    stripes = [((words, None), step) for words, step in itertools.product(STRIPE_WORDS, STRIPE_STEP_ROWS)]
    for (words, block_rows), step_rows in stripes[: 2 if quick else None] + list(itertools.product(shapes, steps)):
        if words > device.max_work_group_size:
            continue
        shape = {
            "schedule": "stripes" if block_rows is None else "diagonals",
            "words_per_block": words,
            "rows_per_block": block_rows,
            "rows_per_step": step_rows,
        }
        solver: Any = clsolve.load_solver("wavefront", **shape)
        sweeps: list[float] = []
        try:
            seconds, (_, _, details) = _best_fresh(repeats, problem, lambda p: _keep_sweep(sweeps, solver.lcs_length(p, device)))
        except InvalidOptionError as exc:  # a block shape this device cannot hold
            rows.append({**shape, "refused": str(exc)})
            continue
        steps, sweep = details["steps"], min(sweeps)
        rows.append(
            {
                **shape,
                "seconds": seconds,
                "cells_per_second": problem.cells() / seconds,
                "steps": steps,
                "sweep_seconds": sweep,
                "sweep_cells_per_second": problem.cells() / sweep,
                "sweep_ns_per_step": sweep / steps * 1e9,
            }
        )
        _log(
            f"lcs {length} tiling {shape['schedule']} {words} x {block_rows}, {step_rows} rows per step: "
            f"{problem.cells() / seconds / 1e9:.1f} G cells/s end to end, sweep {problem.cells() / sweep / 1e9:.1f}"
        )
    return rows


def bench_lcs_streamed(device, length: int) -> dict:
    problem = random_strings(length, seed=length)
    solver = clsolve.load_solver("wavefront", store="host")
    plan = solver.plan(problem, device)
    start = time.perf_counter()
    solution = solver.solve(problem, device, plan)
    seconds = time.perf_counter() - start  # includes allocating the page-locked host memory
    check(problem, solution)
    stats = solution.stats
    _log(f"lcs {length} streamed: {seconds:.4f} s, copies hidden {stats['copies_hidden_share']}")
    return {
        "m": length,
        "n": length,
        "seconds": seconds,
        "cells_per_second": problem.cells() / seconds,
        "copied_bytes": stats["copied_bytes"],
        "copy_seconds": stats["copy_seconds"],
        "copy_exposed_seconds": stats["copy_exposed_seconds"],
        "copies_hidden_share": stats["copies_hidden_share"],
        "timings": solution.timings.to_dict(),
    }


def bench_lcs_cells(device, length: int) -> dict:
    problem = random_strings(length, seed=length)
    solver: Any = clsolve.load_solver("wavefront", method="cells")
    seconds, (value, _, _) = best(2, lambda _: solver.lcs_length(problem, device))
    _log(f"lcs {length} cell sweep: {seconds:.4f} s, {problem.cells() / seconds / 1e9:.2f} G cells/s")
    return {
        "m": length,
        "n": length,
        "method": "cells",
        "value_only_seconds": seconds,
        "value_only_cells_per_second": problem.cells() / seconds,
        "length": value,
    }


def bench_pylcs(length: int) -> dict | None:
    try:
        import pylcs
    except ImportError:
        return None
    problem = random_strings(length, seed=length)
    a = "".join("ACGT"[s] for s in problem.a.tolist())
    b = "".join("ACGT"[s] for s in problem.b.tolist())
    start = time.perf_counter()
    value = pylcs.lcs_sequence_length(a, b)
    seconds = time.perf_counter() - start
    return {"m": length, "n": length, "seconds": seconds, "cells_per_second": problem.cells() / seconds, "length": value}


#: KP1 cases (n, capacity, heaviest weight): light items, about twice the capacity in all.
KP_CASES = ((10_000, 1_000_000, 300), (10_000, 2_500_000, 1_000), (10_000, 10_000_000, 4_000))
KP_QUICK = ((2_000, 100_000, 300),)


def kp_bytes_per_update(plan, items: int) -> float:
    """Bytes through global memory per cell update of a plan: a launch per item reads and writes the
    row once and writes a bit per state; a block reads its window (tile and halo) once, writes the
    tile once and a bit per state and item."""
    d = plan.details
    itemsize = 4 if d["value_type"] == "int" else 8
    blocked, blocks = int(d["blocked_items"]), int(d["blocks"])
    window = 1 + d["halo_rows"] / d["tile_rows"]
    return ((items - blocked) * 2 * itemsize + blocks * (window + 1) * itemsize + items / 8) / items


def bench_knapsack(device, cases, repeats: int, bandwidth: float) -> list[dict]:
    rows = []
    for n, capacity, top in cases:
        problem = light(n, capacity, top, seed=n + capacity)
        row: dict = {"name": problem.name, "n": n, "capacity": capacity, "cell_updates": n * (capacity + 1)}
        for key, options in (("default", {}), ("launch_per_item", {"block": 0})):
            solver = clsolve.load_solver("wavefront", **options)
            plan = solver.plan(problem, device)
            solver.solve(problem, device, plan)  # builds the kernels
            best = None
            for _ in range(repeats):
                solution = solver.solve(problem, device, plan)
                if best is None or solution.timings.kernels < best.timings.kernels:
                    best = solution
            assert best is not None
            check(problem, best)
            moved = kp_bytes_per_update(plan, n)
            kernels = best.timings.kernels
            row[key] = {
                "kernel_seconds": kernels,
                "seconds_total": best.timings.total,
                "value": int(best.value),
                "cell_updates_per_second": row["cell_updates"] / kernels,
                "blocks": int(plan.details["blocks"]),
                "blocked_items": int(plan.details["blocked_items"]),
                "halo_rows": int(plan.details["halo_rows"]),
                "launches": plan.launches,
                "global_bytes_per_update": moved,
                "floor_seconds": row["cell_updates"] * moved / bandwidth,
                "ratio_to_floor": row["cell_updates"] * moved / bandwidth / kernels,
            }
            _log(f"kp {problem.name} {key}: {kernels:.4f} s of kernels, {plan.details['blocks']} blocks")
        row["speedup_of_default"] = row["launch_per_item"]["kernel_seconds"] / row["default"]["kernel_seconds"]
        rows.append(row)
    return rows


def bench_tsp_case(device, problem: TSP, repeats: int, store: str = "auto") -> dict:
    solver = clsolve.load_solver("wavefront", store=store)
    plan = solver.plan(problem, device)
    seconds, solution = best(repeats, lambda _: solver.solve(problem, device, plan))
    check(problem, solution)
    stats = solution.stats
    row = {
        "name": problem.name,
        "n": problem.n,
        "seconds": seconds,
        "value": int(solution.value),
        "states": stats["states"],
        "evaluations": plan.cell_updates,
        "evaluations_per_second": plan.cell_updates / seconds,
        "store": stats["store"],
        "device_bytes": plan.device_bytes,
        "timings": solution.timings.to_dict(),
    }
    if stats["store"] == "host":
        row.update(copied_bytes=stats["copied_bytes"], copies_hidden_share=stats["copies_hidden_share"])
    _log(f"tsp {problem.name}: {seconds:.4f} s ({stats['store']})")
    return row


def bench_python_tsp(problem: TSP) -> dict | None:
    try:
        from python_tsp.exact import solve_tsp_dynamic_programming
    except ImportError:
        return None
    start = time.perf_counter()
    _, value = solve_tsp_dynamic_programming(problem.distances.astype(float))
    return {"name": problem.name, "n": problem.n, "seconds": time.perf_counter() - start, "value": int(value)}


#: The parts of the benchmark (``--parts``).
PARTS = ("lcs", "knapsack", "tsp")


def parts(asked: str | None) -> tuple[str, ...]:
    """The parts ``--parts`` names (comma-separated; None: all)."""
    if asked is None:
        return PARTS
    named = tuple(part.strip() for part in asked.split(",") if part.strip())
    unknown = [part for part in named if part not in PARTS]
    if unknown or not named:
        raise InvalidOptionError(f"--parts takes some of {', '.join(PARTS)}, got {asked!r}")
    return named


def run(args) -> dict:
    device = get_device(args.device)
    chosen = parts(getattr(args, "parts", None))
    quick = args.quick
    bandwidth = copy_bandwidth(device, 64 if quick else 1024)
    for warm in (random_strings(3000, seed=1), euclidean(9, seed=1)):  # builds kernels before any timing
        warming = clsolve.load_solver("wavefront")
        warming.solve(warm, device, warming.plan(warm, device))
    out = {
        "benchmark": "wavefront",
        "device": device.label,
        "date": datetime.date.today().isoformat(),
        "copy_bandwidth_bytes_per_second": bandwidth,
        "parts": list(chosen),
    }
    if "lcs" in chosen:
        out.update(_lcs_parts(device, args, bandwidth))
    if "knapsack" in chosen:
        out["knapsack"] = bench_knapsack(device, KP_QUICK if quick else KP_CASES, args.repeats, bandwidth)
    if "tsp" in chosen:
        out.update(_tsp_parts(device, args))
    return out


def _lcs_parts(device, args, bandwidth: float) -> dict:
    lengths = LCS_QUICK if args.quick else LCS_LENGTHS
    return {
        "lcs": bench_lcs(device, lengths, args.repeats, bandwidth),
        "lcs_tiling": bench_lcs_tiling(device, lengths[-1] if args.quick else 10**5, args.repeats, args.quick),
        "lcs_streamed": bench_lcs_streamed(device, lengths[-2] if args.quick else 10**5),
        "lcs_cells": bench_lcs_cells(device, lengths[0]),
        "pylcs": bench_pylcs(lengths[0]),
    }


def _tsp_parts(device, args) -> dict:
    quick = args.quick
    out: dict = {}
    sizes = TSP_QUICK if quick else range(16, (args.max_cities or 33) + 1)
    tsp_rows: list[dict[str, Any]] = []
    for n in sizes:
        try:
            row = bench_tsp_case(device, euclidean(n, seed=n), 1 if n >= 24 else args.repeats)
        except DoesNotFitError as exc:
            tsp_rows.append({"n": n, "refused": str(exc)})
            _log(f"tsp n={n}: refused: {exc}")
            break
        tsp_rows.append(row)
        if row["seconds"] > 60:
            break
    out["held_karp_random_euclidean"] = tsp_rows
    fitted = [int(r["n"]) for r in tsp_rows if "seconds" in r]
    out["held_karp_largest_n"] = max(fitted) if fitted else None
    streamed_n = 12 if quick else 25
    out["held_karp_streamed"] = bench_tsp_case(device, euclidean(streamed_n, seed=streamed_n), 1, store="host")
    root = data_root(args.data)
    tsplib = []
    if root is not None and (root / "tsplib").is_dir():
        for path in sorted((root / "tsplib").glob("*.*tsp")):
            try:  # the sample past Held-Karp's sizes is refused before anything is allocated
                problem = formats.read(path)[0]
                if quick and problem.n > TSP_QUICK[-1]:
                    continue
                clsolve.plan(problem, solver="wavefront", device=device)
            except (clsolve.FormatError, clsolve.DoesNotFitError, clsolve.UnsupportedProblemError) as exc:
                tsplib.append({"name": path.name, "refused": str(exc)})
                continue
            tsplib.append(bench_tsp_case(device, problem, args.repeats))
    out["held_karp_tsplib"] = tsplib
    out["python_tsp"] = bench_python_tsp(euclidean(12, seed=12)) if quick else bench_python_tsp(euclidean(14, seed=14))
    return out
