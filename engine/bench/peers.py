"""The peers ``clsolve bench family`` times beside clsolve on the same host: Martello and Toth's codes
of the ``mknapsack`` package (MTB2, MTU2, MTC2, MTM, MTSL; it ships wheels for Python 3.11 and below
and needs numpy < 2) and OR-Tools' CP-SAT on every kind. Each runs in a child process that is ended
at the limit, since the Fortran codes take no time limit; the child times the call, model building
and conversion included. A peer that is not importable is left out of the row."""

from __future__ import annotations

import multiprocessing
import queue
import time
from typing import Any

import numpy as np

from . import tsp_peers

MT_KINDS = ("bounded", "unbounded", "change", "multiple", "subset-sum")
EXACT = {"require_exact": 1}  # the codes' default is a heuristic answer
MTM_MOST_KNAPSACKS = 10  # the mknapsack package refuses MTM beyond 10 knapsacks


def available(name: str) -> bool:
    try:
        if name == "mt":
            import mknapsack  # noqa: F401
        elif name == "scip":
            import pyscipopt  # noqa: F401
        elif name == "highs":
            import highspy  # noqa: F401
        else:
            from ortools.sat.python import cp_model  # noqa: F401
    except ImportError:
        return False
    return True


def timed(name: str, kind: str, problem: Any, limit: float) -> dict | None:
    """Run peer ``name`` ("mt", "cpsat"; "scip" and "highs" for a TSP: ``tsp_peers``) on ``problem`` in a
    child process for at most ``limit``
    seconds: seconds, value and whether it proved it; None where the peer has no code for ``kind``."""
    if name == "mt" and (kind not in MT_KINDS or _mt_refuses(kind, problem)):
        return None
    context = multiprocessing.get_context("spawn")
    answers = context.Queue()
    child = context.Process(target=_child, args=(name, kind, problem, limit, answers), daemon=True)
    child.start()
    try:
        answers.get(timeout=120.0)  # the child has imported its peer: its start is not timed
        answer = answers.get(timeout=limit + 1.0)
    except queue.Empty:
        answer = None
    child.join(timeout=1.0)
    if child.is_alive():
        child.kill()
        child.join()
    if answer is None or answer.get("seconds", 0.0) > limit:
        return {"seconds": limit, "proved": False, "reason": f"not proved within {limit:g} s"}
    return answer


def _mt_refuses(kind: str, problem: Any) -> bool:
    if kind == "change" and problem.counts is not None:
        return True  # MTC2 makes change from unlimited coins only
    return kind == "multiple" and len(problem.capacities) > MTM_MOST_KNAPSACKS


def _child(name: str, kind: str, problem: Any, limit: float, answers: Any) -> None:
    available(name)  # imported before the clock starts
    answers.put("ready")
    try:
        if name == "mt":
            start = time.perf_counter()
            value = _mt_value(kind, problem)
            answers.put({"seconds": time.perf_counter() - start, "value": value, "proved": True})
        elif name in ("scip", "highs"):
            answers.put(getattr(tsp_peers, name)(problem, limit))
        else:
            answers.put(_cpsat(kind, problem, limit))
    except Exception as exc:  # a peer's own failure is a row's note, never the benchmark's end
        answers.put({"seconds": 0.0, "proved": False, "reason": f"{type(exc).__name__}: {exc}"})


def _mt_value(kind: str, problem: Any) -> int:
    import mknapsack

    if kind == "multiple":
        bins = mknapsack.solve_multiple_knapsack(
            problem.profits.tolist(),
            problem.weights.tolist(),
            problem.capacities.tolist(),
            method="mtm",
            method_kwargs={"max_backtracks": -1},
        )
        return int(np.dot(np.asarray(bins) > 0, problem.profits))
    if kind == "subset-sum":
        chosen = mknapsack.solve_subset_sum(
            problem.weights[:, 0].tolist(), int(problem.capacities[0]), method="mtsl", method_kwargs=dict(EXACT)
        )
        return int(np.dot(np.asarray(chosen), problem.weights[:, 0]))
    if kind == "change":
        return int(
            np.sum(
                mknapsack.solve_change_making(
                    problem.weights.tolist(), problem.capacity, method="mtc2", method_kwargs=dict(EXACT)
                )
            )
        )
    if kind == "bounded":
        counts = mknapsack.solve_bounded_knapsack(
            problem.profits.tolist(),
            problem.weights.tolist(),
            problem.counts.tolist(),
            problem.capacity,
            method="mtb2",
            method_kwargs=dict(EXACT),
        )
    else:
        counts = mknapsack.solve_unbounded_knapsack(
            problem.profits.tolist(), problem.weights.tolist(), problem.capacity, method="mtu2", method_kwargs=dict(EXACT)
        )
    return int(np.dot(counts, problem.profits))


def _cpsat(kind: str, problem: Any, limit: float) -> dict:
    from ortools.sat.python import cp_model

    start = time.perf_counter()
    model = cp_model.CpModel()
    objective = _cpsat_model(model, kind, problem)
    if kind == "change":
        model.minimize(objective)
    else:
        model.maximize(objective)
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = limit
    status = solver.solve(model)
    out: dict = {"seconds": time.perf_counter() - start, "proved": status in (cp_model.OPTIMAL, cp_model.INFEASIBLE)}
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        out.update(value=int(round(solver.objective_value)), bound=int(round(solver.best_objective_bound)))
    elif status == cp_model.INFEASIBLE:
        out.update(value=None)
    return out


def _cpsat_model(model: Any, kind: str, problem: Any) -> Any:
    """Variables and constraints of ``problem`` in ``model``; returns the objective's expression."""
    if kind == "multiple-choice":
        x = [model.new_bool_var(f"x{j}") for j in range(problem.n)]
        for members in problem.members():
            picked = sum(x[j] for j in members)
            model.add(picked <= 1) if problem.at_most_one else model.add(picked == 1)
        model.add(sum(int(w) * v for w, v in zip(problem.weights, x)) <= problem.capacity)
        return sum(int(p) * v for p, v in zip(problem.profits, x))
    if kind == "multiple":
        k = len(problem.capacities)
        x = [[model.new_bool_var(f"x{j}_{i}") for i in range(k)] for j in range(problem.n)]
        for row in x:
            model.add(sum(row) <= 1)
        for i, capacity in enumerate(problem.capacities.tolist()):
            model.add(sum(int(w) * x[j][i] for j, w in enumerate(problem.weights.tolist())) <= capacity)
        return sum(int(p) * sum(x[j]) for j, p in enumerate(problem.profits.tolist()))
    if kind == "subset-sum":
        weights = problem.weights[:, 0].tolist()
        x = [model.new_bool_var(f"x{j}") for j in range(len(weights))]
        model.add(sum(w * v for w, v in zip(weights, x)) <= int(problem.capacities[0]))
        return sum(w * v for w, v in zip(weights, x))
    weights = problem.weights.tolist()
    counts = problem.counts.tolist() if problem.counts is not None else [problem.capacity // w for w in weights]
    x = [model.new_int_var(0, b, f"x{j}") for j, b in enumerate(counts)]
    load = sum(w * v for w, v in zip(weights, x))
    if kind == "change":
        model.add(load == problem.capacity)
        return sum(x)
    model.add(load <= problem.capacity)
    return sum(int(p) * v for p, v in zip(problem.profits.tolist(), x))
