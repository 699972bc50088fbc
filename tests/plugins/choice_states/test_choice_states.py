"""The multiple-choice state lists (``choice-states``): against brute force on random problems (one
item per class and at most one), against the dense DP on Pisinger's families, its anytime answers
(under a time limit of 0 and a state limit: the incumbent with a bound that brackets the optimum),
problems where no choice fits, the Lagrangian multiplier against its definition, the excess bound
against brute force, and the exchanges of steps between classes."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import clsolve
from clsolve.family.generators import CHOICE_FAMILIES, choice
from clsolve_plugins.choice_states.excess import excess_bound
from clsolve_plugins.choice_states.lagrange import lagrange
from clsolve_plugins.choice_states.solver import Search
from clsolve_plugins.choice_states.swaps import exchange, improve
from tests.plugins.choice_dp.test_choice_dp import brute_force, choices

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@SETTINGS
@given(problem=choices())
def test_against_brute_force(problem):
    expected = brute_force(problem)
    solution = clsolve.solve(problem, solver="choice-states")
    if expected is None:
        assert not solution.feasible
    else:
        assert solution.feasible and solution.optimal and solution.value == expected


@pytest.mark.parametrize("family", CHOICE_FAMILIES)
def test_the_families_against_the_dense_dp(family, device):
    problem = choice(family, 30, 15, 1000, seed=5)
    states = clsolve.solve(problem, solver="choice-states")
    assert states.optimal and states.value == clsolve.solve(problem, solver="choice-dp", device=device).value


@pytest.mark.parametrize("options", [{"time_limit": 0}, {"max_states": 50}])
def test_stopped_early_it_answers_with_a_bound(options, device):
    problem = choice("strongly", 40, 20, 1000, seed=2)
    optimum = clsolve.solve(problem, solver="choice-dp", device=device).value
    solution = clsolve.solve(problem, solver="choice-states", **options)
    assert solution.value <= optimum <= solution.bound
    assert not solution.optimal and "stopped at" in solution.notes[0]


@pytest.mark.parametrize("at_most_one", [False, True])
def test_swaps_keep_answers_feasible_and_fill_subset_sums(at_most_one):
    """Swaps within classes never exceed the capacity nor lose profit; on a subset-sum family with
    many classes they fill the room the Lagrangian rounding leaves, so the search ends at once."""
    problem = choice("subset-sum", 2000, 10, 10_000, seed=3)
    if at_most_one:
        problem = clsolve.MultipleChoice(problem.profits, problem.weights, problem.capacity, problem.classes, at_most_one=True)
    search = Search(problem)
    start = np.empty(search.order.size, dtype=np.int64)
    start[search.order] = search.best_items
    swapped = improve(search.weights, search.profits, search.starts, start, problem.capacity)
    assert int(search.weights[swapped].sum()) <= problem.capacity
    assert int(search.profits[swapped].sum()) >= int(search.profits[start].sum())
    owner = np.searchsorted(search.starts, swapped, side="right") - 1
    assert (owner == np.arange(search.starts.size)).all()  # still one item (or the skip) per class
    solution = clsolve.solve(problem, solver="choice-states")
    assert solution.optimal and solution.value == problem.capacity and solution.stats["levels"] <= 1


def test_when_no_choice_fits():
    solution = clsolve.solve(clsolve.MultipleChoice([5, 6, 7], [4, 6, 5], 8, [0, 1, 1]), solver="choice-states")
    assert not solution.feasible


def test_the_multiplier_minimizes_the_bound():
    problem = choice("weakly", 25, 8, 500, seed=1)
    profits, weights = problem.profits.astype(float), problem.weights.astype(float)
    starts = np.arange(0, problem.n, 8)

    def bound(lam: float) -> float:
        return lam * problem.capacity + np.maximum.reduceat(profits - lam * weights, starts).sum()

    found = lagrange(problem.profits, problem.weights, starts, problem.capacity)
    assert all(bound(found.multiplier) <= bound(lam) + 1e-6 for lam in np.linspace(0, 3, 301))
    assert problem.weights[found.rounded].sum() <= problem.capacity


@SETTINGS
@given(problem=choices())
def test_the_excess_bound_is_at_least_the_optimum(problem):
    """Profits below, at and above the weights (negative excesses too), one per class and at most one."""
    stepped = clsolve.MultipleChoice(
        problem.weights + 3 * (problem.profits % 4),
        problem.weights,
        problem.capacity,
        problem.classes,
        at_most_one=problem.at_most_one,
    )  # excesses of 0, 3, 6, 9: a common divisor of 3
    for case in (problem, stepped):
        expected = brute_force(case)
        if expected is None:
            continue
        search = Search(case)
        bound = excess_bound(search.profits, search.weights, search.starts, case.capacity)
        assert (bound is None or bound >= expected) and search.upper >= expected
        if case is stepped and (search.profits != search.weights).any():
            assert bound is not None  # a common divisor of 3 or more
        solution = clsolve.solve(case, solver="choice-states")
        assert solution.optimal and solution.value == expected


def test_the_excess_bound_proves_the_strongly_correlated_family_at_the_root(device):
    """[Pisinger95]'s strongly correlated classes (excess 10 j): the profits' Lagrangian bound stays a
    few units above the optimum; the excess bound C + 10 N is met by the exchanges' answer."""
    problem = choice("strongly", 300, 60, 1000, seed=4)
    search = Search(problem)
    lp = search.lag.multiplier * problem.capacity + float(search.lag.best.sum())
    assert search.upper < int(lp)
    solution = clsolve.solve(problem, solver="choice-states")
    assert solution.optimal and solution.stats["levels"] == 0 and solution.value == search.upper
    small = choice("strongly", 12, 10, 300, seed=4)
    assert clsolve.solve(small, solver="choice-states").value == clsolve.solve(small, solver="choice-dp", device=device).value


@pytest.mark.parametrize("family", CHOICE_FAMILIES)
@pytest.mark.parametrize("at_most_one", [False, True])
def test_exchanges_keep_answers_feasible_and_never_lose(family, at_most_one):
    problem = choice(family, 400, 12, 1000, seed=7)
    if at_most_one:
        problem = clsolve.MultipleChoice(problem.profits, problem.weights, problem.capacity, problem.classes, at_most_one=True)
    search = Search(problem)
    start = np.empty(search.order.size, dtype=np.int64)
    start[search.order] = search.lag.rounded[search.order]
    moved = exchange(search.weights, search.profits, search.starts, start, problem.capacity)
    assert int(search.weights[moved].sum()) <= problem.capacity
    assert int(search.profits[moved].sum()) >= int(search.profits[start].sum())
    owner = np.searchsorted(search.starts, moved, side="right") - 1
    assert (owner == np.arange(search.starts.size)).all()
