"""The ``clsolve`` command line (also ``python -m clsolve``).

Subcommands: ``solve`` (``clsolve.cli.solve``), ``examples``, ``solvers``, ``devices``
(``clsolve.cli.listings``), ``calibrate``, ``datasets`` (their own modules) and ``bench`` (``clsolve.bench``).
Results go to stdout; progress, skipped files and errors to stderr. Exit codes are in ``clsolve.cli.exits``.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading

from .. import __version__
from ..errors import ClsolveError
from ..io import formats
from . import calibrate, datasets, listings, solve
from .exits import EXIT_BROKEN_PIPE, EXIT_INTERRUPTED, EXIT_TERMINATED, exit_code

__all__ = ["main", "parser"]


class Terminated(BaseException):
    """SIGTERM, raised in the main thread so that a long solve unwinds (its queue finished) and exits."""


def _option(text: str) -> tuple[str, object]:
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    key, value = text.split("=", 1)
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


# long: the solve command's options, one per line
def _solve_parser(sub) -> None:
    p = sub.add_parser(
        "solve",
        help="solve instance files, folders or bundled examples",
        description="Solve every problem in the files and folders given (folders recursively; - reads standard input).",
    )
    p.add_argument("files", nargs="*", help="instance files, folders, or - for standard input")
    p.add_argument(
        "--example", action="append", metavar="NAME", help="a bundled example instance (see `clsolve examples`; repeatable)"
    )
    p.add_argument("--solver", default="auto", help="solver name (see `clsolve solvers`) or auto")
    p.add_argument(
        "--device",
        default=None,
        help="auto, gpu, cpu, a name fragment[:index], #N, or all (the batch spread over every GPU) "
        "(default: $CLSOLVE_DEVICE or auto)",
    )
    p.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="spread the batch over a Dask cluster's workers (tcp://host:8786; needs clsolve[dask])",
    )
    p.add_argument("--format", choices=formats.FORMATS, help="file format (default: detected)")
    p.add_argument(
        "--instance",
        action="append",
        metavar="NAME",
        help="solve only this instance: its name, its index in the run (0, as --list shows) "
        "or its position in each file (#1); repeatable",
    )
    p.add_argument("--list", action="store_true", help="list the instances found, without solving")
    p.add_argument(
        "--scale",
        default="1",
        help="multiply all numbers by this before the integer check (e.g. 1e6); answers are also shown in the file's units",
    )
    p.add_argument("--option", "-o", action="append", type=_option, metavar="KEY=VALUE", help="solver option")
    p.add_argument(
        "--time-limit",
        type=float,
        default=None,
        metavar="SECONDS",
        help="stop after this many seconds for the whole run: anytime solvers (`clsolve solvers` marks "
        "them) return their best answer and a proven bound; a problem another solver has not answered "
        "by then is reported as failed, with exit code 4, beside the answers the run has",
    )
    p.add_argument(
        "--host-memory-limit",
        type=_bytes,
        default=None,
        metavar="BYTES",
        help="host memory a solve may take, e.g. 8G or 500M (default: half of what is available); "
        "a plan that needs more is refused with exit code 3",
    )
    p.add_argument("--plan", action="store_true", help="print the plan (memory, work, estimate) instead of solving")
    p.add_argument("--json", action="store_true", help="one JSON object per problem on stdout")
    p.add_argument("--items", action="store_true", help="print every item, position or city (default: a summary)")
    p.add_argument(
        "--progress", action="store_true", help="progress on stderr even when it is not a terminal (a line per update)"
    )
    p.add_argument(
        "--log",
        action="store_true",
        help="a solver log on stderr: start, then about every second incumbent, bound, gap and work, builds, outcome",
    )
    p.add_argument("--quiet", "-q", action="store_true", help="no progress, log or notes on stderr")
    p.set_defaults(run=solve.run)


_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


def _bytes(text: str) -> int:
    """A byte count: digits, optionally followed by K, M, G or T (powers of 1024, an optional B or iB)."""
    number = text.strip().upper().removesuffix("B").removesuffix("I")
    unit = number[-1:] if number[-1:] in _UNITS else ""
    digits = number[: len(number) - len(unit)]
    if not digits.isdigit() or int(digits) * _UNITS[unit] < 1:
        raise argparse.ArgumentTypeError(f"expected a positive number of bytes such as 8G or 500M, got {text!r}")
    return int(digits) * _UNITS[unit]


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="clsolve", description="Exact knapsack-family, LCS and TSP solvers on OpenCL devices.")
    top.add_argument("--version", action="version", version=f"clsolve {__version__}")
    sub = top.add_subparsers(dest="command", required=True)
    _solve_parser(sub)
    for name, help_text, run in (
        ("examples", "list the bundled example instances", listings.cmd_examples),
        ("solvers", "list installed solver plugins", listings.cmd_solvers),
        ("devices", "list OpenCL platforms and devices", listings.cmd_devices),
    ):
        listing = sub.add_parser(name, help=help_text)
        listing.add_argument("--json", action="store_true")
        listing.set_defaults(run=run)

    calibrate.add_parser(sub)
    datasets.add_parser(sub)
    from .. import bench

    bench.add_parser(sub).set_defaults(run=_bench)
    return top


def _bench(args) -> int:
    from .. import bench
    from .progress import showing

    with showing():  # a bar on a terminal inside long cases (the cases' own lines go to stderr too)
        return bench.main(args)


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    previous = _on_sigterm()
    try:
        return args.run(args)
    except ClsolveError as exc:
        print(f"clsolve: error: {exc}", file=sys.stderr)
        return exit_code(exc)
    except KeyboardInterrupt:
        print("clsolve: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Terminated:
        print("clsolve: terminated", file=sys.stderr)
        return EXIT_TERMINATED
    except BrokenPipeError:  # the reader left (`clsolve solve ... | head`): stop quietly, as Unix tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _on_sigterm():
    """Turn SIGTERM into ``Terminated`` in the main thread (the previous handler, or None)."""
    if threading.current_thread() is not threading.main_thread():
        return None

    def handler(signum, frame):
        raise Terminated()

    return signal.signal(signal.SIGTERM, handler)
