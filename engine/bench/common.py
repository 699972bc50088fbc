"""What the benchmarks share: the data folder, the device's copy and cache bandwidths, OR-Tools as a
peer, the 2D instance sets, and timing (``best``: warm first, then the shortest of the runs)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pyopencl as cl

import clsolve
from clsolve import ClsolveError, Device, FormatError, Knapsack, formats
from clsolve.sdk import fill, kernels

T = TypeVar("T")


def data_root(explicit: str | None = None) -> Path | None:
    """The data folder: --data, $CLSOLVE_DATA, ``../shared/data`` above the working dir, or the folder
    ``clsolve datasets fetch`` fills (``clsolve.datasets.folder()``) where it exists."""
    if explicit:
        return Path(explicit)
    if os.environ.get("CLSOLVE_DATA"):
        return Path(os.environ["CLSOLVE_DATA"])
    here = Path.cwd().resolve()
    for folder in [here, *here.parents]:
        for candidate in (folder / "shared" / "data", folder.parent / "shared" / "data"):
            if candidate.is_dir():
                return candidate
    fetched = clsolve.datasets.folder()
    return fetched if fetched.is_dir() else None


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


def cache_bandwidth(device: Device, moved: float) -> float | None:
    """Bytes per second read and written through a GPU's global-memory cache (its L2): the best of
    copies between two buffers that together take 8, 16 or 32 MiB, or half the cache's stated size
    (CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, which NVIDIA states far below its L2), each swept until about
    ``moved`` bytes went through, best of 3 runs (opencl/cache_sweep.cl). Where the cache is smaller,
    the copy runs from device memory and the figure is the lower. None on a CPU."""
    if not device.is_gpu:  # a CPU's run of this kernel measures the kernel, not its cache
        return None
    program = kernels.program(device, kernels.builtin("cache_sweep.cl"))
    totals = {8 * 2**20, 16 * 2**20, 32 * 2**20, int(device.cl_device.global_mem_cache_size) // 2}
    return max(_cache_sweep(device, program, total // 32, moved) for total in totals if total >= 2**20)


def _cache_sweep(device: Device, program: kernels.Program, count: int, moved: float) -> float:
    """Bytes per second of cache_sweep over two buffers of ``count`` 16-byte vectors."""
    ctx, queue = device.context, device.queue
    src = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 16 * count)
    dst = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 16 * count)
    fill(queue, src, 1)
    sweeps = max(1, int(moved // (32 * count)))
    local = min(256, device.max_work_group_size)
    kernel = program.kernel("cache_sweep").set(src=src, dst=dst, count=np.uint32(count), sweeps=np.uint32(sweeps))
    best = float("inf")
    for _ in range(3):
        queue.finish()
        start = time.perf_counter()
        kernel.enqueue(queue, (local * device.compute_units * 8,), (local,))
        queue.finish()
        best = min(best, time.perf_counter() - start)
    return 32 * count * sweeps / best


def solve_row(problem: Any, solver: str, device: Device, limit: float) -> dict:
    """One solve under ``limit``, end to end, as a result row (a refusal or error is a row too)."""
    start = time.perf_counter()
    try:
        solution = clsolve.solve(problem, solver=solver, device=device, time_limit=limit)
    except ClsolveError as exc:
        return {"seconds": time.perf_counter() - start, "answer": False, "reason": f"{type(exc).__name__}: {exc}"}
    row = {
        "seconds": time.perf_counter() - start,
        "answer": True,
        "solver": solution.solver,
        "optimal": solution.optimal,
        "value": solution.value,
        "items": len(solution.items),
    }
    if not solution.optimal and solution.bound is not None:
        row.update(bound=solution.bound, gap=solution.gap)
    row["stats"] = {k: v for k, v in solution.stats.items() if isinstance(v, (int, float, str, bool))}
    return row


def ortools_solve(problem: Knapsack, time_limit: float | None = None) -> int | None:
    """OR-Tools' multidimensional branch and bound on one problem (None when OR-Tools is absent; with
    ``time_limit``, -1 when it stopped there without proving its answer)."""
    try:
        from ortools.algorithms.python import knapsack_solver
    except ImportError:
        return None
    solver = knapsack_solver.KnapsackSolver(
        knapsack_solver.SolverType.KNAPSACK_MULTIDIMENSION_BRANCH_AND_BOUND_SOLVER, "clsolve-bench"
    )
    if time_limit is not None:
        solver.set_time_limit(time_limit)
    solver.init(problem.profits.tolist(), problem.weights.T.tolist(), problem.capacities.tolist())
    value = int(solver.solve())
    return value if time_limit is None or solver.is_solution_optimal() else -1


def mt2_solve(problem: Knapsack) -> int | None:
    """Martello and Toth's MT2 (the Fortran code of the ``mknapsack`` package, exact) on a 0-1 knapsack
    with one capacity: its value, or None when ``mknapsack`` is not importable (it ships wheels for
    Python 3.11 and below, and needs numpy < 2)."""
    try:
        from mknapsack import solve_single_knapsack
    except ImportError:
        return None
    chosen = solve_single_knapsack(
        problem.profits.tolist(),
        problem.weights[:, 0].tolist(),
        int(problem.capacities[0]),
        method="mt2",
        method_kwargs={"require_exact": 1},
    )
    return int(np.dot(np.asarray(chosen, dtype=np.int64), problem.profits))


def two_d_set(args) -> tuple[str, list[Knapsack]]:
    root = data_root(args.data)
    if args.name == "msb":
        folder = root / "2dpacklib" / "MSB-630_Unibo" if root else None
        if folder is None or not folder.is_dir():
            raise FormatError(
                str(folder or "MSB-630"),
                None,
                "MSB-630 folder not found: run `clsolve datasets fetch msb` (or pass --data, set CLSOLVE_DATA)",
            )
        return "MSB-630", [formats.read(f)[0] for f in sorted(folder.glob("*.json"))]
    path = root / "2dpacklib" / "classA" / "class_A_only.txt" if root else None
    if path is None or not path.is_file():
        raise FormatError(
            str(path or "class A"),
            None,
            "class A file not found: run `clsolve datasets fetch class-a` (or pass --data, set CLSOLVE_DATA)",
        )
    return "class A", formats.read(path)


def best(repeats: int, run: Callable[[Any], T], prepare: Callable[[], Any] = lambda: None) -> tuple[float, T]:
    """The shortest of ``repeats`` timings of ``run(prepare())`` (``prepare`` untimed) and the last
    result, after one untimed run: a benchmark never counts kernel builds or a device's first launches."""
    run(prepare())  # warm: programs built, buffers and caches made
    shortest, out = float("inf"), None
    for _ in range(max(1, repeats)):
        argument = prepare()
        began = time.perf_counter()
        out = run(argument)
        shortest = min(shortest, time.perf_counter() - began)
    return shortest, out  # type: ignore[return-value]  # repeats >= 1: out was set


def fresh(problems: list[Knapsack]) -> list[Knapsack]:
    """New problem objects with the same data, so no cached presolve carries over between runs."""
    return [Knapsack.derived(p.profits, p.weights, p.capacities, p.name, p.total_profit) for p in problems]


def cpsat_solve(problem: Knapsack, time_limit: float) -> dict | None:
    """OR-Tools' CP-SAT on one knapsack (any m) under ``time_limit`` with all the host's cores (None
    when OR-Tools is absent): seconds, value, whether it proved it optimal, the bound it proved."""
    try:
        from ortools.sat.python import cp_model
    except ImportError:
        return None
    start = time.perf_counter()
    model = cp_model.CpModel()
    x = [model.new_bool_var(f"x{j}") for j in range(problem.n)]
    for d in range(problem.m):
        terms = [int(w) * v for w, v in zip(problem.weights[:, d], x) if w]
        if terms:  # a dimension without weights constrains nothing
            model.add(sum(terms) <= int(problem.capacities[d]))
    model.maximize(sum(int(p) * v for p, v in zip(problem.profits, x)))
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = time_limit
    status = solver.solve(model)
    found = status in (cp_model.OPTIMAL, cp_model.FEASIBLE)
    return {
        "seconds": time.perf_counter() - start,
        "proved": status == cp_model.OPTIMAL,
        "value": int(solver.objective_value) if found else None,
        "bound": int(solver.best_objective_bound) if found else None,
        "workers": solver.parameters.num_workers or os.cpu_count(),
    }
