"""mkp-batch (a work-group per problem, surrogate bounds): batches of random instances with m = 2..30
against brute force with poisoned buffers, a node budget of one to thousands per launch (the walks
resumed launch after launch); the surrogate directions; class A and MSB against other solvers; time
limits kept with bracketing answers; refusals naming the problem; solve_many's choice."""

import time

import numpy as np
import pytest
from conftest import brute_force, class_a_problems
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import hard_mkp, hard_mkp_optimum

import clsolve
from clsolve.errors import UnsupportedProblemError
from clsolve.io import formats
from clsolve.plugin import registry
from clsolve.runtime.devices import settle_left_work
from clsolve_plugins.mkp_batch import directions
from clsolve_plugins.mkp_batch.solver import PROBED

SETTINGS = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@st.composite
def small(draw, max_n=14, max_m=30):
    """An instance within mkp-batch's 32-bit limits: zero rows, dimensions that never bind, weights
    and capacities up to 2^31 - 1, zero profits."""
    n, m = draw(st.integers(1, max_n)), draw(st.integers(2, max_m))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    top = draw(st.sampled_from([2, 50, 10**6, 2**31 - 1]))
    weights = rng.integers(0, top, (n, m), endpoint=True)
    shape = draw(st.sampled_from(["random", "zero row", "loose dimension", "correlated"]))
    if shape == "zero row":
        weights[rng.integers(0, n)] = 0
    profit_top = min(top, (2**31 - 1) // n)
    profits = (
        rng.integers(0, profit_top, n, endpoint=True) if shape != "correlated" else np.minimum(weights[:, 0] // n + 1, profit_top)
    )
    capacities = np.array([draw(st.integers(0, int(min(column.sum() + 1, 2**31 - 1)))) for column in weights.T])
    if shape == "loose dimension":
        capacities[0] = min(int(weights[:, 0].sum()), 2**31 - 1)
    return clsolve.Knapsack(profits, weights, capacities, weights_by="item")


@SETTINGS
@given(
    problems=st.lists(small(), min_size=1, max_size=6),
    budget=st.sampled_from([1, 3, 16384]),
    split=st.sampled_from([0, 2, 8]),
    presolve=st.booleans(),
)
def test_random_batches_match_brute_force(problems, budget, split, presolve, device):
    """split = 0: one walk per problem, every level bounded; 8: most of these trees enumerated."""
    solutions = clsolve.solve_many(
        problems, solver="mkp-batch", device=device, budget=budget, split=split, presolve=presolve, poison=True
    )
    for problem, solution in zip(problems, solutions):
        assert solution.optimal and solution.value == brute_force(problem)


def test_walks_resume_launch_after_launch(device):
    """One node per work-item in the first launch: the tree is walked over many launches, from where
    each walk stopped, to the optimum."""
    problems = [hard_mkp(n=24, m=5, seed=s) for s in range(3)]
    solutions = clsolve.solve_many(problems, solver="mkp-batch", device=device, budget=1, poison=True)
    for problem, solution in zip(problems, solutions):
        assert solution.optimal
        assert solution.value == clsolve.solve(problem, solver="mkp-bnb").value
    assert " 1 launch(es)" not in solutions[0].notes[0]
    timings = solutions[0].timings  # the batch's phases, shared by its problems
    assert timings.upload > 0 and timings.kernels > 0 and timings.download > 0 and timings.host > 0


def test_a_time_limit_is_kept_with_an_answer_that_brackets_the_optimum(device):
    clsolve.solve_many([hard_mkp(), hard_mkp()], solver="mkp-batch", device=device, time_limit=5)  # builds the kernel
    settle_left_work()  # its first launch may still compile (PoCL): the next call would wait for it
    began = time.perf_counter()
    solutions = clsolve.solve_many([hard_mkp(), hard_mkp(n=30)], solver="mkp-batch", device=device, budget=1, time_limit=0.1)
    assert time.perf_counter() - began < 0.1 + 0.05
    first = solutions[0]
    assert first.value <= hard_mkp_optimum() <= (first.value if first.optimal else first.bound)


@pytest.mark.parametrize("m", [1, 2, 3, 5, 30])
def test_directions_lie_on_the_simplex(m):
    table = directions.of(m)
    assert (table >= 0).all() and np.allclose(table.sum(axis=1), 1.0)
    assert len(table) >= m and len(np.unique(table.round(12), axis=0)) == len(table)
    whole, rows = directions.table(5)
    assert whole.shape == (int(rows[-1]), 5) and rows[0] == 0 and (np.diff(rows) >= 1).all()


def test_refusals_name_the_problem():
    solver = registry.load("mkp-batch")
    rng = np.random.default_rng(0)
    wide = clsolve.Knapsack(rng.integers(1, 9, 300), rng.integers(1, 9, (300, 2)), [600, 600], weights_by="item")
    assert "more than 256 items" in solver.accepts(wide)
    rich = clsolve.Knapsack([2**30, 2**30, 5], [[1, 1], [1, 1], [1, 1]], [2, 2], weights_by="item")
    assert "2^31" in solver.accepts(rich)
    assert "m >= 2" in solver.accepts(clsolve.Knapsack([1, 2], [1, 1], 1))
    # past the limits as given, within them once presolve drops the 100 items heavier than a capacity
    heavy = np.vstack([rng.integers(1, 9, (200, 2)), np.full((100, 2), 700)])
    trimmed = clsolve.Knapsack(rng.integers(1, 9, 300), heavy, [600, 600], weights_by="item")
    assert solver.accepts(trimmed) is None
    assert clsolve.solve(trimmed, solver="mkp-batch").value == clsolve.solve(trimmed, solver="mkp-bnb").value
    with pytest.raises(clsolve.BatchError, match="problem 1") as raised:  # the other answer is kept
        clsolve.solve_many([hard_mkp(), rich], solver="mkp-batch")
    assert isinstance(raised.value.failures[1], UnsupportedProblemError) and raised.value.solutions[0].optimal


def test_class_a_matches_the_host_branch_and_bound(data, device):
    problems = class_a_problems(data)
    solutions = clsolve.solve_many(problems, solver="mkp-batch", device=device, poison=True)
    for problem, solution in zip(problems, solutions):
        assert solution.optimal and solution.value == clsolve.solve(problem, solver="mkp-bnb").value


def test_msb_matches_subset_enumeration(data, device):
    files = sorted((data / "2dpacklib" / "MSB-630_Unibo").glob("*.json"))[:60]
    problems = [p for f in files for p in formats.read(f)]
    ours = clsolve.solve_many(problems, solver="mkp-batch", device=device)
    theirs = clsolve.solve_many(problems, solver="dp-batch", device=device, method="enumerate")
    assert [s.value for s in ours] == [s.value for s in theirs]
    assert all(s.optimal for s in ours)


def test_solve_many_chooses_it_for_many_small_problems(device):
    """Past PROBED problems the plan counts on small trees; up to PROBED, a problem whose greedy value
    is below its root bound is left to the one-problem solvers."""
    problems = [hard_mkp(n=40, m=2, seed=s) for s in range(PROBED + 8)]
    assert {s.solver for s in clsolve.solve_many(problems, device=device)} == {"mkp-batch"}
    assert "mkp-batch" not in {s.solver for s in clsolve.solve_many(problems[:2], device=device)}
    assert clsolve.solve(problems[0], device=device).solver != "mkp-batch"
