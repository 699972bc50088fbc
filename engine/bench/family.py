"""``clsolve bench family``: bounded and unbounded knapsacks, change-making and multiple-choice
knapsacks on the classic families (``clsolve.family.generators``: Pisinger's uncorrelated, weakly and
strongly correlated and subset-sum instances with counts in U[1, 10] and capacity half the total
weight; unbounded with capacity half the weights' sum; change-making with coin values in U[1, R];
[Pisinger95]'s multiple-choice families, 10 to 10,000 classes of 10 to 1,000 items; multiple knapsacks
of those families with 5 to 50 similar or dissimilar capacities, ``auto`` only; subset sums of
[Pisinger05]'s family with capacities up to 1e9, and [Pisinger03]'s hard families).

For each instance: ``auto``, ``bounded-dp`` and ``dp-states`` (bounded knapsacks as binary-split 0-1
knapsacks; ``choice-dp`` and ``choice-states`` for multiple-choice ones) end to end under ``--time-limit`` (default 10 s),
after a warm solve of a small instance of the same kind; and the peers of ``peers`` (the Martello-Toth
codes, CP-SAT) on the same host where they are importable, under ``--peer-limit`` (default 60 s).
Every answer is the engine's checked one; the values of solvers and peers that prove theirs must agree.
"""

from __future__ import annotations

import datetime
import sys
from typing import Any

import clsolve
from clsolve import ClsolveError, InvalidOptionError, get_device
from clsolve import family as generated
from clsolve.generators import pisinger
from clsolve.sdk import cache

from . import peers
from .common import solve_row

FAMILIES = ("uncorrelated", "weakly", "strongly", "subset-sum")
LIMIT_SECONDS = 10.0
PEERS = ("mt", "cpsat")
KINDS = ("bounded", "unbounded", "multiple-choice", "multiple", "subset-sum", "change")
PEER_LIMIT_SECONDS = 60.0


def _cases(quick: bool, seeds: int) -> list[tuple[str, Any]]:
    sizes = [(1000, 1000)] if quick else [(1000, 1000), (1000, 10000), (10000, 1000), (10000, 10000)]
    out: list[tuple[str, Any]] = []
    for seed in range(1, seeds + 1):
        for family in FAMILIES:
            for n, R in sizes:
                out.append(("bounded", generated.generators.bounded(family, n, R, 10, seed)))
                out.append(("unbounded", generated.generators.bounded(family, n, R, None, seed)))
        for family in generated.generators.CHOICE_FAMILIES:
            for k, size in [(10, 10), (100, 10)] if quick else [(10, 10), (100, 100), (1000, 10), (1000, 1000), (10000, 10)]:
                for R in (1000,) if quick else (1000, 10000):
                    out.append(("multiple-choice", generated.generators.choice(family, k, size, R, seed)))
        for family in FAMILIES:
            for n, k in [(50, 5)] if quick else [(50, 5), (200, 10), (1000, 10), (1000, 50)]:
                for similar in (True, False):
                    out.append(("multiple", generated.generators.multiple(family, n, k, 1000, similar, seed)))
        for n, R in (
            [(1000, 1000)] if quick else [(1000, 10**3), (1000, 10**5), (10000, 10**3), (10000, 10**5), (10000, 4 * 10**5)]
        ):
            out.append(("subset-sum", pisinger("subset-sum", n, R, seed=seed)))
        hard = [("evenodd", 1000), ("avis", 100), ("todd", 20)]
        if not quick:
            hard = [("p3", 1000), ("p3", 10000), ("p6", 1000), ("p6", 10000), ("evenodd", 1000), ("evenodd", 10000)]
            hard += [("avis", 100), ("avis", 1000), ("todd", 20), ("todd", 30), ("todd", 40)]
        out += [("subset-sum", generated.generators.subset_sum(family, n, seed)) for family, n in hard]
        for n in [10, 100] if quick else [10, 100, 1000]:
            for R in (1000, 10000):
                out.append(("change", generated.generators.change(n, R, None, seed)))
                out.append(("change", generated.generators.change(n, R, 10, seed)))
    return out


def _solvers(kind: str) -> tuple[str, ...]:
    if kind == "multiple-choice":
        return ("auto", "choice-dp", "choice-states")
    if kind == "multiple":
        return ("auto",)
    if kind == "subset-sum":
        return ("auto", "subset-sum", "dp-states")
    return ("auto", "bounded-dp", "dp-states") if kind != "change" else ("auto", "bounded-dp", "sequential")


def _warm(device) -> None:
    """Build the kernels of every installed solver that takes one of the kinds timed here (``auto`` may
    pick any of them) before the clock runs: each solves a small instance of each kind it accepts."""
    small = (
        generated.generators.bounded("strongly", 20, 100, 5, 0),
        generated.generators.bounded("strongly", 20, 100, None, 0),
        generated.generators.change(5, 100, None, 0),
        generated.generators.choice("uncorrelated", 4, 5, 100, 0),
        generated.generators.multiple("uncorrelated", 12, 2, 100, True, 0),
        pisinger("subset-sum", 20, 100, seed=0),
    )
    for info in clsolve.solvers():
        for problem in small:
            try:
                clsolve.solve(problem, solver=info.name, device=device)
            except ClsolveError:
                pass  # a solver that refuses this kind builds nothing for it


def run(args) -> dict:
    device = get_device(args.device)
    limit = args.time_limit or LIMIT_SECONDS
    _warm(device)
    rows = []
    kinds = KINDS if args.kinds is None else tuple(args.kinds.split(","))
    chosen = PEERS if args.peers is None else tuple(p for p in args.peers.split(",") if p)
    if set(chosen) - set(PEERS):
        raise InvalidOptionError(f"--peers: {', '.join(sorted(set(chosen) - set(PEERS)))} not among {', '.join(PEERS)}")
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown:
        raise InvalidOptionError(f"--kinds: {', '.join(unknown)} not among {', '.join(KINDS)}")
    for kind, problem in [case for case in _cases(args.quick, 3 if args.full else 1) if case[0] in kinds]:
        size = (
            {"capacities": problem.capacities.tolist()}
            if kind == "multiple"
            else {"capacity": int(problem.capacities[0]) if kind == "subset-sum" else problem.capacity}
        )
        row = {"kind": kind, "name": problem.name, "n": problem.n, **size, "solvers": {}}
        for solver in () if args.solver == "none" else (args.solver,) if args.solver else _solvers(kind):
            row["solvers"][solver] = result = solve_row(cold(problem), solver, device, limit)
            print(
                f"  {problem.name} {solver}: {result['seconds']:.3f} s {result.get('value', result.get('reason', ''))}",
                file=sys.stderr,
            )
        proved = {r["value"] for r in row["solvers"].values() if r.get("optimal")}
        if len(proved) > 1:
            raise AssertionError(f"{problem.name}: solvers prove different optima {sorted(proved)}")
        row.update(_peers(kind, problem, args.peer_limit or PEER_LIMIT_SECONDS, proved, chosen))
        rows.append(row)
    return {
        "benchmark": "family",
        "device": device.label,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "time_limit": limit,
        "peer_limit": args.peer_limit or PEER_LIMIT_SECONDS,
        "kinds": list(kinds),
        "peers": [name for name in chosen if peers.available(name)],
        "rows": rows,
        "summary": _summary(rows),
    }


def cold(problem):
    """The same problem as a new object without what solving it left (``memo``, the per-problem cache:
    presolve, the binary split, a probe), so that each solver is timed from the start."""
    out = object.__new__(type(problem))
    vars(out).update({k: v for k, v in vars(problem).items() if k not in ("_memo", cache.ATTRIBUTE)})
    return out


def _peers(kind: str, problem, limit: float, proved: set, chosen: tuple[str, ...]) -> dict:
    """The ``chosen`` peers on ``problem`` where importable; a peer's proved value must equal clsolve's."""
    out = {}
    for name in chosen:
        if not peers.available(name):
            continue
        result = peers.timed(name, kind, problem, limit)
        if result is not None:
            if result.get("proved") and proved and result.get("value") not in proved:
                raise AssertionError(f"{problem.name}: {name} proves {result.get('value')}, clsolve {sorted(proved)}")
            out[name] = result
            print(
                f"  {problem.name} {name}: {result['seconds']:.3f} s {result.get('value', result.get('reason', ''))}",
                file=sys.stderr,
            )
    return out


def _summary(rows: list[dict]) -> dict:
    """Per kind, solver and peer: instances proved, and the slowest proof."""
    out: dict = {}
    for row in rows:
        results = list(row["solvers"].items()) + [(peer, row[peer]) for peer in PEERS if peer in row]
        for solver, result in results:
            entry = out.setdefault(row["kind"], {}).setdefault(
                solver, {"instances": 0, "proved": 0, "slowest_proof_seconds": 0.0}
            )
            entry["instances"] += 1
            if result.get("optimal") or result.get("proved"):
                entry["proved"] += 1
                entry["slowest_proof_seconds"] = max(entry["slowest_proof_seconds"], result["seconds"])
    return out
