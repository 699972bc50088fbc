"""Time one solver over a 2D instance set under two installs of clsolve, in interleaved rounds.

Each round runs one fresh process per install (in turn, the order alternating between rounds): it
loads the set, solves it once to build the kernels, then solves every instance one after another
``--repeats`` times. A round's time is the sum over the instances of each one's fastest solve (a
pass's time swings by a third on a shared host; an instance's fastest of many solves does not).
With ``--batch`` a round solves the set as one batch ``--repeats`` times, the fastest counting. The
JSON gives every round and, per install, the best and the median round, and the change of both from
the first install to the second.

    python ci/ab.py --before /tmp/before --after /tmp/site --set class-a --solver dp-rows \\
        --options '{"presolve": false}' --rounds 8 --repeats 10 --out ab.json

``--before`` and ``--after`` are folders put first on PYTHONPATH (pip install --target ...).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys

#: What each process runs: the set solved once, then ``repeats`` timed passes.
PASS = r"""
import json, sys, time
import clsolve
from clsolve.bench.common import fresh, two_d_set

class Args:
    name, data = sys.argv[1], None

name, problems = two_d_set(Args)
solver, options, repeats = sys.argv[2], json.loads(sys.argv[3]), int(sys.argv[4])
device = clsolve.get_device(None)
if sys.argv[5] == "batch":
    clsolve.solve_many(fresh(problems), solver=solver, device=device, **options)
    passes = []
    for _ in range(repeats):
        batch = fresh(problems)
        began = time.perf_counter()
        clsolve.solve_many(batch, solver=solver, device=device, **options)
        passes.append(time.perf_counter() - began)
    print(json.dumps({"seconds": min(passes), "passes": passes, "device": device.label, "problems": len(problems)}))
    sys.exit(0)
for problem in fresh(problems):
    clsolve.solve(problem, solver=solver, device=device, **options)
fastest = [float("inf")] * len(problems)
passes = []
for _ in range(repeats):
    batch = fresh(problems)
    began = time.perf_counter()
    for index, problem in enumerate(batch):
        start = time.perf_counter()
        clsolve.solve(problem, solver=solver, device=device, **options)
        fastest[index] = min(fastest[index], time.perf_counter() - start)
    passes.append(time.perf_counter() - began)
print(json.dumps({"seconds": sum(fastest), "passes": passes, "device": device.label, "problems": len(problems)}))
"""


def one(site: str, args) -> dict:
    environment = dict(os.environ, PYTHONPATH=site + os.pathsep + os.environ.get("PYTHONPATH", ""))
    way = "batch" if args.batch else "each"
    command = [sys.executable, "-c", PASS, args.set, args.solver, args.options, str(args.repeats), way]
    done = subprocess.run(command, env=environment, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True)
    parser.add_argument("--after", required=True)
    parser.add_argument("--set", default="class-a", choices=["class-a", "msb"])
    parser.add_argument("--solver", default="dp-rows")
    parser.add_argument("--options", default="{}", help="the solver's options as JSON")
    parser.add_argument("--batch", action="store_true", help="time solve_many over the set (its fastest pass)")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    runs: dict[str, list[dict]] = {"before": [], "after": []}
    device = ""
    for round_ in range(args.rounds):
        order = ("before", "after") if round_ % 2 == 0 else ("after", "before")
        for side in order:
            measured = one(getattr(args, side), args)
            device = measured["device"]
            runs[side].append({"round": round_ + 1, "seconds": measured["seconds"], "passes": measured["passes"]})
            print(f"round {round_ + 1} {side}: {measured['seconds']:.5f} s", file=sys.stderr)
    summary = {}
    for side, rounds in runs.items():
        seconds = [r["seconds"] for r in rounds]
        summary[side] = {"best": min(seconds), "median": statistics.median(seconds)}
    result = {
        "benchmark": f"{args.solver} {args.options} over {args.set}, "
        + ("as one batch" if args.batch else "one instance at a time")
        + ", two installs interleaved",
        "device": device,
        "date": datetime.date.today().isoformat(),
        "command": " ".join(["python ci/ab.py", *(argv if argv is not None else sys.argv[1:])]),
        "rounds": args.rounds,
        "repeats": args.repeats,
        **summary,
        "change_best": round(summary["after"]["best"] / summary["before"]["best"] - 1, 4),
        "change_median": round(summary["after"]["median"] / summary["before"]["median"] - 1, 4),
        "runs": runs,
    }
    text = json.dumps(result, indent=1)
    if args.out:
        with open(args.out, "w") as handle:
            handle.write(text + "\n")
    print(text if not args.out else f"{result['change_best']:+.2%} best, {result['change_median']:+.2%} median")
    return 0


if __name__ == "__main__":
    sys.exit(main())
