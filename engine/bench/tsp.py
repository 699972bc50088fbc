"""``clsolve bench tsp``: every TSPLIB instance of the data folder's ``tsplib/`` from 18 cities on, up to
``--max-cities`` (their published optima in ``optimal_values.csv``), and with ``--full`` random uniform Euclidean instances of
120 to 200 cities (TSPLIB's EUC_2D rounding, seeded). Each is solved end to end by ``--solver`` (default
``tsp-bnb``) under ``--time-limit`` (default 60 s) after warm solves that build its kernels, and by the
peers of ``tsp_peers`` (SCIP and HiGHS with DFJ subtour elimination) on the same host where they are
importable, under ``--peer-limit`` (default 60 s). Every answer is the engine's checked one; a proved
value must equal the published optimum and the peers' proved values."""

from __future__ import annotations

import csv
import datetime
import sys
from pathlib import Path

import numpy as np

import clsolve
from clsolve import TSP, InvalidOptionError, get_device

from . import peers
from .common import data_root, solve_row

LIMIT_SECONDS = 60.0
PEER_LIMIT_SECONDS = 60.0
PEERS = ("scip", "highs")
#: Held-Karp's reach: smaller instances are left to ``clsolve bench wavefront``.
LEAST_CITIES = 18
#: ``--full``'s random Euclidean instances: cities, and seeds of each.
RANDOM_SIZES = (120, 150, 200)


def euclidean(n: int, seed: int) -> TSP:
    """n cities uniform in a 1000 x 1000 square, distances rounded to the nearest integer (EUC_2D)."""
    xy = np.random.default_rng(seed).uniform(0, 1000, (n, 2))
    d = np.floor(np.hypot(*(xy[:, None, :] - xy[None, :, :]).transpose(2, 0, 1)) + 0.5).astype(np.int64)
    return TSP(d, name=f"random-euclidean n={n} seed={seed}")


def tsplib_cases(folder: Path, most: int | None = None) -> list[TSP]:
    """The folder's instances from LEAST_CITIES to ``most`` cities with a published optimum, by size."""
    table = folder / "optimal_values.csv"
    if not table.exists():
        return []
    with open(table) as rows:
        optima = {row["name"]: int(row["optimal_tour_length"]) for row in csv.DictReader(rows)}
    out = []
    for path in sorted(folder.glob("*.*tsp")):
        name = path.name.split(".")[0]
        if name not in optima:
            continue
        problem = clsolve.io.formats.read(path)[0]
        if LEAST_CITIES <= problem.n <= (most or problem.n):
            out.append(TSP(problem.distances, name=name, known_optimum=optima[name]))
    return sorted(out, key=lambda p: (p.n, p.name))


def _warm(device, solver: str) -> None:
    """Kernel builds out of the timings: a symmetric and an asymmetric problem of each size class."""
    for n in (20, 40, 100):
        clsolve.solve(euclidean(n, 0), solver=solver, device=device, time_limit=30)
        d = np.random.default_rng(n).integers(1, 1000, (n // 2, n // 2))
        clsolve.solve(TSP(d), solver=solver, device=device, time_limit=30)


def run(args) -> dict:
    device = get_device(args.device)
    solver = args.solver or "tsp-bnb"
    limit = args.time_limit or LIMIT_SECONDS
    peer_limit = args.peer_limit or PEER_LIMIT_SECONDS
    chosen = PEERS if args.peers is None else tuple(p for p in args.peers.split(",") if p)
    if set(chosen) - set(PEERS):
        raise InvalidOptionError(f"--peers: {', '.join(sorted(set(chosen) - set(PEERS)))} not among {', '.join(PEERS)}")
    root = data_root(args.data)
    problems = tsplib_cases(root / "tsplib", args.max_cities) if root is not None else []
    if args.full:
        problems += [euclidean(n, seed) for n in RANDOM_SIZES for seed in (1, 2)]
    _warm(device, solver)
    rows = [_row(problem, solver, device, limit, peer_limit, chosen) for problem in problems]
    return {
        "benchmark": "tsp",
        "device": device.label,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "solver": solver,
        "time_limit": limit,
        "peer_limit": peer_limit,
        "peers": [name for name in chosen if peers.available(name)],
        "rows": rows,
        "summary": _summary(rows, [name for name in chosen if peers.available(name)]),
    }


def _row(problem: TSP, solver: str, device, limit: float, peer_limit: float, chosen: tuple[str, ...]) -> dict:
    row: dict = {"name": problem.name, "n": problem.n, "symmetric": problem.symmetric, "optimum": problem.known_optimum}
    row["clsolve"] = result = solve_row(problem, solver, device, limit)
    print(
        f"  {problem.name} {solver}: {result['seconds']:.3f} s {result.get('value', result.get('reason', ''))}", file=sys.stderr
    )
    proved = {result["value"]} if result.get("optimal") else set()
    for name in chosen:
        if not peers.available(name):
            continue
        answer = peers.timed(name, "tsp", problem, peer_limit) or {"seconds": 0.0, "proved": False}
        row[name] = answer
        print(f"  {problem.name} {name}: {answer['seconds']:.3f} s {answer.get('value', '')}", file=sys.stderr)
        if answer.get("proved") and answer.get("value") is not None:
            proved.add(answer["value"])
    if len(proved) > 1:
        raise AssertionError(f"{problem.name}: proved optima disagree: {sorted(proved)}")
    return row


def _summary(rows: list[dict], names: list[str]) -> dict:
    proved = [r for r in rows if r["clsolve"].get("optimal")]
    out: dict = {
        "instances": len(rows),
        "proved": len(proved),
        "seconds": round(sum(r["clsolve"]["seconds"] for r in rows), 3),
        "most_seconds": round(max((r["clsolve"]["seconds"] for r in rows), default=0.0), 3),
    }
    for name in names:
        both = [r for r in rows if r.get(name, {}).get("proved") and r["clsolve"].get("optimal")]
        out[name] = {
            "proved": sum(1 for r in rows if r.get(name, {}).get("proved")),
            "seconds": round(sum(r[name]["seconds"] for r in rows if name in r), 3),
            "both_proved": len(both),
            "slowest_ratio": round(max((r["clsolve"]["seconds"] / r[name]["seconds"] for r in both), default=0.0), 3),
        }
    return out
