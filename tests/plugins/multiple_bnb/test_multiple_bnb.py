"""The multiple knapsack's branch and bound (``multiple-bnb``): against brute force over every
assignment of items to knapsacks, the root's surrogate bound and split (where the split holds every
item the surrogate packs, the answer is proved without a node), and its anytime answers."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import clsolve
from clsolve.family.generators import multiple


def brute_force(problem: clsolve.MultipleKnapsack) -> int:
    best = 0
    for assignment in itertools.product(range(-1, problem.k), repeat=problem.n):
        loads = [0] * problem.k
        for j, at in enumerate(assignment):
            if at >= 0:
                loads[at] += int(problem.weights[j])
        if all(load <= int(c) for load, c in zip(loads, problem.capacities)):
            best = max(best, sum(int(problem.profits[j]) for j, at in enumerate(assignment) if at >= 0))
    return best


@st.composite
def multiples(draw):
    n, k = draw(st.integers(1, 6)), draw(st.integers(1, 3))
    weights = draw(st.lists(st.integers(0, 20), min_size=n, max_size=n))
    profits = draw(st.lists(st.integers(0, 30), min_size=n, max_size=n))
    capacities = draw(st.lists(st.integers(0, 30), min_size=k, max_size=k))
    return clsolve.MultipleKnapsack(profits, weights, capacities)


@settings(max_examples=60, deadline=None)
@given(problem=multiples())
def test_against_brute_force(problem):
    solution = clsolve.solve(problem, solver="multiple-bnb")
    assert solution.optimal and solution.value == brute_force(problem)


@settings(max_examples=60, deadline=None)
@given(problem=multiples())
def test_subset_sums_against_brute_force(problem):
    """Profits equal to weights: the root's 0-1 knapsacks go through the subset sums' window and bits."""
    problem = clsolve.MultipleKnapsack(problem.weights, problem.weights, problem.capacities)
    solution = clsolve.solve(problem, solver="multiple-bnb")
    assert solution.optimal and solution.value == brute_force(problem)


@settings(max_examples=100, deadline=None)
@given(
    weights=st.lists(st.integers(1, 40), min_size=1, max_size=30),
    share=st.floats(0, 1.1),
    half=st.integers(1, 6),
)
def test_a_subset_sums_window_fills_the_capacity_exactly_or_gives_way(weights, share, half):
    from clsolve_plugins.multiple_bnb.surrogate import closest, dense, windowed

    w = np.array(weights, dtype=np.int64)
    capacity = int(share * int(w.sum()))
    best = int(w[closest(weights, capacity)].sum()) if weights else 0
    if len(weights) <= 12:
        sums = (sum(c) for r in range(len(weights) + 1) for c in itertools.combinations(weights, r))
        assert best == max(total for total in sums if total <= capacity)
    chosen = windowed(w, capacity, half)
    if chosen is not None:
        assert int(w[chosen].sum()) == capacity == best
    value, flags = dense(w, w, capacity, lambda: False)
    assert value == best == int(w[flags].sum())


@settings(max_examples=80, deadline=None)
@given(problem=multiples())
def test_the_nested_bound_lies_between_the_optimum_and_the_surrogate(problem):
    from clsolve_plugins.multiple_bnb.nested import nested_bound
    from clsolve_plugins.multiple_bnb.surrogate import dense

    capacities = problem.capacities.tolist()
    bound = nested_bound(problem.profits, problem.weights, capacities, lambda: False)
    surrogate = dense(problem.profits, problem.weights, sum(capacities), lambda: False)
    assert surrogate is not None and brute_force(problem) <= bound <= surrogate[0]


def test_the_nested_bound_narrows_dissimilar_capacities():
    """k = 50 dissimilar capacities (half of them below 100): the surrogate pools capacity the small
    knapsacks cannot give the heavy items; the nested bound does not, and the answer's gap shrinks."""
    from clsolve_plugins.multiple_bnb.nested import nested_bound
    from clsolve_plugins.multiple_bnb.surrogate import surrogate

    problem = multiple("strongly", 400, 30, 1000, similar=False, seed=1)
    capacities = problem.capacities.tolist()
    pooled = surrogate(problem.profits, problem.weights, min(sum(capacities), int(problem.weights.sum())), lambda: False)
    nested = nested_bound(problem.profits, problem.weights, capacities, lambda: False)
    assert pooled is not None and nested < pooled[0]
    solution = clsolve.solve(problem, solver="multiple-bnb", time_limit=0.5)
    assert solution.optimal or solution.bound <= nested


def test_the_root_split_proves_most_random_instances():
    problem = multiple("uncorrelated", 200, 10, 1000, similar=False, seed=1)
    solution = clsolve.solve(problem, solver="multiple-bnb")
    assert solution.optimal and solution.stats["nodes"] == 0


@pytest.mark.parametrize(
    "family, n, k", [("strongly", 200, 10), ("subset-sum", 50, 5), ("subset-sum", 1000, 50), ("strongly", 1000, 50)]
)
def test_fill_in_turn_meets_the_surrogate_bound_with_similar_capacities(family, n, k):
    """MTM's hard cases (similar capacities): the split of the surrogate's items leaves gaps up to
    1e-2 of the value, the knapsacks filled in turn by their 0-1 optima meet the bound at the root."""
    problem = multiple(family, n, k, 1000, similar=True, seed=1)
    solution = clsolve.solve(problem, solver="multiple-bnb")
    assert solution.optimal and solution.stats["nodes"] == 0


@pytest.mark.parametrize("limit", [0.0, 0.2])
def test_under_a_time_limit_it_answers_with_a_bound(limit):
    problem = multiple("uncorrelated", 1000, 50, 1000, similar=False, seed=1)  # not proved in 10 s
    solution = clsolve.solve(problem, solver="multiple-bnb", time_limit=limit)
    assert solution.bound is not None and solution.value < solution.bound
    assert not solution.optimal and "stopped at the time limit" in solution.notes[0]
