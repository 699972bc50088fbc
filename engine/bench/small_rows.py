"""``clsolve bench small-rows``: batches of small knapsacks, whose DP rows fit in one work-group's local
memory: ``dp-batch`` with its rows on chip (all items of an instance in one launch) against its item
steps (one launch per item over every instance), ``auto``, and OR-Tools one problem after another."""

from __future__ import annotations

import datetime
import sys
import time
from typing import Any

import numpy as np

import clsolve
from clsolve import Knapsack, get_device
from clsolve.sdk import work_group_size

from .batch import batch_phases, timed_batch
from .common import copy_bandwidth, fresh, ortools_solve

#: (name, instances, items, capacities): uncorrelated items, weights 1 .. C / 4 in each dimension.
CASES = [
    ("KP1 n=50 C=1000", 4000, 50, (1000,)),
    ("KP1 n=100 C=8000", 1000, 100, (8000,)),
    ("KP2 n=40 C=60x60", 2000, 40, (60, 60)),
    ("KP3 n=30 C=15x15x15", 2000, 30, (15, 15, 15)),
]
QUICK = 200
#: Local-memory bytes a compute unit serves per clock (32 banks of 4 bytes on NVIDIA's), for the floor.
LOCAL_BYTES_PER_CLOCK = 128


def generated(count: int, n: int, capacities: tuple[int, ...], seed: int = 0) -> list[Knapsack]:
    rng = np.random.default_rng(seed)
    caps = np.array(capacities)
    return [
        Knapsack(
            rng.integers(1, 1000, n),
            rng.integers(1, np.maximum(caps // 4, 1) + 1, (n, caps.size)),
            caps,
            weights_by="item",
            name=f"random-{k}",
        )
        for k in range(count)
    ]


def _dp_batch(problems: list[Knapsack], device, repeats: int, on_chip: bool | None) -> dict:
    options: dict[str, Any] = {"solver": "dp-batch", "method": "dp", "presolve": False, "on_chip": on_chip}
    clsolve.solve_many(fresh(problems), device=device, **options)  # builds the kernels before the timed runs
    seconds, solutions, kernels = timed_batch(problems, device, repeats, **options)
    phases = batch_phases(problems, device, **dict(options))
    cells = sum(p.n * p.cells() for p in problems)
    return {
        "seconds_total": seconds,
        "kernel_seconds": kernels,
        "cell_updates_per_second": cells / kernels,
        "on_chip": any("on chip" in note for note in solutions[0].notes),
        "values": [s.value for s in solutions],
        "phases": phases,
    }


def _case(name: str, problems: list[Knapsack], device, repeats: int) -> dict:
    print(f"{name}: {len(problems)} instances", file=sys.stderr)
    row: dict = {
        "name": name,
        "instances": len(problems),
        "n": problems[0].n,
        "capacities": problems[0].capacities.tolist(),
        "states": int(problems[0].cells()),
        "cell_updates": int(sum(p.n * p.cells() for p in problems)),
    }
    row["default"] = _dp_batch(problems, device, repeats, None)
    row["item_steps"] = _dp_batch(problems, device, repeats, False)
    clsolve.solve_many(fresh(problems), device=device)
    seconds, solutions, _ = timed_batch(problems, device, repeats)
    row["auto"] = {"seconds_total": seconds, "solvers": sorted({s.solver for s in solutions})}
    start = time.perf_counter()
    peer = [ortools_solve(p) for p in problems]
    if peer[0] is not None:
        row["ortools"] = {"seconds_total": time.perf_counter() - start}
    expected = row["default"].pop("values")
    row["value_mismatches"] = (
        sum(a != b for a, b in zip(expected, row["item_steps"].pop("values")))
        + sum(a != b for a, b in zip(expected, [s.value for s in solutions]))
        + (sum(a != b for a, b in zip(expected, peer)) if peer[0] is not None else 0)
    )
    row["kernel_speedup_of_default"] = row["item_steps"]["kernel_seconds"] / row["default"]["kernel_seconds"]
    row.update(_floors(problems, device))
    row["ratio_to_local_floor"] = row["local_floor_seconds"] / row["default"]["kernel_seconds"]
    return row


def _floors(problems: list[Knapsack], device) -> dict:
    """What bounds the rows on chip: each cell update reads two values and writes at most one in local
    memory (LOCAL_BYTES_PER_CLOCK per compute unit), and global memory takes each item's decision
    words (a whole tile's, 4 bytes per work-item) and the final row."""
    local_size = work_group_size(device.max_work_group_size)  # dp-batch's default
    value_bytes = 4
    updates = sum(p.n * p.cells() for p in problems)
    local_rate = device.compute_units * LOCAL_BYTES_PER_CLOCK * device.cl_device.max_clock_frequency * 1e6
    global_bytes = sum(p.n * local_size * 4 + p.cells() * value_bytes for p in problems)
    return {
        "local_floor_seconds": updates * 3 * value_bytes / local_rate,
        "global_bytes_on_chip": global_bytes,
        "global_bytes_item_steps": int(updates * (2 * value_bytes + 0.125)),
    }


def run(args) -> dict:
    device = get_device(args.device)
    cases = [
        _case(name, generated(QUICK if args.quick else count, n, caps, seed=k), device, args.repeats)
        for k, (name, count, n, caps) in enumerate(CASES)
    ]
    return {
        "benchmark": "small-rows",
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "device": device.describe(),
        "copy_bandwidth_bytes_per_second": copy_bandwidth(device, 256 if device.is_gpu else 64),
        "repeats": args.repeats,
        "cases": cases,
        "note": "dp-batch with method=dp and presolve=False times the DP itself: default is its default option "
        "on_chip=None (rows that fit stay in local memory on a GPU; 'on_chip' says whether they did), "
        "item_steps is on_chip=False; auto solves the same batch with "
        "presolve; OR-Tools' branch and bound solves the problems one after another on the host CPU. "
        "Seconds are end to end with items and the engine's check, kernel seconds the batch's kernels "
        "alone, each the best of the repeats after a run that builds the kernels; 'phases' splits one "
        "more run into its steps (ms). local_floor_seconds: the updates' local-memory traffic (two "
        "4-byte reads and a write each) at 128 bytes per clock per compute unit; ratio_to_local_floor: "
        "that over the default's kernel seconds.",
    }
