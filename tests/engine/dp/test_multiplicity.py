"""The multiplicity reduction (clsolve.dp.multiplicity): every count of a type is a subset of its
blocks and no subset passes it; the reduced problem has the original's optimum; expanded answers
have the reduced answers' value and weight; dp-states and bnb with and without it equal brute force
on instances full of equal items, on the device with poisoned buffers."""

import itertools

import numpy as np
import pytest
from conftest import brute_force
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import clsolve
from clsolve.dp.fixing import stages
from clsolve.dp.multiplicity import _blocks, aggregate
from clsolve.solution import Solution, Timings


@st.composite
def repetitive(draw):
    """Knapsacks drawn from a handful of (profit, weight) types, so that most items repeat."""
    n = draw(st.integers(2, 12))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    kinds = draw(st.integers(1, 4))
    profits, weights = rng.integers(1, 30, kinds), rng.integers(1, 20, kinds)
    pick = rng.integers(0, kinds, n)
    capacity = draw(st.integers(1, int(weights[pick].sum()) + 3))
    return clsolve.Knapsack(profits[pick], weights[pick], capacity)


@pytest.mark.parametrize("count", [*range(0, 40), 63, 64, 65, 1000, 2**20 - 1, 2**20])
@pytest.mark.parametrize("fitting", [0, 1, 5, 2**62])
def test_blocks_make_every_count_and_no_more(count, fitting):
    type_of, copies = _blocks(np.array([count]), np.array([fitting]))
    usable = min(count, fitting)
    assert (type_of == 0).all() and int(copies.sum()) == usable and (copies >= 1).all()
    assert copies.size <= max(usable, 1).bit_length()
    if copies.size <= 12:
        sums = {sum(c) for r in range(copies.size + 1) for c in itertools.combinations(copies.tolist(), r)}
        assert sums == set(range(usable + 1))


def test_no_equal_items_leaves_the_problem_alone():
    assert aggregate(clsolve.Knapsack([3, 4, 5], [3, 4, 6], 7)) is None


def test_types_past_the_capacity_are_cut_to_what_fits():
    problem = clsolve.Knapsack([5] * 10 + [1], [4] * 10 + [1], 13)
    merged = aggregate(problem)
    assert merged is not None
    # three copies of (5, 4) fit: blocks of 1 and 2; the lone (1, 1) stays
    assert sorted(zip(merged.problem.profits.tolist(), merged.problem.weights[:, 0].tolist())) == [(1, 1), (5, 4), (10, 8)]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=repetitive())
def test_reduced_optimum_and_expanded_answers_match(problem):
    merged = aggregate(problem)
    if merged is None:
        return
    reduced = merged.problem
    assert brute_force(reduced) == brute_force(problem)
    capacity = int(problem.capacities[0])
    for mask in range(1 << reduced.n):
        chosen = np.array([(mask >> i) & 1 for i in range(reduced.n)], dtype=bool)
        weight = int(reduced.weights[chosen, 0].sum())
        if weight > capacity:
            continue
        value = int(reduced.profits[chosen].sum())
        answer = merged.expand(
            Solution(value=value, selected=chosen, optimal=False, solver="test", device="host", timings=Timings())
        )
        assert int(problem.profits[answer.selected].sum()) == value
        assert int(problem.weights[answer.selected, 0].sum()) == weight


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=repetitive(), solver=st.sampled_from(["dp-states", "bnb"]), aggregated=st.booleans(), fixing=st.booleans())
def test_solvers_with_equal_items_match_brute_force(problem, solver, aggregated, fixing, device):
    extra = {"poison": True, "host_states": 0} if solver == "dp-states" else {"host_threshold": 0}
    solution = clsolve.solve(problem, solver=solver, device=device, aggregate=aggregated, fixing=fixing, **extra)
    assert solution.optimal and solution.value == brute_force(problem)


def test_many_copies_search_a_few_items(device):
    """10,000 items of 40 types: the search sees about 40 x log2(250) items, and the answer is right."""
    rng = np.random.default_rng(7)
    profits, weights = rng.integers(1_000, 2_000, 40), rng.integers(1_000, 2_000, 40)
    pick = rng.integers(0, 40, 10_000)
    problem = clsolve.Knapsack(profits[pick], weights[pick], int(weights[pick].sum()) // 3)
    searched = stages(problem, fixing=False).searched
    assert searched is not None and searched.n <= 40 * 9
    expected = clsolve.solve(problem, solver="dp-states", device=device, aggregate=False, strengthen=0).value
    solution = clsolve.solve(problem, solver="dp-states", device=device, poison=True)
    assert solution.optimal and solution.value == expected
    assert any(note.startswith("multiplicity:") for note in solution.notes)


@pytest.mark.parametrize("solver", ["bnb", "dp-states"])
def test_copies_that_never_fit_leave_one_item_for_the_solver(solver, device):
    """Without presolve nothing else drops items heavier than the capacity: a type keeps one block."""
    problem = clsolve.Knapsack([5, 5, 5, 9, 9], [8, 8, 8, 2, 2], 3)
    merged = aggregate(problem)
    assert merged is not None and merged.problem.n == 2
    solution = (
        clsolve.solve(problem, solver=solver, device=device, presolve=False, fixing=False)
        if solver == "bnb"
        else clsolve.solve(problem, solver=solver, device=device, fixing=False)
    )
    assert solution.optimal and solution.value == 9
