"""The ``clsolve`` command line.

Exit codes: 0 solved; 2 bad usage or input (file, option, unknown solver or device);
3 the problem does not fit or no solver accepts it; 4 the time limit passed with no answer;
1 any other failure (a kernel that does not build, a solution that fails its check); 130 and 143
interrupted by Ctrl-C or SIGTERM. Results go to stdout, progress and errors to stderr.
"""
from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from pathlib import Path

from . import __version__, api, examples
from .errors import (
    BatchError,
    ClsolveError,
    DeviceNotFoundError,
    DoesNotFitError,
    FormatError,
    InvalidOptionError,
    InvalidProblemError,
    TimeLimitError,
    UnknownSolverError,
    UnsupportedProblemError,
)
from .io import formats
from .scaleout import cluster, multidevice

EXIT_OK, EXIT_FAILURE, EXIT_USAGE, EXIT_REFUSED, EXIT_TIME_LIMIT = 0, 1, 2, 3, 4
EXIT_INTERRUPTED, EXIT_TERMINATED = 130, 143


class Terminated(BaseException):
    """SIGTERM, raised in the main thread so that a long solve unwinds (its queue finished) and exits."""


def _exit_code(exc: ClsolveError) -> int:
    if isinstance(exc, BatchError):
        return max(_exit_code(e) for e in exc.failures.values())
    if isinstance(exc, (FormatError, InvalidProblemError, UnknownSolverError, DeviceNotFoundError,
                        InvalidOptionError)):
        return EXIT_USAGE
    if isinstance(exc, (DoesNotFitError, UnsupportedProblemError)):
        return EXIT_REFUSED
    if isinstance(exc, TimeLimitError):
        return EXIT_TIME_LIMIT
    return EXIT_FAILURE


def _option(text: str) -> tuple[str, object]:
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    key, value = text.split("=", 1)
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


def _files(paths: list[str]) -> list[str]:
    out = []
    for path in paths:
        p = Path(path)
        out.extend(sorted(str(f) for f in p.iterdir() if f.is_file()) if p.is_dir() else [path])
    return out


def cmd_examples(args) -> int:
    width = max(map(len, examples.names()))
    for example in examples.EXAMPLES.values():
        print(f"{example.name:<{width}}  {example.what}")
    print("\nsolve one with `clsolve solve --example NAME`; sources and citations: "
          f"{examples.path(examples.names()[0]).parent / 'SOURCE.md'}")
    return EXIT_OK


# long: the solve command's options, each a few lines, in the order of --help
def cmd_solve(args) -> int:
    if not args.files and not args.example:
        raise FormatError("clsolve solve", None, "name instance files or directories, or --example NAME")
    problems = [examples.load(name) for name in args.example or []]
    for path in _files(args.files):
        problems.extend(formats.read(path, args.format, args.scale))
    if args.instance:
        wanted = set(args.instance)
        problems = [p for p in problems if p.name in wanted]
        missing = wanted - {p.name for p in problems}
        if missing:
            raise FormatError(", ".join(args.files), None, f"no instance named {', '.join(sorted(missing))}")
    options = dict(args.option or [])
    if args.time_limit is not None:
        options["time_limit"] = args.time_limit
    spread = args.scheduler is not None or multidevice.is_several(args.device)
    if not spread or args.plan:  # refuse before any output (spread batches report each failure by index)
        plans = [api.plan(problem, args.solver, args.device, **options) for problem in problems]
    if args.plan:
        for problem, plan in zip(problems, plans):
            print(json.dumps({"name": problem.name, **plan.to_dict()}) if args.json
                  else f"{problem.describe()}\n  {plan.to_dict()}")
        return EXIT_OK
    if len(problems) > 1 and not args.quiet:
        print(f"solving {len(problems)} problems as one batch", file=sys.stderr)
    failure = None
    if spread:
        client = cluster.connect(args.scheduler) if args.scheduler is not None else None
        try:
            solutions = api.solve_many(problems, args.solver, None if client else args.device, client=client,
                                       progress=None if args.quiet else _show_progress, **options)
        except BatchError as exc:
            failure, solutions = exc, exc.solutions
        finally:
            if client is not None:
                client.close()
    else:
        solutions = api.solve_many(problems, args.solver, args.device, **options)
    for problem, solution in zip(problems, solutions):
        if solution is None:
            continue
        if args.json:
            print(json.dumps(solution.to_dict(problem)))
            continue
        print(f"{problem.describe()}")
        print(f"  value    {solution.value}{' (optimal)' if solution.optimal else ''}")
        for line in _answer_lines(problem, solution):
            print(line)
        print(f"  solver   {solution.solver} on {solution.device}")
        t = solution.timings
        print(f"  seconds  total {t.total:.6f} (upload {t.upload:.6f}, kernels {t.kernels:.6f}, "
              f"download {t.download:.6f}, host {t.host:.6f})")
        for note in solution.notes:
            print(f"  note     {note}")
        if problem.known_optimum is not None:
            print(f"  known    optimum {problem.known_optimum}")
    if failure is not None:
        for error in failure.failures.values():
            print(f"clsolve: error: {error}", file=sys.stderr)
        return _exit_code(failure)
    return EXIT_OK


def _answer_lines(problem, solution) -> list[str]:
    """The answer in words: items (knapsack), the subsequence (LCS) or the tour (TSP)."""
    if solution.positions is not None:
        subsequence = problem.subsequence(solution.positions)
        shown = subsequence if isinstance(subsequence, str) else " ".join(map(str, subsequence.tolist()))
        return [f"  length   {len(solution.positions)} of {problem.m} x {problem.n}",
                f"  common   {shown}",
                f"  in a     {' '.join(str(int(i)) for i in solution.positions[:, 0])}",
                f"  in b     {' '.join(str(int(j)) for j in solution.positions[:, 1])}"]
    if solution.tour is not None:
        return [f"  tour     {' '.join(str(int(c)) for c in solution.tour)} 0"]
    items = " ".join(str(i) for i in solution.items)
    used = solution.to_dict(problem)["used"]
    return [f"  items    {len(solution.items)} of {problem.n}: {items}",
            f"  used     {' x '.join(map(str, used))} of {' x '.join(map(str, problem.capacities.tolist()))}"]


def _show_progress(progress) -> None:
    print(f"progress: {progress.line()}", file=sys.stderr, flush=True)


def cmd_solvers(args) -> int:
    listing = api.solvers()
    if args.json:
        print(json.dumps(listing, indent=2))
    else:
        rows = [(entry["name"], ", ".join(entry["problems"]), entry["summary"]) for entry in listing]
        widths = [max((len(row[i]) for row in rows), default=0) for i in range(2)]
        for name, kinds, summary in rows:
            print(f"{name:<{widths[0]}}  {kinds:<{widths[1]}}  {summary}")
    return EXIT_OK


def cmd_devices(args) -> int:
    from .runtime import icd
    listing = api.devices()
    if args.json:
        print(json.dumps(listing, indent=2))
        return EXIT_OK
    if icd.applied:
        print(f"note: {icd.applied}", file=sys.stderr)
    if not listing:
        print("no OpenCL devices found", file=sys.stderr)
        return EXIT_FAILURE
    for d in listing:
        simulator = " (a simulator: used only when named)" if d.get("simulator") else ""
        print(f"{d['platform']} / {d['device']} [{d['type']}]{simulator}: {d['global_memory_bytes'] / 2**30:.1f} GiB global, "
              f"{d['max_allocation_bytes'] / 2**30:.1f} GiB per buffer, {d['local_memory_bytes'] // 1024} KiB local, "
              f"{d['compute_units']} compute units, work-groups up to {d['max_work_group_size']}")
    return EXIT_OK


def cmd_bench(args) -> int:
    from . import bench
    return bench.main(args)


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="clsolve", description="Exact knapsack-family, LCS and TSP solvers on OpenCL devices.")
    top.add_argument("--version", action="version", version=f"clsolve {__version__}")
    sub = top.add_subparsers(dest="command", required=True)

    solve = sub.add_parser("solve", help="solve instance files", description="Solve every problem in the files given.")
    solve.add_argument("files", nargs="*", help="instance files or directories")
    solve.add_argument("--example", action="append", metavar="NAME",
                       help="a bundled example instance (see `clsolve examples`; repeatable)")
    solve.add_argument("--solver", default="auto", help="solver name (see `clsolve solvers`) or auto")
    solve.add_argument("--device", default=None,
                       help="auto, gpu, cpu, a name fragment[:index], #N, or all (the batch spread over every GPU) "
                            "(default: $CLSOLVE_DEVICE or auto)")
    solve.add_argument("--scheduler", default=None, metavar="ADDRESS",
                       help="spread the batch over a Dask cluster's workers (tcp://host:8786; needs clsolve[dask])")
    solve.add_argument("--quiet", "-q", action="store_true", help="no progress on stderr")
    solve.add_argument("--format", choices=formats.FORMATS, help="file format (default: detected)")
    solve.add_argument("--instance", action="append", help="solve only the instance of this name (repeatable)")
    solve.add_argument("--scale", default="1", help="multiply all numbers by this before the integer check (e.g. 1e6)")
    solve.add_argument("--option", "-o", action="append", type=_option, help="solver option KEY=VALUE")
    solve.add_argument("--time-limit", type=float, default=None, metavar="SECONDS",
                       help="stop after this many seconds for the whole run: bnb returns its best answer and a "
                            "bound, other solvers stop with exit code 4")
    solve.add_argument("--plan", action="store_true", help="print the plan (memory, work) instead of solving")
    solve.add_argument("--json", action="store_true", help="one JSON object per problem on stdout")
    solve.set_defaults(run=cmd_solve)

    listing = sub.add_parser("examples", help="list the bundled example instances")
    listing.set_defaults(run=cmd_examples)

    solvers = sub.add_parser("solvers", help="list installed solver plugins")
    solvers.add_argument("--json", action="store_true")
    solvers.set_defaults(run=cmd_solvers)

    devices = sub.add_parser("devices", help="list OpenCL platforms and devices")
    devices.add_argument("--json", action="store_true")
    devices.set_defaults(run=cmd_devices)

    from . import bench
    bench.add_parser(sub).set_defaults(run=cmd_bench)
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    previous = _on_sigterm()
    try:
        return args.run(args)
    except ClsolveError as exc:
        print(f"clsolve: error: {exc}", file=sys.stderr)
        return _exit_code(exc)
    except KeyboardInterrupt:
        print("clsolve: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Terminated:
        print("clsolve: terminated", file=sys.stderr)
        return EXIT_TERMINATED
    except BrokenPipeError:  # the reader left (`clsolve solve ... | head`): stop quietly, as Unix tools do
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
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


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
