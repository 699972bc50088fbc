"""The time-limit check: a solver (bnb unless --solver) on 40 Jooken-style instances with c = 1e10
(n 400..1200), each with time limits of 1, 3 and 7 s. Every call must return a checked answer (no exception) within the
limit plus the margin of ``clsolve.runtime.deadline`` (max(10 %, 50 ms)).

    python ci/time_limits.py --device pocl --limits 1,3,7 --json ci/results/time-limits-pocl.json
    python ci/time_limits.py --solver dp-states --limits 0.3,1,3 --json ci/results/time-limits-dp-states.json

Exits 1 when any call raises or returns late.
"""

from __future__ import annotations

import argparse
import datetime
import itertools
import json
import sys
import time

import clsolve
from clsolve.generators import jooken
from clsolve.runtime.deadline import Deadline

SIZES = (400, 600, 800, 1000, 1200)
PARAMETERS = list(itertools.product(SIZES, (10, 14), (0.1, 0.2), (0, 0.0001), (100, 300)))[::2]


def _gap(outcome: dict) -> str:
    return "optimal" if outcome["optimal"] else f"gap {outcome['bound'] - outcome['value']}"


def family(count: int) -> list[clsolve.Knapsack]:
    return [jooken(n, 10**10, g, f, eps, s, seed=k) for k, (n, g, f, eps, s) in enumerate(PARAMETERS[:count])]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default=None)
    parser.add_argument("--solver", default="bnb")
    parser.add_argument("--limits", default="1,3,7")
    parser.add_argument("--count", type=int, default=40)
    parser.add_argument("--json", default=None, help="write the results here")
    args = parser.parse_args(argv)
    device = clsolve.get_device(args.device)
    limits = [float(x) for x in args.limits.split(",")]
    clsolve.solve(jooken(400, 10**10, 10, 0.2, 0, 100, 1), solver=args.solver, device=device, time_limit=0.5)  # kernels
    rows, failures = [], 0
    for problem in family(args.count):
        for limit in limits:
            began = time.perf_counter()
            try:
                solution = clsolve.solve(problem, solver=args.solver, device=device, time_limit=limit)
                outcome = {"value": solution.value, "optimal": solution.optimal, "bound": solution.bound}
            except clsolve.ClsolveError as exc:
                outcome = {"error": f"{type(exc).__name__}: {exc}"}
            seconds = time.perf_counter() - began
            late = seconds > limit + Deadline(limit).margin
            failures += late or "error" in outcome
            rows.append({"instance": problem.name, "time_limit": limit, "seconds": round(seconds, 4), "late": late, **outcome})
            print(
                f"{problem.name} limit {limit:g}: {seconds:.3f} s {'LATE ' if late else ''}"
                f"{outcome.get('error') or _gap(outcome)}",
                flush=True,
            )
    worst = max(r["seconds"] - r["time_limit"] for r in rows)
    summary = {
        "device": device.label,
        "solver": args.solver,
        "date": datetime.date.today().isoformat(),
        "calls": len(rows),
        "failures": failures,
        "worst_seconds_past_limit": round(worst, 4),
        "command": "python ci/time_limits.py " + " ".join(argv if argv is not None else sys.argv[1:]),
    }
    print(json.dumps(summary))
    if args.json:
        with open(args.json, "w") as out:
            json.dump({**summary, "runs": rows}, out, indent=1)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
