"""Every solver through the engine: auto's choice, batches in order, the engine's check of a wrong
answer, refusals, options, estimates, and no state kept on a solver between calls."""

import numpy as np
import pytest
from conftest import brute_force
from hypothesis import HealthCheck, given, settings
from strategies import knapsacks

import clsolve
from clsolve.plugin import checked, registry
from clsolve_plugins.sequential import SequentialSolver

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def test_auto_picks_a_solver_that_accepts(device):
    problem = clsolve.Knapsack([3, 4], [1, 2], 2)
    solution = clsolve.solve(problem, solver="auto", device=device)
    assert solution.solver in clsolve.plugin.registry.names() and solution.value == 4


def test_solve_many_in_order(device):
    problems = [clsolve.Knapsack([i + 1, 2], [1, 1], 1) for i in range(5)]
    values = [s.value for s in clsolve.solve_many(problems, solver="dp-rows", device=device)]
    assert values == [2, 2, 3, 4, 5]


def test_engine_rejects_a_wrong_solution(device, monkeypatch):
    problem = clsolve.Knapsack([3, 4], [1, 2], 2)
    original = SequentialSolver.solve

    def lying(self, problem, device, plan):
        solution = original(self, problem, device, plan)
        solution.value += 1
        return solution

    monkeypatch.setattr(SequentialSolver, "solve", lying)
    with pytest.raises(clsolve.SolutionCheckError, match="sum to 4"):
        clsolve.solve(problem, solver="sequential")


def test_engine_rejects_an_infeasible_solution(monkeypatch):
    problem = clsolve.Knapsack([3, 4], [1, 2], 2)

    def greedy(self, problem, device, plan):
        return clsolve.Solution(7, np.array([True, True]), True, self.name, "")

    monkeypatch.setattr(SequentialSolver, "solve", greedy)
    with pytest.raises(clsolve.SolutionCheckError, match="infeasible"):
        clsolve.solve(problem, solver="sequential")


def test_m_above_three_is_refused_clearly_by_dense_dps_and_solved_by_branch_and_bound(device):
    problem = clsolve.Knapsack([1, 2], [[1, 2, 3, 4], [4, 3, 2, 1]], [4] * 4)  # four binding dimensions
    for solver in ("dp-rows", "sequential"):
        with pytest.raises(clsolve.UnsupportedProblemError, match="m = 4"):
            clsolve.solve(problem, solver=solver, device=device)
    solution = clsolve.solve(problem, solver="auto", device=device)
    assert solution.solver in ("mkp-bnb", "mkp-dfs", "mkp-batch") and solution.optimal and solution.value == brute_force(problem)
    huge = clsolve.Knapsack([2**61, 2**61, 7], [[1, 2, 3, 4], [4, 3, 2, 1], [1, 1, 1, 1]], [4] * 4, weights_by="item")
    with pytest.raises(clsolve.UnsupportedProblemError, match="no installed solver accepts"):
        clsolve.solve(huge, solver="auto", device=device)


def test_table_too_large_is_refused_before_allocating(device):
    weights = 10**5 + np.arange(100_000)  # total 1.5e10 > capacity, no common divisor: presolve cannot shrink it
    problem = clsolve.Knapsack(np.ones(100_000, dtype=np.int64), weights, 4_000_000_000)
    with pytest.raises(clsolve.DoesNotFitError) as info:
        clsolve.solve(problem, solver="dp-rows", device=device)
    message = str(info.value)
    assert "decision rows" in message and "needs" in message and "allows" in message  # the value rows or the bits
    with pytest.raises(clsolve.UnsupportedProblemError, match="2\\^32 - 1"):
        clsolve.solve(clsolve.Knapsack([1, 1], [2**32 + 1, 2**32], 2**33), solver="dp-rows", device=device)


def test_unknown_solver_and_option():
    problem = clsolve.Knapsack([1], [1], 1)
    with pytest.raises(clsolve.UnknownSolverError, match="installed solvers: .*dp-rows.*sequential"):
        clsolve.solve(problem, solver="no-such-solver")
    with pytest.raises(clsolve.InvalidOptionError, match="dp-rows"):
        clsolve.solve(problem, solver="dp-rows", colour="red")
    with pytest.raises(clsolve.InvalidOptionError, match="items_per_launch"):
        clsolve.solve(problem, solver="dp-rows", items_per_launch=5)


def test_items_per_pass_by_default(device):
    """4 items per pass on short 1-D rows (pairs where they are chained), 3 on long ones, pairs for
    m = 2 and 3; asked for, as asked."""
    from clsolve_plugins.dp_rows.solver import SMALL_ROW

    rng = np.random.default_rng(11)
    short = clsolve.Knapsack(rng.integers(1, 100, 9), rng.integers(1, 50, 9), 200)
    long = clsolve.Knapsack(rng.integers(1, 100, 9), rng.integers(SMALL_ROW // 4, SMALL_ROW, 9), SMALL_ROW + 5)
    two = clsolve.Knapsack(rng.integers(1, 100, 9), rng.integers(1, 50, (9, 2)), [300, 300], weights_by="item")
    for problem, default in ((short, 4), (long, 3), (two, 2)):
        plan = clsolve.plan(problem, solver="dp-rows", device=device, presolve=False)
        default = 2 if plan.details["chain"] > 1 else default
        assert plan.details["items_per_launch"] == default
        solution = clsolve.solve(problem, solver="dp-rows", device=device, presolve=False, poison=True)
        assert solution.value == clsolve.solve(problem, solver="sequential").value
        assert f"{default} item(s) per pass" in solution.notes[0]
    assert (
        clsolve.plan(long, solver="dp-rows", device=device, presolve=False, items_per_launch=1).details["items_per_launch"] == 1
    )


def _planned(problem, device):
    """(solver, least_seconds, plan seconds, on a device) of every installed solver that accepts and plans
    ``problem``."""
    from clsolve.errors import ClsolveError
    from clsolve.plugin import registry

    out = []
    for name in registry.names():
        solver = registry.load(name)
        if solver.accepts(problem) is not None:
            continue
        where = device if checked.uses_device(solver) else None
        try:
            plan = solver.plan(problem, where)
        except ClsolveError:
            continue
        if plan.refusal(where) is None:
            out.append((name, solver.least_seconds(problem, where), plan.seconds, where is not None))
    return out


@SETTINGS
@given(problem=knapsacks(max_n=40, max_capacity=3000, big_profits=True))
def test_least_seconds_is_never_above_the_plan(problem, device):
    """``auto`` skips planning a solver whose ``least_seconds`` passes the best estimate: that bound must
    never pass the solver's own plan."""
    for name, least, seconds, _ in _planned(problem, device):
        assert 0 <= least <= seconds, name


def test_auto_chooses_as_if_every_solver_were_planned(device):
    """The same choice with the bounds as with every solver planned, on problems where dense DPs win,
    lose, or cannot run (a large easy knapsack)."""
    from clsolve import solving
    from clsolve.bench.mckp import table2

    problems = [
        clsolve.Knapsack([5, 4, 3, 7], [2, 3, 1, 4], 6),
        table2(3000, 50, seed=2),
        table2(20000, 1000, seed=3),
        clsolve.Knapsack(np.arange(1, 41), np.arange(41, 1, -1), 300),
        clsolve.Knapsack([7, 9], [[3, 4], [5, 2]], [8, 6], weights_by="item"),
    ]  # presolve settles it
    for problem in problems:
        planned = _planned(problem, device)
        assert (
            min((seconds, on_device, name) for name, _, seconds, on_device in planned)[2]
            == solving.choose(problem, device)[0].name
        )


def test_the_searches_are_the_anytime_solvers():
    """The solvers that answer under any limit (the fuzzer holds them to it) say so; the DPs do not."""
    assert {info.name for info in clsolve.solvers() if info.anytime} == {
        "bnb",
        "dp-states",
        "mkp-bnb",
        "mkp-dfs",
        "mkp-batch",
        "choice-states",
        "multiple-bnb",
        "tsp-bnb",
    }


@pytest.mark.parametrize("name", sorted(registry.names()))
def test_a_solver_keeps_nothing_on_itself_between_calls(device, name):
    """What a plan computes for its solve travels in the plan or the batch's memo, never on the
    instance: a solver's attributes after two solves are those it was made with."""
    problems = [
        clsolve.Knapsack([6, 5, 4, 3], [[3, 1], [2, 3], [2, 2], [1, 2]], [4, 4], weights_by="item"),
        clsolve.Knapsack([6, 5, 4, 3], [3, 2, 2, 1], 4),
        clsolve.Knapsack([3, 5, 9, 4], [3, 5, 9, 4], 12),  # subset sum
        clsolve.LCS("GATTACA", "TACGAT"),
        clsolve.TSP([[0, 2, 9], [1, 0, 6], [15, 7, 0]]),
        clsolve.BoundedKnapsack([6, 5, 4], [3, 2, 2], 9, [2, 1, 3]),
        clsolve.ChangeMaking([3, 5], 11),
        clsolve.MultipleChoice([5, 6, 7, 1], [4, 6, 5, 1], 10, [0, 0, 1, 1]),
        clsolve.MultipleKnapsack([10, 7, 5], [4, 3, 2], [5, 4]),
    ]
    solver = registry.load(name)
    made = dict(vars(solver))
    where = device if checked.uses_device(solver) else None
    taken = [p for p in problems if solver.accepts(p) is None]
    assert taken
    for problem in taken * 2:
        checked.solve(solver, problem, where, checked.plan(solver, problem, where))
    assert vars(solver) == made
