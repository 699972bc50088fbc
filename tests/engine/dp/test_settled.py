"""Knapsacks that presolve decides alone (every profit 0, no item fits, every item fits together,
capacity 0) are answered by the engine before any solver plans or searches, for every m and every
solver; and the surrogate bound of the multidimensional branch and bounds is exact where no item is
taken in part, so their own searches prove such problems too (before, all-zero profits with m >= 2
made mkp-bnb and mkp-dfs enumerate the whole tree)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import brute_force

import clsolve
from clsolve.mkp.surrogate import Suffix
from clsolve.plugin import checked

KNAPSACK_SOLVERS = [
    "auto",
    "sequential",
    "dp-rows",
    "dp-batch",
    "bnb",
    "dp-states",
    "mckp",
    "wavefront",
    "mkp-bnb",
    "mkp-dfs",
    "mkp-batch",
]


def _settled(kind: str, m: int, seed: int = 0) -> clsolve.Knapsack:
    rng = np.random.default_rng(seed)
    n = 12
    weights = rng.integers(1, 50, (n, m))
    profits = rng.integers(1, 100, n)
    total = weights.sum(axis=0)
    if kind == "zero profits":
        return clsolve.Knapsack(np.zeros(n, int), weights, total // 2, weights_by="item")
    if kind == "no item fits":
        return clsolve.Knapsack(profits, weights + 10, np.full(m, 10), weights_by="item")
    if kind == "every item fits":
        return clsolve.Knapsack(profits, weights, total, weights_by="item")
    weights[::3] = 0  # capacity 0: only the weightless items, all of them
    return clsolve.Knapsack(profits, weights, np.zeros(m, int), weights_by="item")


KINDS = ["zero profits", "no item fits", "every item fits", "capacity 0"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("m", [1, 2, 4])
def test_the_engine_settles_them_before_any_solver(kind, m):
    problem = _settled(kind, m)
    decided = checked.settled(problem)
    assert decided is not None and decided.problem is None
    assert decided.trivial("x", "host CPU").value == brute_force(problem)


def test_a_problem_with_a_choice_is_not_settled():
    assert checked.settled(clsolve.Knapsack([3, 4], [2, 3], 4)) is None


@pytest.mark.parametrize("solver", KNAPSACK_SOLVERS)
@pytest.mark.parametrize("kind", KINDS)
def test_every_solver_answers_them_at_once(device, solver, kind):
    for m in (1, 2, 3):
        problem = _settled(kind, m, seed=m)
        try:
            plan = clsolve.plan(problem, solver=solver, device=device)
        except clsolve.UnsupportedProblemError:
            continue  # not the solver's kind of problem (m = 1 for the mkp solvers, m >= 2 for bnb)
        assert "presolve" in plan.details and plan.seconds == 0.0
        if solver in ("dp-batch", "mkp-batch"):
            solution = clsolve.solve_many([problem, problem], solver=solver, device=device, time_limit=5)[0]
        else:
            solution = clsolve.solve(problem, solver=solver, device=device, time_limit=5)
        assert solution.optimal and solution.value == brute_force(problem), (solver, kind, m)


def test_the_reported_hang_is_proved_by_each_search_without_presolve(device):
    """The issue's reproducer: all-zero profits, m = 2, 40 items. The searches themselves (presolve
    off, no host walk) prove it: the bound of a node with no profit left is its profit."""
    weights = [[(7 * i) % 19 + 1, (11 * i) % 17 + 1] for i in range(40)]
    problem = clsolve.Knapsack([0] * 40, weights, [150, 140], weights_by="item")
    assert clsolve.solve(problem, solver="auto", device=device, time_limit=10).optimal
    for solver in ("mkp-bnb", "mkp-dfs"):
        solution = clsolve.solve(problem, solver=solver, device=device, presolve=False, host_nodes=0, time_limit=10)
        assert solution.optimal and solution.value == 0, solver


def test_the_surrogate_bound_is_exact_where_no_item_is_taken_in_part():
    profits = np.array([5, 3, 0, 0])
    weights = np.array([[2, 1], [2, 2], [3, 1], [1, 4]])  # ratio order with u = (1, 1): the items in turn
    suffix = Suffix.of(profits, weights, np.array([1.0, 1.0]))
    residual = np.array([[100, 100], [4, 3], [3, 2]])
    bounds = suffix.bounds(np.array([7, 7, 7]), residual)
    assert bounds[0] == 7 + 8  # every item fits: the profits' sum, no margin
    assert bounds[1] == 7 + 8  # the first item that does not fit has no profit, nor any after it
    assert bounds[2] == 14  # item 1 in part (2 of its 4: 7 + 5 + 1.5), rounded up with the margin
    zero = Suffix.of(np.zeros(4, int), weights, np.array([1.0, 1.0]))
    assert zero.bounds(np.array([0]), np.array([[3, 3]]))[0] == 0
