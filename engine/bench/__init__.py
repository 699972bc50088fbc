"""``clsolve bench NAME``: one module per benchmark (auto, dp_rows, batch for msb and class-a, bnb, mckp,
scale, wavefront, hard_kp, kpm, small_rows, family, tsp), the helpers they share in ``common``. Each prints
JSON with the device and the date (stdout, or ``--out``); progress goes to stderr."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from clsolve import FormatError, InvalidOptionError

from . import auto, batch, bnb, dp_rows, family, hard_kp, kpm, mckp, plots, scale, small_rows, tsp, wavefront
from .common import data_root

__all__ = ["BENCHMARKS", "add_parser", "data_root", "main"]

BENCHMARKS = {
    "auto": auto.run,
    "bnb": bnb.run_bnb,
    "dp-rows": dp_rows.run_dp_rows,
    "family": family.run,
    "mckp": mckp.run,
    "msb": batch.run_batch_set,
    "class-a": batch.run_batch_set,
    "scale": scale.run,
    "wavefront": wavefront.run,
    "hard-kp": hard_kp.run,
    "kpm": kpm.run,
    "small-rows": small_rows.run,
    "tsp": tsp.run,
}


def add_parser(sub):
    bench = sub.add_parser(
        "bench",
        help="run a benchmark, print JSON",
        description="Measure a solver; JSON on stdout (or --out), progress on stderr.",
    )
    bench.add_argument("name", choices=sorted(BENCHMARKS), help="which benchmark")
    bench.add_argument("--device", default=None, help="device spec (default: $CLSOLVE_DEVICE or auto)")
    bench.add_argument(
        "--solver",
        default=None,
        help="dp-rows: the solver to time (default dp-rows); hard-kp: the solver to run (default auto); "
        "family: the only solver to run (default: each kind's; none: the peers alone); tsp: the solver (default tsp-bnb)",
    )
    bench.add_argument(
        "--time-limit",
        type=float,
        default=None,
        metavar="SECONDS",
        help="hard-kp, kpm, family: the limit per instance (default 10 s); tsp: 60 s; auto: per solve (default 5 s)",
    )
    bench.add_argument("--data", default=None, help="the shared data folder (default: $CLSOLVE_DATA or ../shared/data)")
    bench.add_argument("--quick", action="store_true", help="smallest sizes only (for CPUs and smoke tests)")
    bench.add_argument("--repeats", type=int, default=2, help="runs per case; the fastest counts")
    bench.add_argument(
        "--full",
        action="store_true",
        help="msb/class-a: time sequential on every instance; mckp: add N = 1e6; family: 3 seeds; tsp: random 120 to 200 cities",
    )
    _benchmark_options(bench)
    bench.add_argument("--out", default=None, help="write the JSON here instead of stdout")
    bench.add_argument(
        "--plot",
        default=None,
        metavar="FILE.svg",
        help="also draw the result (times against size and peers, rates against the floor; needs clsolve[plot])",
    )
    bench.add_argument(
        "--from",
        dest="stored",
        default=None,
        metavar="RESULT.json",
        help="draw a stored result with --plot instead of running the benchmark",
    )
    return bench


def _benchmark_options(bench) -> None:
    """The options only some benchmarks read."""
    bench.add_argument(
        "--searches",
        action="store_true",
        help="mckp: only the searches (bnb, dp-states, auto) and the peers (OR-Tools, MT2) at M = 1000, "
        "N = 1e4 and 1e5; no dense DP",
    )
    bench.add_argument("--copies", type=int, default=100, help="scale: copies of MSB-630 in the batch (default 100)")
    bench.add_argument(
        "--max-cities",
        type=int,
        default=None,
        help="wavefront: largest Held-Karp n to try (default: up to 33, stopping at the first refusal); tsp: the "
        "largest instance of the folder to run (default: all)",
    )
    bench.add_argument(
        "--parts",
        default=None,
        metavar="PART,...",
        help=f"wavefront: the parts to run, of {', '.join(wavefront.PARTS)} (default: all)",
    )
    bench.add_argument(
        "--kinds",
        default=None,
        metavar="KIND,...",
        help="family: the problem kinds to run, of bounded, unbounded, multiple-choice, multiple, subset-sum, change "
        "(default: all)",
    )
    bench.add_argument(
        "--peers",
        default=None,
        metavar="PEER,...",
        help="family: the peers to run where installed, of mt (the mknapsack package's codes) and cpsat; tsp: of scip "
        "and highs; '' for none (default: all)",
    )
    bench.add_argument(
        "--peer-limit",
        type=float,
        default=None,
        metavar="SECONDS",
        help="family, tsp: the limit for each peer (the MT codes, CP-SAT; SCIP, HiGHS) where installed (default 60 s)",
    )


def main(args) -> int:
    if args.stored is not None:
        if args.plot is None:
            raise InvalidOptionError("--from draws a stored result: give --plot FILE.svg too")
        plots.plot(_stored(args.stored), args.plot)
        print(f"wrote {args.plot}", file=sys.stderr)
        return 0
    result = BENCHMARKS[args.name](args)
    if args.plot is not None:
        plots.plot(result, args.plot)
        print(f"wrote {args.plot}", file=sys.stderr)
    text = json.dumps(result, indent=1)
    if args.out:
        Path(args.out).write_text(text + "\n")
        print(f"wrote {args.out}", file=sys.stderr)
    else:
        print(text)
    return 0


def _stored(path: str) -> dict:
    try:
        return json.loads(Path(path).read_text())
    except OSError as exc:
        raise FormatError(path, None, exc.strerror or str(exc)) from None
    except json.JSONDecodeError as exc:
        raise FormatError(path, exc.lineno, f"not a benchmark result: {exc.msg}") from None
