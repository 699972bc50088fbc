"""mkp-bnb (branch and bound with surrogate bounds, any m): random instances with m = 1..30 against
brute force, with zero rows, dimensions that never bind, huge coefficients and every batch size;
the surrogate bound never below the optimum; OR-Library's mknap1 at its optima and class A against
the dense DP (mkp-bnb and mkp-dfs); time limits and max_nodes that bracket the optimum; sums past 2^62 refused."""

import numpy as np
import pytest
from conftest import brute_force, class_a_problems
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import hard_mkp, hard_mkp_optimum, multidimensional

import clsolve
from clsolve.generators import chu_beasley
from clsolve.io import formats
from clsolve.mkp.surrogate import Relaxation

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@SETTINGS
@given(
    problem=multidimensional(),
    batch=st.sampled_from([1, 3, 4096]),
    presolve=st.booleans(),
    host_nodes=st.sampled_from([0, 1, 4096]),
)
def test_random_instances_match_brute_force(problem, batch, presolve, host_nodes):
    solution = clsolve.solve(problem, solver="mkp-bnb", batch=batch, presolve=presolve, host_nodes=host_nodes)
    assert solution.optimal and solution.value == brute_force(problem)


@SETTINGS
@given(problem=multidimensional(max_n=10))
def test_surrogate_bound_is_never_below_the_optimum(problem):
    relaxation = Relaxation(problem.profits, problem.weights, problem.capacities)
    root = relaxation.bounds(0, np.zeros(1, np.int64), problem.capacities[None, :])
    assert int(root[0]) >= brute_force(problem)


#: The two searches over the same relaxation, on the host and on the device with poisoned buffers, each
#: without the host walk (which settles these instances by default), and the walk.
SEARCHES = [("mkp-bnb", {"host_nodes": 0}), ("mkp-dfs", {"poison": True, "host_nodes": 0}), ("mkp-bnb", {})]


@pytest.mark.parametrize("solver, options", SEARCHES)
def test_mknap1_every_problem_at_its_optimum(data, device, solver, options):
    path = data / "orlib-mkp" / "mknap1.txt"
    if not path.is_file():
        pytest.skip("mknap1 absent")
    for problem in formats.read(path, scale=10):
        solution = clsolve.solve(problem, solver=solver, device=device, **options)
        assert solution.optimal and solution.value == problem.known_optimum, problem.name
        chosen = clsolve.solve(problem, device=device)  # the searches: every DP holds m <= 3
        assert chosen.solver in ("mkp-bnb", "mkp-dfs", "mkp-batch") and chosen.value == problem.known_optimum


@pytest.mark.parametrize("solver, options", SEARCHES)
def test_class_a_matches_the_dense_dp(data, device, solver, options):
    for problem in class_a_problems(data)[::5]:
        expected = clsolve.solve(problem, solver="dp-rows", device=device).value
        solution = clsolve.solve(problem, solver=solver, device=device, **options)
        assert solution.optimal and solution.value == expected, problem.name


@pytest.mark.parametrize("limit", [{"time_limit": 0.02}, {"max_nodes": 50}])
def test_limits_return_a_checked_answer_that_brackets_the_optimum(limit):
    problem = hard_mkp()
    optimum = hard_mkp_optimum()
    stopped = clsolve.solve(problem, solver="mkp-bnb", host_nodes=0, **limit)
    assert not stopped.optimal and stopped.value <= optimum <= stopped.bound
    assert any("time limit" in note or "max_nodes" in note for note in stopped.notes)


def test_sums_past_two_to_the_62_are_refused():
    problem = clsolve.Knapsack([2**61, 2**61, 5], [[1, 1], [1, 1], [1, 1]], [2, 2], weights_by="item")
    with pytest.raises(clsolve.UnsupportedProblemError, match="2\\^62"):
        clsolve.solve(problem, solver="mkp-bnb")


def test_plan_names_the_root_bound_and_the_search_its_multipliers():
    problem = hard_mkp(30, 3)
    settled = clsolve.plan(problem, solver="mkp-bnb")  # the plan's walk settles it: measured, no root bound
    assert settled.details["host_walk"]["nodes"] > 0 and "root_bound" not in settled.details
    plan = clsolve.plan(problem, solver="mkp-bnb", host_nodes=0)
    assert plan.details["root_bound"] >= plan.details["greedy"] >= 0 and plan.host_buffers["open nodes"] > 0
    for host_nodes in (0, 4096):  # the search's fitted multipliers, or the walk's (the fixing's prices)
        solution = clsolve.solve(problem, solver="mkp-bnb", host_nodes=host_nodes)
        assert plan.details["greedy"] <= solution.value <= plan.details["root_bound"]
        assert len(solution.stats["multipliers"]) == 3 and max(solution.stats["multipliers"]) == 1.0


def test_one_capacity_is_left_to_the_one_dimensional_solvers():
    problem = clsolve.Knapsack([3, 4], [2, 3], 4)
    with pytest.raises(clsolve.UnsupportedProblemError, match="m >= 2"):
        clsolve.solve(problem, solver="mkp-bnb")


@pytest.mark.parametrize("limit", [0.05, 0.3])
def test_time_limit_is_kept(limit):
    """A batch predicted to end past the limit is not started: the answer comes within the deadline's
    margin of max(10 %, 50 ms), preprocessing of this small instance included."""
    import time

    problem = chu_beasley(100, 10, 0.25, seed=1)
    began = time.perf_counter()
    solution = clsolve.solve(problem, solver="mkp-bnb", time_limit=limit)
    assert time.perf_counter() - began <= limit + max(0.1 * limit, 0.05)
    assert not solution.optimal and solution.value <= solution.bound


def test_sequential_agrees_on_two_and_three_dimensions():
    rng = np.random.default_rng(9)
    for m in (2, 3):
        weights = rng.integers(1, 30, (24, m))
        problem = clsolve.Knapsack(rng.integers(1, 50, 24), weights, weights.sum(axis=0) // 3, weights_by="item")
        assert clsolve.solve(problem, solver="mkp-bnb").value == clsolve.solve(problem, solver="sequential").value
