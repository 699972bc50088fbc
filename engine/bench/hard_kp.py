"""``clsolve bench hard-kp``: the hardest 0-1 knapsacks, per instance, against Pisinger's combo and
OR-Tools.

Three sets, every instance solved end to end by ``--solver`` (default ``auto``) under a time limit
(``--time-limit``, default 10 s):

* Jooken et al.'s development sample (``kp01/jooken-dev`` of the data folder, [Jooken22]) with the
  optimum and combo's time on the authors' machine from its ``optima.csv`` (no optimum where combo ran
  out of memory);
* generated Jooken-style instances (``clsolve.generators.jooken``) at c = 1e6, 1e8 and 1e10;
* Pisinger's classic families ([Pisinger05], ``clsolve.generators.pisinger``) at large data ranges,
  with OR-Tools' branch and bound on the same host under the same limit where it is installed.

Per instance: seconds, the solver ``auto`` chose, whether the answer is proved optimal, value, bound
and gap where it is not, agreement with the known optimum, the solver's counters (``stats``), and
for a solver that stopped with no answer (a DP at its time limit) the reason.
"""

from __future__ import annotations

import csv
import datetime
import sys
import time
from pathlib import Path
from typing import Any

import clsolve
from clsolve import Device, Knapsack, formats, get_device
from clsolve.generators import PISINGER_FAMILIES, jooken, pisinger

from .common import data_root, ortools_solve, solve_row

DEFAULT_TIME_LIMIT = 10.0
#: Generated Jooken-style parameters (n, c, g, f, eps, s), one instance each per seed.
JOOKEN_PARAMETERS = [
    (400, 10**6, 10, 0.1, 0.0, 300),
    (800, 10**8, 10, 0.2, 0.001, 200),
    (1200, 10**8, 10, 0.2, 0.001, 200),
    (600, 10**10, 14, 0.2, 0.0, 300),
    (1200, 10**10, 10, 0.1, 0.01, 100),
]


def _development_sample(root: Path | None) -> list[tuple[Knapsack, dict]]:
    folder = root / "kp01" / "jooken-dev" if root else None
    if folder is None or not folder.is_dir():
        return []
    known: dict[str, dict] = {}
    table = folder / "optima.csv"
    if table.is_file():
        for line in csv.DictReader(table.open()):
            combo = line["combo_seconds_on_the_authors_machine"]
            known[line["name"]] = (
                {"optimum": int(line["optimum"]), "combo_seconds": float(combo)} if line["optimum"] else {"combo": combo}
            )  # combo: "failed (out of memory)"
    out = []
    for path in sorted(folder.glob("*.in")):
        (problem,) = formats.read(path)
        out.append((problem, known.get(path.stem, {})))
    return out


def _generated(quick: bool) -> list[tuple[Knapsack, dict]]:
    seeds = range(1) if quick else range(2)
    return [(jooken(*params, seed=seed), {}) for params in JOOKEN_PARAMETERS[: 2 if quick else None] for seed in seeds]


def _families(quick: bool) -> list[tuple[Knapsack, dict]]:
    n, ranges = (1000, (10**6,)) if quick else (10_000, (10**6, 10**10))
    return [(pisinger(family, n, R, seed=1), {}) for R in ranges for family in PISINGER_FAMILIES]


def _row(problem: Knapsack, facts: dict, solver: str, device: Device, limit: float, ortools: bool) -> dict:
    row = {"name": problem.name, "n": problem.n, "capacity": int(problem.capacities[0]), **facts}
    row.update(solve_row(problem, solver, device, limit))
    if "optimum" in facts and row.get("answer"):
        row["equals_known_optimum"] = row["value"] == facts["optimum"] if row["optimal"] else None
    if ortools:
        start = time.perf_counter()
        value = ortools_solve(problem, time_limit=limit)
        row["ortools_seconds"] = time.perf_counter() - start
        row["ortools_proved"] = value not in (None, -1)
    return row


def run(args) -> dict:
    device = get_device(args.device)
    limit = float(args.time_limit) if getattr(args, "time_limit", None) else DEFAULT_TIME_LIMIT
    solver = args.solver or "auto"
    print(f"device: {device.label}; solver {solver}; {limit} s per instance", file=sys.stderr)
    ortools = ortools_solve(Knapsack([1], [1], 1)) is not None
    # kernels built beforehand: the searches, and dense DP passes of 1 to 4 items, chained (short rows) and
    # launched one by one (long rows)
    warm = jooken(40, 10**6, 10, 0.2, 0, 100)
    dense: list[tuple[str, dict[str, Any]]] = [
        ("dp-rows", {"items_per_launch": k, "chain": chain}) for k in (1, 2, 3, 4) for chain in (None, 1)
    ]
    for name, options in (("bnb", {}), ("dp-states", {}), *dense):
        clsolve.solve(warm, solver=name, device=device, **options)
    sets = {
        "jooken-dev": _development_sample(data_root(args.data)),
        "jooken-generated": _generated(args.quick),
        "pisinger": _families(args.quick),
    }
    results: dict[str, list[dict]] = {}
    for name, instances in sets.items():
        results[name] = []
        for problem, facts in instances:
            row = _row(problem, facts, solver, device, limit, ortools and name == "pisinger")
            results[name].append(row)
            proved = "proved" if row.get("optimal") else ("no answer" if not row["answer"] else f"gap {row.get('gap')}")
            print(f"  {name}: {problem.name}: {row['seconds']:.3f} s, {proved}", file=sys.stderr)
    return {
        "benchmark": "hard-kp",
        "device": device.describe(),
        "solver": solver,
        "time_limit_seconds": limit,
        "ortools_installed": ortools,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "sets": results,
        "summary": _summary(results),
        "note": "seconds are end to end per instance with items (presolve, fixing, search, the engine's check); "
        "combo_seconds are Pisinger's combo on Jooken et al.'s machine, from the data set's optima.csv; "
        "OR-Tools (KNAPSACK_MULTIDIMENSION_BRANCH_AND_BOUND_SOLVER, host CPU, values only) under the same "
        "limit where installed",
    }


def _summary(results: dict[str, list[dict]]) -> dict:
    out = {}
    for name, rows in results.items():
        if rows:
            out[name] = {
                "instances": len(rows),
                "proved_optimal": sum(bool(r.get("optimal")) for r in rows),
                "no_answer": sum(not r["answer"] for r in rows),
                "seconds_max": max(r["seconds"] for r in rows),
                "wrong_optimum": sum(r.get("equals_known_optimum") is False for r in rows),
            }
    return out
