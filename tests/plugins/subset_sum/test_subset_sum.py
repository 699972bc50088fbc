"""The subset-sum solver ([Pisinger03]'s words of reachable sums): against brute force and dp-rows on
random subset-sum problems (poisoned buffers: the trace reads only entries a step wrote), weights and
capacities on and around word boundaries, the stop once the capacity is reached, and its refusals."""

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import clsolve
from clsolve.generators import pisinger

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def brute_force(weights: list[int], capacity: int) -> int:
    return max(sum(c) for k in range(len(weights) + 1) for c in itertools.combinations(weights, k) if sum(c) <= capacity)


@st.composite
def subset_sums(draw):
    n = draw(st.integers(1, 12))
    top = draw(st.sampled_from([5, 40, 100, 2000]))
    weights = draw(st.lists(st.integers(1, top), min_size=n, max_size=n))
    capacity = draw(st.integers(0, sum(weights) + 40))
    return weights, capacity


@SETTINGS
@given(case=subset_sums(), presolve=st.booleans())
def test_the_largest_reachable_sum_and_its_items(case, presolve, device):
    weights, capacity = case
    problem = clsolve.Knapsack(weights, weights, capacity)
    solution = clsolve.solve(problem, solver="subset-sum", device=device, poison=True, presolve=presolve)
    assert solution.optimal and solution.value == brute_force(weights, capacity)  # the engine checked the items


@pytest.mark.parametrize("capacity", [31, 32, 33, 63, 64, 65, 95, 1000])
def test_weights_and_capacities_on_word_boundaries(capacity, device):
    weights = [32, 64, 31, 33, 1, 96, 29, 7]
    problem = clsolve.Knapsack(weights, weights, capacity)
    solution = clsolve.solve(problem, solver="subset-sum", device=device, poison=True, presolve=False)
    assert solution.value == brute_force(weights, capacity)


def test_a_greedy_fill_of_the_capacity_needs_no_kernel(device):
    weights = [3, 7, 1, 5, 1]  # heaviest first: 7, 5, then 1 fills 13
    problem = clsolve.Knapsack(weights, weights, 13)
    assert clsolve.plan(problem, "subset-sum", device, presolve=False).launches == 0
    solution = clsolve.solve(problem, solver="subset-sum", device=device, presolve=False)
    assert solution.value == int(problem.capacities[0]) and solution.stats["items_stepped"] == 0


def test_the_steps_stop_once_the_capacity_is_reachable(device):
    """Heaviest first takes 9 and is stuck at 9 of 10; the DP reaches 10 with the first two items and
    stops at its first look (every 32 items), well before the 43rd."""
    weights = [5, 5, 6] + [9] * 40
    problem = clsolve.Knapsack(weights, weights, 10)
    solution = clsolve.solve(problem, solver="subset-sum", device=device, presolve=False, poison=True)
    assert solution.value == 10 and solution.stats["items_stepped"] == 32
    assert "the capacity was reached" in solution.notes[0]


def test_a_presolve_that_divides_the_weights_keeps_the_profits(device):
    """Weights with a common divisor 2 and an odd capacity: the core has weights w / 2 and profits w."""
    weights = [4, 6, 10, 14, 22]
    problem = clsolve.Knapsack(weights, weights, 27)
    solution = clsolve.solve(problem, solver="subset-sum", device=device, poison=True)
    assert solution.value == brute_force(weights, 27) == 26


def test_items_of_weight_zero_as_given(device):
    weights = [0, 4, 0, 7, 5]
    problem = clsolve.Knapsack(weights, weights, 11)
    solution = clsolve.solve(problem, solver="subset-sum", device=device, presolve=False, poison=True)
    assert solution.value == brute_force(weights, 11) == 11


def test_pisinger_subset_sum_family_equals_dp_rows(device):
    problem = pisinger("subset-sum", 300, 10_000, seed=2)
    expected = clsolve.solve(problem, solver="dp-rows", device=device).value
    assert clsolve.solve(problem, solver="subset-sum", device=device, poison=True).value == expected


def test_only_subset_sum_problems_are_taken():
    solver = clsolve.load_solver("subset-sum")
    assert "profits must equal weights" in solver.accepts(clsolve.Knapsack([3, 4], [2, 4], 5))
    assert "one capacity" in solver.accepts(clsolve.Knapsack([3, 4], [[3, 1], [4, 1]], [5, 5], weights_by="item"))
    assert solver.accepts(clsolve.LCS("ab", "b")) == "knapsack problems only"
    plan = clsolve.plan(clsolve.Knapsack([3, 5, 9], [3, 5, 9], 10**6), "subset-sum", presolve=False)
    assert plan.device_buffers["first"] == 4 * (10**6 + 1) and plan.kernels == ("subset_sum_step", "subset_sum_trace")
