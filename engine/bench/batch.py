"""``clsolve bench msb`` and ``clsolve bench class-a``: the 2D instance sets as one batch, end to end,
against sequential and OR-Tools."""

from __future__ import annotations

import datetime
import sys
import time

import clsolve
from clsolve import Device, Knapsack, check_many, get_device

from .common import best, copy_bandwidth, fresh, ortools_solve, two_d_set


def timed_batch(problems: list[Knapsack], device: Device, repeats: int, **options) -> tuple[float, list, float]:
    """Best end-to-end seconds of ``solve_many`` over ``repeats`` runs after a warm one (fresh problem
    objects each run), the last run's solutions, and the best kernel seconds (the batches' kernels,
    which their solutions share)."""
    kernels = float("inf")

    def run(batch: list[Knapsack]) -> list:
        nonlocal kernels
        solutions = list(clsolve.solve_many(batch, device=device, **options))
        kernels = min(kernels, sum(s.timings.kernels for s in solutions))
        return solutions

    shortest, solutions = best(repeats, run, lambda: fresh(problems))
    return shortest, solutions, kernels


def batch_phases(problems: list[Knapsack], device: Device, **options) -> dict:
    """Where one ``solve_many`` run's time goes: presolve and planning, the solver's host work, upload,
    kernels, download, and the engine's check, in milliseconds (the steps of ``clsolve.solve_many``)."""
    batch = fresh(problems)
    start = time.perf_counter()
    solver = clsolve.load_solver(options.pop("solver"), **options)
    assert isinstance(solver, clsolve.BatchSolver), f"{solver.name} solves one problem at a time"
    plan = solver.plan_many(batch, device)
    planned = time.perf_counter()
    solutions = solver.solve_many(batch, device, plan)
    solved = time.perf_counter()
    assert check_many(batch, solutions) is None
    verified = time.perf_counter()
    phases: dict[str, dict] = {}
    for solution in solutions:  # each batch's timings, shared by its instances (divided by their count)
        note = next((n for n in solution.notes if " in a batch of " in n), None)
        if note is None:
            phases.setdefault("solved by presolve", {"instances": 0})["instances"] += 1
            continue
        method, count = note.split(" in a batch of ")[0], int(note.split(" in a batch of ")[1].split(";")[0])
        phases.setdefault(
            method,
            {
                "instances": count,
                **{f: getattr(solution.timings, f) * count * 1e3 for f in ("host", "upload", "kernels", "download")},
            },
        )
    inner = sum(v.get(f, 0.0) for v in phases.values() for f in ("host", "upload", "kernels", "download"))
    return {
        "presolve_and_plan_ms": (planned - start) * 1e3,
        "solve_ms": (solved - planned) * 1e3,
        "solve_other_host_ms": (solved - planned) * 1e3 - inner,
        "check_ms": (verified - solved) * 1e3,
        "total_ms": (verified - start) * 1e3,
        "batches": phases,
    }


# long: a benchmark's cases in the order its JSON reports them
def run_batch_set(args) -> dict:
    """Table 1 of [LLMF] / Fig. 1 of [LLM]: sequential, dp-rows one at a time, dp-batch and mkp-batch at
    once, and what ``auto`` chooses."""
    device = get_device(args.device)
    label, problems = two_d_set(args)
    print(f"device: {device.label}; {len(problems)} {label} instances", file=sys.stderr)
    updates = sum(p.n * p.cells() for p in problems)
    bandwidth = copy_bandwidth(device, 256 if device.is_gpu else 64)
    rows: dict[str, dict] = {}
    variants: dict[str, tuple[str, dict]] = {
        "auto": ("auto", {}),
        "mkp-batch": ("mkp-batch", {}),
        "dp-batch": ("dp-batch", {}),
        "dp-batch presolve=False": ("dp-batch", {"presolve": False}),
        "dp-batch method=dp presolve=False": ("dp-batch", {"method": "dp", "presolve": False}),
    }
    values: dict[str, list[int]] = {}
    for name, (solver, options) in variants.items():
        clsolve.solve_many(problems[:3], solver=solver, device=device, **options)  # builds the kernels
        seconds, solutions, _ = timed_batch(problems, device, args.repeats, solver=solver, **options)
        values[name] = [s.value for s in solutions]
        rows[name] = {
            "seconds_total": seconds,
            "seconds_mean": seconds / len(problems),
            "solvers": sorted({s.solver for s in solutions}),
            "methods": sorted({n.split(" in a batch")[0] for s in solutions for n in s.notes if " in a batch" in n}),
        }
        if solver != "auto":
            rows[name]["phases"] = batch_phases(problems, device, solver=solver, **options)
        print(f"{name}: {seconds:.4f} s", file=sys.stderr)
    dense = rows["dp-batch method=dp presolve=False"]
    dense["cell_updates_per_second"] = updates / dense["seconds_total"]
    kernel_seconds = dense["phases"]["batches"]["dynamic programming"]["kernels"] / 1e3
    dense["floor_seconds"] = updates * (2 * 4 + 0.125) / bandwidth
    dense["ratio_to_floor_kernels"] = dense["floor_seconds"] / kernel_seconds
    clsolve.solve(problems[0], solver="dp-rows", device=device, presolve=False)
    start = time.perf_counter()
    values["dp-rows"] = [clsolve.solve(p, solver="dp-rows", device=device, presolve=False).value for p in problems]
    elapsed = time.perf_counter() - start
    rows["dp-rows presolve=False"] = {"seconds_total": elapsed, "seconds_mean": elapsed / len(problems)}
    print(f"dp-rows one at a time: {elapsed:.4f} s", file=sys.stderr)
    sample = problems if args.full else problems[:: max(1, len(problems) // 20)]
    start = time.perf_counter()
    reference = {id(p): clsolve.solve(p, solver="sequential").value for p in sample}
    elapsed = time.perf_counter() - start
    rows["sequential"] = {
        "seconds_mean": elapsed / len(sample),
        "seconds_total": elapsed / len(sample) * len(problems),
        "measured_instances": len(sample),
        "note": "" if args.full else "total extrapolated from the measured sample (--full measures all)",
    }
    print(f"sequential: {elapsed / len(sample):.4f} s per instance", file=sys.stderr)
    first = values["auto"]
    mismatches = sum(1 for v in values.values() for a, b in zip(first, v) if a != b)
    mismatches += sum(1 for p, v in zip(problems, first) if reference.get(id(p), v) != v)
    if ortools_solve(problems[0]) is not None:
        start = time.perf_counter()
        ortools = [ortools_solve(p) for p in problems]
        elapsed = time.perf_counter() - start
        mismatches += sum(1 for v, o in zip(first, ortools) if v != o)
        rows["ortools-bnb"] = {
            "seconds_total": elapsed,
            "seconds_mean": elapsed / len(problems),
            "note": "KNAPSACK_MULTIDIMENSION_BRANCH_AND_BOUND_SOLVER, values only, host CPU",
        }
        print(f"OR-Tools B&B: {elapsed:.4f} s", file=sys.stderr)
    for row in rows.values():
        row["speedup_of_auto"] = row["seconds_total"] / rows["auto"]["seconds_total"]
    return {
        "benchmark": args.name,
        "set": label,
        "instances": len(problems),
        "cell_updates_dense": updates,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "device": device.describe(),
        "copy_bandwidth_bytes_per_second": bandwidth,
        "value_mismatches": mismatches,
        "solvers": rows,
        "note": "times are end to end (presolve, planning, upload, kernels, backtracking, download, the engine's "
        "check) with items, kernels built beforehand, fresh problem objects each run; the batch rows are "
        "the best of --repeats runs (auto: the batch solver solve_many chooses). 'phases' splits one "
        "more run into its steps (ms). presolve=False solves the instances as given (the papers' "
        "setting); the dense-DP floor assumes one item per "
        "pass: a 4-byte value read and written and one decision bit per cell update",
    }
