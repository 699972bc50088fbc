"""The LP duals of two-constraint knapsacks (clsolve.mkp.arrangement): the walk's value is the least
of the Lagrangian bound over every vertex of the arrangement (brute force), it bounds the optimum,
and the solvers that fix items by the reduced costs of these prices stay exact."""

import itertools

import numpy as np
import pytest
from conftest import brute_force
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import multidimensional

import clsolve
from clsolve.mkp import arrangement
from clsolve.mkp.surrogate import prices

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _lagrangian(problem: clsolve.Knapsack, y: np.ndarray) -> float:
    p, w = problem.profits.astype(np.float64), problem.weights.astype(np.float64)
    return float(y @ problem.capacities.astype(np.float64) + np.maximum(p - w @ y, 0.0).sum())


def _least_over_vertices(problem: clsolve.Knapsack) -> float:
    """The least Lagrangian bound over every intersection of two lines p_j = y . w_j or axes, y >= 0."""
    lines = [(float(a), float(b), float(r)) for (a, b), r in zip(problem.weights.tolist(), problem.profits.tolist())]
    lines += [(1.0, 0.0, 0.0), (0.0, 1.0, 0.0)]
    best = _lagrangian(problem, np.zeros(2))
    for (a, b, r), (d, e, s) in itertools.combinations(lines, 2):
        det = a * e - b * d
        if det != 0:
            y = np.array([(r * e - b * s) / det, (a * s - r * d) / det])
            if (y >= -1e-9 * (1 + np.abs(y))).all():
                best = min(best, _lagrangian(problem, np.maximum(y, 0.0)))
    return best


@SETTINGS
@given(problem=multidimensional(max_n=10, max_m=2))
def test_duals_reach_the_least_bound_over_every_vertex(problem):
    y, value = arrangement.duals(problem.profits, problem.weights, problem.capacities)
    assert (y >= 0).all()
    scale = float(problem.profits.sum()) + 1.0  # the terms' size: their sum may cancel them
    assert value == pytest.approx(_lagrangian(problem, y), abs=1e-12 * scale)
    least = _least_over_vertices(problem)
    assert value <= least + 1e-9 * scale
    assert value + 1e-9 * scale >= brute_force(problem)


def test_two_constraints_take_the_duals_and_others_the_descent():
    rng = np.random.default_rng(3)
    two = clsolve.Knapsack(rng.integers(1, 100, 40), rng.integers(1, 100, (40, 2)), [600, 700], weights_by="item")
    y, value = prices(two.profits, two.weights, two.capacities, 0.0)
    assert value == arrangement.duals(two.profits, two.weights, two.capacities)[1]
    assert value <= _least_over_vertices(two) * (1 + 1e-12)
    three = clsolve.Knapsack(two.profits, rng.integers(1, 100, (40, 3)), [600, 700, 800], weights_by="item")
    assert prices(three.profits, three.weights, three.capacities, 0.0)[0].size == 3


@SETTINGS
@given(
    problem=multidimensional(max_n=12, max_m=2),
    solver=st.sampled_from(["mkp-bnb", "mkp-dfs"]),
    host_nodes=st.sampled_from([0, 4096]),
)
def test_two_constraint_solvers_fixing_by_the_duals_match_brute_force(problem, solver, host_nodes):
    solution = clsolve.solve(problem, solver=solver, host_nodes=host_nodes)
    assert solution.optimal and solution.value == brute_force(problem)
