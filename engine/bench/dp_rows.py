"""``clsolve bench dp-rows``: measured speed against the floor the device's own copy bandwidth sets.

For the paper's dense DP (one item per pass) every cell update must at least read the previous value
and write the new one (2 x value bytes) plus one decision bit, so ``floor_seconds = cell_updates *
bytes_per_cell / copy_bandwidth``; ``ratio_to_floor = floor_seconds / kernel_seconds`` (1.0 = at that
floor; above 1 is possible because dp-rows fuses items). ``ratio_to_fused_floor`` uses the pairs'
floor (one value read and written per two items, plus the bits); ``ratio_to_pass_floor`` the floor
of the items per pass the solve used (k: a value read and written per k items, 2 x value / k + 1/8
bytes), and ``cache_bytes_per_cell`` what k items per pass read through the cache per update (the
previous row at 2^k points and the write, (2^k + 1) x value / k + 1/8 bytes). Every KP01 case is
also timed with one launch per pass (``chain=1``) and with passes chained in launches
(``chain=CHAIN_PASSES``), 1 to 4 items per pass each; ``seconds_per_pass`` is what a pass took
(kernels / passes), the floor of a chained short row. On a GPU every KP01 case with C <= 1e6 is also
timed as a pipeline of stages of PIPELINE_STAGE items (``pipeline``), with its floor: each update
writes its value to the stage's ring and reads one back (2 x value bytes through the cache, mostly
the L2), a stage reads and writes the row once (2 x value / stage) and writes a bit. On a GPU the
device's cache bandwidth is measured too (``cache_bandwidth_bytes_per_second``: a copy that stays in
the L2), and each KP01 case's ``ratio_to_cache_floor`` is the time its ``cache_bytes_per_cell`` take
at that bandwidth over its kernels' time. Where an item weighs more than a compute unit holds on chip,
every update's value goes through the cache at least once each way (written, then read back by the
update w states on), so ``cache_bound_32_bit_cell_updates_per_second`` (the cache bandwidth over 8
bytes) bounds any dense DP of such items with 32-bit values. Results are JSON (stdout, or ``--out``);
progress goes to stderr.
"""

from __future__ import annotations

import datetime
import sys

import numpy as np

import clsolve
from clsolve import Device, Knapsack, formats, get_device
from clsolve.sdk import value_dtype

from .common import cache_bandwidth, copy_bandwidth, data_root

CHAIN_PASSES = 32  # passes per launch the chained timings use (dp-rows' default for short rows)
PIPELINE_STAGE = 16  # items a stage in the pipeline's timings (dp-rows' default for 32-bit values)
PIPELINE_CAPACITY = 10**6  # the largest capacity timed as a pipeline

KP01_ITEMS = (1000, 2000, 5000, 10000)
KP01_CAPACITIES = (10**5, 10**6, 10**7)
#: Light items (n, capacity, heaviest weight): most weigh less than a block's halo; each also timed
#: with blocks of up to 16 items on chip (``block=16``) and without (``block=0``).
LIGHT_CASES = ((10000, 10**6, 300), (10000, 2_500_000, 1000), (10000, 10**7, 4000))
#: ``--quick``'s light case: a second's work on a CPU.
QUICK_LIGHT_CASES = ((2000, 10**5, 300),)


def uncorrelated(n: int, capacity: int, seed: int) -> Knapsack:
    """Pisinger's uncorrelated type with weights scaled to the capacity (about 20 items fit)."""
    rng = np.random.default_rng(seed)
    top = max(1, capacity // 10)
    weights = rng.integers(1, top + 1, size=n)
    profits = rng.integers(1, 1001, size=n)
    return Knapsack(profits, weights, capacity, name=f"uncorrelated n={n} c={capacity}")


def light(n: int, capacity: int, top: int, seed: int) -> Knapsack:
    """Uncorrelated items of weights 1 .. ``top`` (about twice the capacity in all)."""
    rng = np.random.default_rng(seed)
    return Knapsack(
        rng.integers(1, 1001, size=n), rng.integers(1, top + 1, size=n), capacity, name=f"light n={n} c={capacity} w<={top}"
    )


def measure(problem: Knapsack, solver: str, device: Device, bandwidth: float, repeats: int, **options) -> dict:
    """The best of ``repeats`` solves, rated over the cell updates its plan counts (for ``dp-rows`` the
    states from each row's reachable floor on); fixing by dominance (m = 1) and by reduced costs (m >= 2)
    are off unless ``options`` turn them on, so that every item goes through the table."""
    if solver == "dp-rows":
        options.setdefault("dominance", False)
        options.setdefault("fixing", False)
    updates = clsolve.plan(problem, solver, device, **options).cell_updates
    best = clsolve.solve(problem, solver=solver, device=device, **options)
    for _ in range(repeats - 1):
        solution = clsolve.solve(problem, solver=solver, device=device, **options)
        if solution.timings.kernels < best.timings.kernels:
            best = solution
    states = problem.cells()
    value_bytes = value_dtype(problem).itemsize
    if "value_type" in best.stats:  # the type the solve chose (dp-rows: by the LP bound)
        value_bytes = 4 if best.stats["value_type"] == "int" else 8
    per_pass = int(best.stats.get("items_per_launch", 2))
    passes = -(-problem.n // per_pass)
    pass_bytes_per_cell = 2 * value_bytes / per_pass + 1 / 8
    bytes_per_cell = 2 * value_bytes + 1 / 8  # one item per pass: read f_{i-1}, write f_i, one bit
    fused_bytes_per_cell = value_bytes + 1 / 8  # two items per pass: a row read and written per pair
    floor = updates * bytes_per_cell / bandwidth
    t = best.timings
    return {
        "name": problem.name,
        "n": problem.n,
        "capacities": problem.capacities.tolist(),
        "states": states,
        "value_bytes": value_bytes,
        "cell_updates": updates,
        "value": best.value,
        "items": int(best.selected.sum()),
        "known_optimum": problem.known_optimum,
        "seconds": {"total": t.total, "upload": t.upload, "kernels": t.kernels, "download": t.download, "host": t.host},
        "cell_updates_per_second": updates / t.kernels if t.kernels else None,
        "bytes_per_cell_floor": bytes_per_cell,
        "floor_seconds": floor,
        "ratio_to_floor": floor / t.kernels if t.kernels else None,
        "fused_bytes_per_cell_floor": fused_bytes_per_cell,
        "ratio_to_fused_floor": updates * fused_bytes_per_cell / bandwidth / t.kernels if t.kernels else None,
        "items_per_pass": per_pass,
        "pass_bytes_per_cell_floor": pass_bytes_per_cell,
        "ratio_to_pass_floor": updates * pass_bytes_per_cell / bandwidth / t.kernels if t.kernels else None,
        "cache_bytes_per_cell": ((2**per_pass + 1) * value_bytes) / per_pass + 1 / 8,
        "chain": best.stats.get("chain"),
        "seconds_per_pass": t.kernels / passes if passes else None,
        "notes": best.notes,
    }


#: Items per pass compared on every KP01 case (dp-rows).
ITEMS_PER_LAUNCH = (1, 2, 3, 4)


def _brief(record: dict) -> dict:
    return {
        "kernel_seconds": record["seconds"]["kernels"],
        "cell_updates_per_second": record["cell_updates_per_second"],
        "value": record["value"],
        "seconds_per_pass": record["seconds_per_pass"],
    }


def _pipelined(record: dict, bandwidth: float, cache: float | None) -> dict:
    """A pipeline's timing and its floor (bytes per update through the cache over the copy bandwidth,
    and over the cache's)."""
    per_cell = 2 * record["value_bytes"] + 2 * record["value_bytes"] / PIPELINE_STAGE + 1 / 8
    seconds = record["seconds"]["kernels"]
    return {
        **_brief(record),
        "stage": PIPELINE_STAGE,
        "cache_bytes_per_cell": per_cell,
        "ratio_to_pipeline_floor": record["cell_updates"] * per_cell / bandwidth / seconds if seconds else None,
        **_cache_ratio(record["cell_updates"] * per_cell, seconds, cache),
        "notes": record["notes"],
    }


def _cache_ratio(moved: float, seconds: float, cache: float | None) -> dict:
    """``ratio_to_cache_floor``: the time ``moved`` bytes take at the cache's bandwidth over ``seconds``."""
    return {"ratio_to_cache_floor": moved / cache / seconds} if cache and seconds else {}


def _kp01(problem: Knapsack, args, device: Device, bandwidth: float, cache: float | None) -> dict:
    """A KP01 case: the default solve and (dp-rows) each number of items per pass, a launch per pass
    or chained, and on a GPU up to PIPELINE_CAPACITY the pipeline."""
    print(f"kp01 {problem.name}", file=sys.stderr)
    case = {"set": "kp01", **measure(problem, args.solver, device, bandwidth, args.repeats)}
    case.update(_cache_ratio(case["cell_updates"] * case["cache_bytes_per_cell"], case["seconds"]["kernels"], cache))
    if args.solver != "dp-rows":
        return case
    for key, chain in (("by_items_per_launch", 1), ("chained_by_items_per_launch", CHAIN_PASSES)):
        case[key] = {
            str(k): _brief(measure(problem, args.solver, device, bandwidth, args.repeats, items_per_launch=k, chain=chain))
            for k in ITEMS_PER_LAUNCH
        }
    if device.is_gpu and int(problem.capacities[0]) <= PIPELINE_CAPACITY:
        case["pipeline"] = _pipelined(
            measure(problem, args.solver, device, bandwidth, args.repeats, pipeline=PIPELINE_STAGE), bandwidth, cache
        )
    return case


# long: one benchmark's cases in the order its JSON reports them
def run_dp_rows(args) -> dict:
    args.solver = args.solver or "dp-rows"
    device = get_device(args.device)
    print(f"device: {device.label}", file=sys.stderr)
    bandwidth = copy_bandwidth(device, 1024 if device.is_gpu else 128)
    print(f"copy bandwidth: {bandwidth / 1e9:.1f} GB/s", file=sys.stderr)
    cache = cache_bandwidth(device, 2**32)
    if cache:
        print(f"cache bandwidth: {cache / 1e9:.1f} GB/s", file=sys.stderr)
    items = KP01_ITEMS[:1] if args.quick else KP01_ITEMS
    capacities = KP01_CAPACITIES[:1] if args.quick else KP01_CAPACITIES
    cases = []
    clsolve.solve(uncorrelated(50, 1000, 0), solver=args.solver, device=device)  # builds the kernels
    for capacity in capacities:
        for n in items:
            cases.append(_kp01(uncorrelated(n, capacity, seed=n + capacity), args, device, bandwidth, cache))
    for n, capacity, top in QUICK_LIGHT_CASES if args.quick else LIGHT_CASES:
        problem = light(n, capacity, top, seed=n + capacity)
        print(f"kp01 {problem.name}", file=sys.stderr)
        case = {"set": "kp01-light", **measure(problem, args.solver, device, bandwidth, args.repeats)}
        if args.solver == "dp-rows":
            for key, block in (("with_blocks", 16), ("without_blocks", 0)):
                case[key] = _brief(measure(problem, args.solver, device, bandwidth, args.repeats, block=block))
        cases.append(case)
    root = data_root(args.data)
    class_a = root / "2dpacklib" / "classA" / "class_A_only.txt" if root else None
    class_a_by: dict[str, float] = {}
    if class_a is not None and class_a.is_file():
        problems = formats.read(class_a)
        if args.quick:
            problems = [p for p in problems if p.name in ("a01", "a33")]
        for problem in problems:
            print(f"class A {problem.name}", file=sys.stderr)
            case = {"set": "class-a", **measure(problem, args.solver, device, bandwidth, args.repeats)}
            if args.solver == "dp-rows":  # the default solve (the items reduced costs fix left out, the
                # states that cannot beat the incumbent pruned), and the same without the pruning
                for key, pruning in (("with_fixing", True), ("with_fixing_unpruned", False)):
                    fixed = measure(problem, args.solver, device, bandwidth, args.repeats, fixing=True, pruning=pruning)
                    case[key] = {
                        "kernel_seconds": fixed["seconds"]["kernels"],
                        "total_seconds": fixed["seconds"]["total"],
                        "cell_updates": fixed["cell_updates"],
                        "cell_updates_per_second": fixed["cell_updates_per_second"],
                        "value": fixed["value"],
                        "notes": fixed["notes"],
                    }
            cases.append(case)
        if args.solver == "dp-rows" and not args.quick:  # all 43 under each number of items per pass, a launch per pass
            class_a_by = {
                str(k): sum(
                    measure(p, args.solver, device, bandwidth, args.repeats, items_per_launch=k, chain=1)["seconds"]["total"]
                    for p in problems
                )
                for k in ITEMS_PER_LAUNCH
            }
    else:
        print("class A data not found (`clsolve datasets fetch class-a`, or pass --data): skipped", file=sys.stderr)
    return {
        "benchmark": "dp-rows",
        "solver": args.solver,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "device": device.describe(),
        "copy_bandwidth_bytes_per_second": bandwidth,
        **({"cache_bandwidth_bytes_per_second": cache, "cache_bound_32_bit_cell_updates_per_second": cache / 8} if cache else {}),
        "repeats": args.repeats,
        "cases": cases,
        **({"class_a_seconds_by_items_per_launch": class_a_by} if class_a_by else {}),
    }
