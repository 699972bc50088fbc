"""The thread stress: several threads solving at once on one device, every installed solver, from the
first call of a fresh process on (the threads start together, so their first solves make the device's
context, queue and programs at the same time).

Each thread draws a small problem and a solver that takes it (knapsacks with m = 1 to 3, LCS, TSP;
the batch solvers through ``solve_many``), solves it and compares the value with the fuzzer's
independent reference (``ci/fuzz.py``: brute force, a plain DP, all permutations). Every exception
is an error: no time limit is set, and every problem is small.

    python ci/threads.py --threads 8 --seconds 60 --device gpu --json ci/results/threads-h200.json

Exits 1 when any solve failed or answered wrong.
"""

from __future__ import annotations

import argparse
import datetime
import json
import random
import sys
import threading
import time
import traceback
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fuzz import reference  # noqa: E402

import clsolve  # noqa: E402
from clsolve.problems import LCS, TSP  # noqa: E402

#: The solvers of each kind of problem; the batch solvers are called through ``solve_many``.
ONE_CAPACITY = ("auto", "sequential", "dp-rows", "dp-batch", "bnb", "dp-states", "mckp", "wavefront")
SEVERAL_CAPACITIES = ("auto", "sequential", "dp-rows", "dp-batch", "mkp-bnb", "mkp-dfs", "mkp-batch")
SEQUENCES = ("auto", "sequential", "wavefront")
BATCH_SOLVERS = ("dp-batch", "mkp-batch")


def problem(rng: random.Random):
    """A small problem within the references' reach."""
    kind = rng.choice(["kp1", "kp1", "kpm", "kpm", "lcs", "tsp"])
    if kind == "lcs":
        return LCS([rng.randrange(4) for _ in range(rng.randint(1, 60))], [rng.randrange(4) for _ in range(rng.randint(1, 60))])
    if kind == "tsp":
        n = rng.randint(3, 7)
        return TSP([[rng.randint(0, 100) for _ in range(n)] for _ in range(n)])
    n, m = rng.randint(4, 14), 1 if kind == "kp1" else rng.randint(2, 3)
    weights = np.array([[rng.randint(1, 60) for _ in range(m)] for _ in range(n)])
    profits = [rng.randint(0, 100) for _ in range(n)]
    return clsolve.Knapsack(profits, weights, (weights.sum(axis=0) // 2).tolist(), weights_by="item")


def solvers_of(item) -> tuple[str, ...]:
    if not isinstance(item, clsolve.Knapsack):
        return SEQUENCES
    return ONE_CAPACITY if item.m == 1 else SEVERAL_CAPACITIES


def _work(
    worker: int, seed: int, device, until: float, start: threading.Barrier, counts: Counter, errors: list, lock: threading.Lock
) -> None:
    rng = random.Random(f"{seed}:{worker}")
    start.wait()
    while time.monotonic() < until:
        item = problem(rng)
        solver = rng.choice([s for s in solvers_of(item) if s in clsolve.plugin.registry.names() or s == "auto"])
        expected = reference(item)
        try:
            if solver in BATCH_SOLVERS:
                value = clsolve.solve_many([item, item], solver=solver, device=device)[1].value
            else:
                value = clsolve.solve(item, solver=solver, device=device).value
            error = None if value == expected else f"value {value}, reference {expected}"
        except Exception:  # noqa: BLE001 - every exception is what the stress is for
            error = traceback.format_exc(limit=4)
        with lock:
            counts[solver] += 1
            if error:
                errors.append({"thread": worker, "solver": solver, "problem": item.describe(), "error": error})


def stress(device, threads: int, seconds: float, seed: int) -> dict:
    """``threads`` threads for ``seconds``; counts per solver and the errors."""
    counts: Counter = Counter()
    errors: list = []
    lock = threading.Lock()
    start = threading.Barrier(threads)
    until = time.monotonic() + seconds
    began = time.monotonic()
    workers = [threading.Thread(target=_work, args=(w, seed, device, until, start, counts, errors, lock)) for w in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return {
        "device": device.label,
        "date": datetime.date.today().isoformat(),
        "threads": threads,
        "seconds": round(time.monotonic() - began, 1),
        "seed": seed,
        "solves": dict(sorted(counts.items())),
        "total": sum(counts.values()),
        "errors": len(errors),
        "failed": errors[:20],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--device", default=None)
    parser.add_argument("--json", default=None, help="write the counts here")
    args = parser.parse_args(argv)
    device = clsolve.get_device(args.device)  # only chosen here: the threads make its context
    summary = stress(device, args.threads, args.seconds, args.seed)
    print(json.dumps({k: v for k, v in summary.items() if k != "failed"}), flush=True)
    for failure in summary["failed"]:
        print(f"FAIL thread {failure['thread']} {failure['solver']} on {failure['problem']}:\n    {failure['error']}")
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=1) + "\n")
    return 1 if summary["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
