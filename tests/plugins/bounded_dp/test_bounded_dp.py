"""The bounded dense DP (``bounded-dp``: [vHGW92] windows per residue class, or binary pieces) against
brute force on random bounded, unbounded and change-making problems, both methods and the cost
model's mix, poisoned buffers (the walk reads only decisions a step wrote), the three decision widths,
items of weight 0, dominated items, change that cannot be made, and its refusals."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import clsolve
from clsolve.family.generators import change
from clsolve_plugins.bounded_dp.change import NODE_BUDGET, Search
from tests.strategies import family_brute_force

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@st.composite
def families(draw, exact: bool = False):
    n = draw(st.integers(1, 4))
    weights = draw(st.lists(st.integers(0 if not exact else 1, 12), min_size=n, max_size=n))
    profits = draw(st.lists(st.integers(0, 30), min_size=n, max_size=n))
    limited = draw(st.booleans())
    counts = draw(st.lists(st.integers(0, 5), min_size=n, max_size=n)) if limited else None
    capacity = draw(st.integers(0, 45))
    if not limited and not exact:
        profits = [p if w > 0 else 0 for p, w in zip(profits, weights)]  # else no optimum
    return weights, profits, counts, capacity


def _most(weights, counts, capacity):
    return [
        (c if c is not None else capacity // w if w else 0) if w else (c or 0)
        for w, c in zip(weights, counts or [None] * len(weights))
    ]


@SETTINGS
@given(case=families(), method=st.sampled_from(["auto", "window", "pieces"]))
def test_bounded_and_unbounded_knapsacks_against_brute_force(case, method, device):
    weights, profits, counts, capacity = case
    problem = clsolve.BoundedKnapsack(profits, weights, capacity, counts)
    most = [min(m, capacity // w) if w else m for m, w in zip(_most(weights, counts, capacity), weights)]
    solution = clsolve.solve(problem, solver="bounded-dp", device=device, method=method, poison=True)
    assert solution.optimal and solution.value == family_brute_force(weights, profits, most, capacity, False)


@SETTINGS
@given(case=families(exact=True), method=st.sampled_from(["auto", "window", "pieces"]), search=st.booleans())
def test_change_making_against_brute_force(case, method, search, device):
    """The host search (where it ends) or the DP, and sequential's DP, against brute force."""
    weights, _, counts, capacity = case
    problem = clsolve.ChangeMaking(weights, capacity, counts)
    most = [min(m, capacity // w) for m, w in zip(_most(weights, counts, capacity), weights)]
    expected = family_brute_force(weights, [0] * len(weights), most, capacity, True)
    for solver in ("bounded-dp", "sequential"):
        options = {"method": method, "poison": True, "search": search} if solver == "bounded-dp" else {}
        solution = clsolve.solve(problem, solver=solver, device=device, **options)
        if expected is None:
            assert not solution.feasible and solution.counts is None
        else:
            assert solution.feasible and solution.value == expected


@pytest.mark.parametrize("count", [200, 300, 70_000])
def test_each_decision_width(count, device):
    """Counts below 2^8, 2^16 and beyond keep their k in 8, 16 and 32 bits; a count of 300 with weight
    1 and capacity 299 uses all 299 (the window's whole chain)."""
    problem = clsolve.BoundedKnapsack([3, 5], [1, 2], 299 if count == 300 else count + 17, [count, 4])
    solution = clsolve.solve(problem, solver="bounded-dp", device=device, method="window", poison=True)
    reference = clsolve.solve(problem, solver="dp-states", device=device)
    assert solution.value == reference.value


def test_items_of_weight_zero_are_taken_whole(device):
    problem = clsolve.BoundedKnapsack([4, 9, 5], [0, 3, 0], 7, [3, 5, 2])
    solution = clsolve.solve(problem, solver="bounded-dp", device=device)
    assert solution.counts.tolist() == [3, 2, 2] and solution.value == 12 + 18 + 10


def test_dominated_items_take_no_step(device):
    """Item 1 (weight 6, profit 5) is dominated by two copies of item 0 (weight 3, profit 3), item 2 by
    item 0 alone: the unbounded knapsack steps item 0 only."""
    problem = clsolve.BoundedKnapsack([3, 5, 2], [3, 6, 4], 20)
    plan = clsolve.plan(problem, "bounded-dp", device)
    assert plan.details["steps"] == 1
    assert clsolve.solve(problem, solver="bounded-dp", device=device).value == 18


def test_a_large_capacity_against_the_state_lists(device):
    problem = clsolve.family.generators.bounded("strongly", 30, 1000, 10, seed=4)
    dense = clsolve.solve(problem, solver="bounded-dp", device=device, poison=True)
    states = clsolve.solve(problem, solver="dp-states", device=device)
    assert dense.value == states.value and dense.optimal and states.optimal


@pytest.mark.parametrize("search", [True, False])
def test_change_that_cannot_be_made(search, device):
    problem = clsolve.ChangeMaking([6, 10, 15], 29, [5, 5, 5])
    solution = clsolve.solve(problem, solver="bounded-dp", device=device, search=search)
    assert not solution.feasible and solution.to_dict(problem)["feasible"] is False
    assert ("host search" in solution.notes[-1]) == search


@pytest.mark.parametrize("most", [None, 10])
def test_the_search_settles_random_change_making_and_matches_the_dp(most, device):
    """Coin values in U[1, 1e4]: the host search ends within its budget without a kernel, with the
    DP's number of coins; where its budget runs out, the DP answers."""
    problem = change(300, 10_000, most, seed=4)
    searched = clsolve.solve(problem, solver="bounded-dp", device=device)
    assert searched.stats["search_nodes"] <= NODE_BUDGET and searched.stats["steps"] == 0
    dense = clsolve.solve(problem, solver="bounded-dp", device=device, search=False, poison=True)
    assert searched.value == dense.value and dense.stats["steps"] > 0
    unreachable = Search([15, 10, 6], [1000, 1000, 1000], 31_000 - 1)  # every coin but a sum of 1: none
    assert not unreachable.run(100) and unreachable.taken is None


def test_refusals(device):
    rich = clsolve.BoundedKnapsack([2**59, 1], [1, 1], 3, [2, 1])
    with pytest.raises(clsolve.UnsupportedProblemError, match="2\\^60"):
        clsolve.solve(rich, solver="bounded-dp", device=device)
    huge = clsolve.BoundedKnapsack([1, 2], [1, 3], 2**38, [2**31, 2**31])
    with pytest.raises(clsolve.DoesNotFitError, match="needs .* of device memory"):
        clsolve.plan(huge, "bounded-dp", device)
    with pytest.raises(clsolve.UnsupportedProblemError, match="bounded and unbounded"):
        clsolve.solve(clsolve.Knapsack([1], [1], 1), solver="bounded-dp", device=device)
