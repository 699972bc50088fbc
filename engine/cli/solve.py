"""``clsolve solve``: read the problems, plan each, solve those that can be, and write every answer
and every failure.

A problem that is refused or fails does not take the others' answers with it: its index, name and
reason go to stderr (and, with ``--json``, an ``error`` object to stdout in its place); the exit code
is then the most serious failure's (see ``clsolve.cli.exits``).
"""

from __future__ import annotations

import json
import sys

from .. import api
from ..errors import BatchError, ClsolveError, FormatError, TimeLimitError, problem_label
from ..plugin import checked, registry
from ..runtime import progress
from ..runtime.log import Record, logging
from ..scaleout import cluster, multidevice
from . import show
from .exits import EXIT_OK, exit_code
from .progress import showing
from .sources import Source, gather, select


def run(args) -> int:
    if not args.files and not args.example:
        raise FormatError("clsolve solve", None, "name instance files or folders, - for standard input, or --example NAME")
    sources = gather(args.files, args.example or [], args.format, args.scale, (lambda text: None) if args.quiet else _say)
    if args.instance:
        sources = select(sources, args.instance)
    if args.list:
        _list(sources)
        return EXIT_OK
    options = dict(args.option or [])
    if args.time_limit is not None:
        options["time_limit"] = args.time_limit
    if args.host_memory_limit is not None:
        options["host_memory_limit"] = args.host_memory_limit
    spread = args.scheduler is not None or multidevice.is_several(args.device)
    failures: dict[int, ClsolveError] = {}
    if args.plan or not spread:  # refusals before any solving; spread batches plan on their workers
        plans = _plans(sources, args, options, failures)
        if args.plan:
            _write_plans(sources, plans, failures, args.json)
            return _finish(sources, failures, args.json)
    todo = [i for i in range(len(sources)) if i not in failures]
    logged = args.log and not args.quiet
    with showing(args.quiet or logged, args.progress and not logged), logging(_log_line if logged else None):
        solutions = _solve(sources, todo, args, options, spread, failures)
    _write(sources, solutions, failures, args)
    return _finish(sources, failures, args.json)


def _log_line(record: Record) -> None:
    print(record, file=sys.stderr, flush=True)


def _say(text: str) -> None:
    print(f"clsolve: {text}", file=sys.stderr)


def _list(sources: list[Source]) -> None:
    width = max((len(s.name) for s in sources), default=0)
    for s in sources:
        described = s.problem.describe().removeprefix(f"{s.name}: ")
        print(f"{s.index:>4}  {s.name:<{width}}  {described}  ({s.origin})")


def _plans(sources: list[Source], args, options: dict, failures: dict) -> dict:
    plans = {}
    for index, source in enumerate(sources):
        try:
            plans[index] = api.plan(source.problem, args.solver, args.device, **options)
        except TimeLimitError as exc:
            if args.plan:  # without --plan the solve answers within the limit itself (an anytime
                failures[index] = exc  # solver with its bound), or fails on its own
        except ClsolveError as exc:
            failures[index] = exc
    return plans


def _write_plans(sources: list[Source], plans: dict, failures: dict, as_json: bool) -> None:
    for index, source in enumerate(sources):
        if index in failures:
            continue
        if as_json:
            print(json.dumps({"index": source.index, "name": source.name, **plans[index].to_dict()}))
        else:
            print("\n".join(show.plan_lines(source, plans[index])))


def _solve(sources: list[Source], todo: list[int], args, options: dict, spread: bool, failures: dict) -> dict:
    """Solutions by index; failures added to ``failures``."""
    problems = [sources[i].problem for i in todo]
    if not problems:
        return {}
    if spread:
        return _spread(problems, todo, args, options, failures)
    try:
        found = api.solve_many(problems, args.solver, args.device, **options)
    except BatchError as exc:  # every other problem's answer is kept
        for k, error in exc.failures.items():
            failures[todo[k]] = _unlabelled(error, k, problems[k])
        return {todo[k]: s for k, s in enumerate(exc.solutions) if s is not None}
    except ClsolveError as exc:
        if len(problems) == 1:
            raise
        for i in todo:  # an error of the call itself (its solver, options or device)
            failures[i] = exc
        return {}
    return dict(zip(todo, found))


def _unlabelled(error: ClsolveError, position: int, problem) -> ClsolveError:
    """``error`` without the label that names the problem by its position in the batch solved (the
    CLI names it by its own index and name)."""
    text = str(error).removeprefix(f"{problem_label(position, problem)}: ")
    try:
        return type(error)(text)
    except TypeError:  # an error whose constructor takes more than its message
        return error


def _spread(problems: list, todo: list[int], args, options: dict, failures: dict) -> dict:
    client = cluster.connect(args.scheduler) if args.scheduler is not None else None

    def bar(done) -> None:
        progress.report("problems", done.instances_done, done.instances)

    try:
        found = api.solve_many(problems, args.solver, None if client else args.device, client=client, progress=bar, **options)
    except BatchError as exc:
        for k, error in exc.failures.items():
            failures[todo[k]] = _unlabelled(error, k, problems[k])
        found = exc.solutions
    finally:
        if client is not None:
            client.close()
    return {i: s for i, s in zip(todo, found) if s is not None}


def _write(sources: list[Source], solutions: dict, failures: dict, args) -> None:
    batch = _batch_size(solutions)
    for index, source in enumerate(sources):
        if index in solutions:
            if args.json:
                print(json.dumps(show.solution_json(source, solutions[index], source.index)))
            else:
                print("\n".join(show.solution_lines(source, solutions[index], args.items, batch)))
        elif index in failures and args.json:
            error = failures[index]
            print(
                json.dumps(
                    {
                        "index": source.index,
                        "name": source.name,
                        "origin": source.origin,
                        "error": str(error),
                        "kind": type(error).__name__,
                        "exit_code": exit_code(error),
                    }
                )
            )
    if batch > 1 and not args.json:
        print(show.batch_line(batch, list(solutions.values())))


def _batch_size(solutions: dict) -> int:
    """How many answers came from one call of a batch solver (1 when each was solved alone)."""
    names = {s.solver for s in solutions.values()}
    if len(solutions) < 2 or len(names) != 1:
        return 1
    cls = registry.solver_classes().get(names.pop())
    return len(solutions) if cls is not None and checked.batches(cls) else 1


def _finish(sources: list[Source], failures: dict, as_json: bool) -> int:
    for position, error in sorted(failures.items()):
        text, name, index = str(error), sources[position].name, sources[position].index
        if text.startswith(f"problem {index} "):  # an error that names the index itself
            _say(f"error: {text}")
        else:
            _say(f"error: problem {index} ({name}): {text.removeprefix(f'{name}: ')}")
    if failures and len(sources) > 1:
        _say(f"{len(failures)} of {len(sources)} problems failed")
    return max((exit_code(e) for e in failures.values()), default=EXIT_OK)
