"""The host walk before the multidimensional searches (clsolve.mkp.walk): the core's optimum against
brute force from any floor; a budget or a time limit makes it give up (None) and the search proper
still answers right; class A settled by the walk alone, at the dense DP's optima."""

import numpy as np
import pytest
from conftest import brute_force, class_a_problems
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import hard_mkp, hard_mkp_optimum, multidimensional

import clsolve
from clsolve.mkp.fixing import fix
from clsolve.mkp.walk import walk
from clsolve.runtime import deadline

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@SETTINGS
@given(problem=multidimensional(), below=st.integers(1, 5))
def test_walk_finds_the_optimum_above_any_floor(problem, below):
    """Over the whole problem with arbitrary prices (any multipliers give a valid bound)."""
    optimum = brute_force(problem)
    prices = np.random.default_rng(problem.n).random(problem.m)
    walked = walk(problem, prices, optimum - below, 10**6)
    assert walked is not None and walked.found and walked.value == optimum
    assert int(problem.profits[walked.chosen].sum()) == optimum
    assert (problem.weights[walked.chosen].sum(axis=0) <= problem.capacities).all()
    at_optimum = walk(problem, prices, optimum, 10**6)
    assert at_optimum is not None and not at_optimum.found and not at_optimum.chosen.any()


def test_the_fixings_prices_walk_the_core():
    fixing = fix(hard_mkp())
    assert fixing.core is not None and fixing.prices is not None
    walked = walk(fixing.core, fixing.prices, fixing.floor, 10**7)
    assert walked is not None
    assert (walked.value + fixing.profit_in if walked.found else fixing.value) == hard_mkp_optimum()


def test_budget_and_time_limit_give_up():
    fixing = fix(hard_mkp())
    assert walk(fixing.core, fixing.prices, fixing.floor, 10) is None
    with deadline.limit(0.0):
        assert walk(fixing.core, fixing.prices, fixing.floor, 10**7) is None


@pytest.mark.parametrize("solver", ["mkp-bnb", "mkp-dfs"])
def test_a_walk_that_gives_up_leaves_the_search_to_answer(solver, device):
    solution = clsolve.solve(hard_mkp(), solver=solver, device=device, host_nodes=10)
    assert solution.optimal and solution.value == hard_mkp_optimum() and "host_walk" not in solution.stats


@pytest.mark.parametrize("solver", ["mkp-bnb", "mkp-dfs"])
def test_class_a_is_settled_by_the_walk(data, device, solver):
    for problem in class_a_problems(data)[1::6]:
        expected = clsolve.solve(problem, solver="dp-rows", device=device).value
        solution = clsolve.solve(problem, solver=solver, device=device)
        assert solution.optimal and solution.value == expected, problem.name
        assert solution.stats.get("host_walk") or solution.stats.get("nodes", 0) == 0, problem.name


def test_a_walk_run_by_the_plan_counts_in_the_solve_time():
    """The plan walks and the solve takes its answer: the solution's host time includes that walk."""
    from clsolve.dp.presolve import reduce
    from clsolve.generators import chu_beasley
    from clsolve.mkp.walk import HOST_NODES, probe

    problem = chu_beasley(14, 2, 0.5, seed=3)
    clsolve.plan(problem, solver="mkp-bnb")
    reduced = reduce(problem).problem
    probed = probe(reduced if reduced is not None else problem, HOST_NODES)
    assert probed.walked is not None
    solution = clsolve.solve(problem, solver="mkp-bnb")
    assert solution.stats.get("host_walk") and solution.timings.host >= probed.seconds
