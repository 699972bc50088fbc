"""Fixing by dominance (clsolve.dp.dominance): the dominance sums against a quadratic count, the items
it fixes leave the optimum where it was (brute force), and the searches that use it stay exact."""

import numpy as np
import pytest
from conftest import brute_force
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import clsolve
from clsolve.dp import dominance
from clsolve.dp.fixing import stages

SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@st.composite
def crowded(draw, max_n=14, max_capacity=2**62):
    """Knapsacks whose items dominate one another often: few distinct weights and profits, ties."""
    n = draw(st.integers(1, max_n))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    top = draw(st.sampled_from([3, 10, 1000, 2**55]))
    weights = rng.integers(0, top, n)
    profits = weights + rng.integers(0, max(2, top // 50), n) if draw(st.booleans()) else rng.integers(0, top, n)
    capacity = draw(st.integers(0, int(weights.sum(dtype=object)) + 1))
    return clsolve.Knapsack(profits, weights, min(capacity, max_capacity))


def _quadratic(weights: np.ndarray, profits: np.ndarray) -> np.ndarray:
    n = weights.size
    order = np.lexsort((np.arange(n), -profits, weights))
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    dominates = (profits[:, None] >= profits[None, :]) & (rank[:, None] < rank[None, :])  # row j dominates k
    return (dominates * weights[:, None].astype(object)).sum(axis=0)


@SETTINGS
@given(problem=crowded(max_n=40))
def test_dominating_weights_match_the_pairs(problem):
    w, p = problem.weights[:, 0], problem.profits
    expected = _quadratic(w, p).astype(np.float64)
    assert np.allclose(dominance.dominating_weights(w, p), expected, rtol=1e-12, atol=0)


@SETTINGS
@given(problem=crowded())
def test_items_fixed_by_dominance_leave_the_optimum(problem):
    step = dominance.reduction(problem)
    if step is None:
        return
    assert step.problem is not None and 0 < step.problem.n < problem.n
    assert brute_force(step.problem) == brute_force(problem)


def test_dominance_fixes_items_of_a_jooken_style_instance():
    from clsolve.generators import jooken

    problem = jooken(400, 10**10, 10, 0.2, 1e-3, 300)
    fixed = dominance.fixed_out(problem)
    assert fixed.sum() > 0
    staged = stages(problem)
    assert staged.dominated is not None and staged.searched.n < stages(problem, dominance=False).searched.n


@SETTINGS
@given(problem=crowded(), solver=st.sampled_from(["bnb", "dp-states"]))
def test_searches_with_dominance_match_brute_force(problem, solver):
    solution = clsolve.solve(problem, solver=solver)
    assert solution.optimal and solution.value == brute_force(problem)


@pytest.fixture
def every_dense_dp(monkeypatch):
    """Fixing by dominance for dense DPs of every size (by default only for large ones)."""
    from clsolve.dp import presolve

    monkeypatch.setattr(presolve, "LARGE_TABLE_UPDATES", 0)


@SETTINGS
@given(problem=crowded(max_capacity=10**5), dominance_on=st.booleans())
def test_dense_dp_with_dominance_matches_brute_force(problem, dominance_on, device, every_dense_dp):
    solution = clsolve.solve(problem, solver="dp-rows", device=device, dominance=dominance_on, poison=True)
    assert solution.optimal and solution.value == brute_force(problem)


def test_presolve_with_dominance_composes_the_two_reductions(every_dense_dp):
    """Presolve drops a too-heavy item and takes a weightless one; dominance then fixes items of what is
    left: the composed reduction maps back to the original items, and is computed once per problem."""
    from clsolve.dp.presolve import reduction

    problem = clsolve.Knapsack([5, 9, 4, 4, 7, 3, 100], [0, 4, 5, 6, 3, 6, 50], 10)
    first, both = reduction(problem), reduction(problem, dominance=True)
    assert first.problem is not None and both.problem is not None
    assert both.problem.n < first.problem.n and set(both.items) < set(first.items)
    assert list(both.forced) == [0] and 6 not in both.items
    assert np.array_equal(both.problem.weights[:, 0], problem.weights[both.items, 0])
    assert dominance.reduction(first.problem) is dominance.reduction(first.problem)
    solution = clsolve.solve(problem, solver="dp-rows")
    assert solution.value == brute_force(problem) and "dominance" in " ".join(solution.notes)


def test_dense_dp_plans_on_the_items_dominance_leaves(device, monkeypatch):
    """A Jooken-style instance (4e8 cell updates): dp-rows plans fewer with dominance, finds the same
    optimum; a small DP is left as it is (dominance would cost more than it saves)."""
    from clsolve.generators import jooken

    problem = jooken(400, 10**6, 10, 0.2, 1e-3, 300)
    with_dominance = clsolve.plan(problem, "dp-rows", device)
    without = clsolve.plan(problem, "dp-rows", device, dominance=False)
    assert "dominance" in with_dominance.details["presolve"]
    assert with_dominance.cell_updates < without.cell_updates
    solved = clsolve.solve(problem, solver="dp-rows", device=device)
    assert solved.optimal and solved.value == clsolve.solve(problem, solver="dp-rows", device=device, dominance=False).value
    small = jooken(40, 10**4, 10, 0.2, 1e-3, 300)
    assert "presolve" not in clsolve.plan(small, "dp-rows", device).details
    from clsolve.dp import presolve

    monkeypatch.setattr(presolve, "LARGE_TABLE_UPDATES", 0)
    assert "dominance" in clsolve.plan(jooken(40, 10**4, 10, 0.2, 1e-3, 300), "dp-rows", device).details["presolve"]


@SETTINGS
@given(problem=crowded(max_n=40, max_capacity=2**20))
def test_a_least_time_before_dominance_is_at_most_the_one_after(problem):
    """``presolve.least`` before fixing by dominance has run counts the items no other dominates; after,
    the items it keeps: never more (a least time must stay a lower bound of the plan)."""
    from clsolve.dp import presolve
    from clsolve.dp.table import reachable_floors

    def bits(reduced):
        return float(reduced.n * reduced.cells() - int(reachable_floors(reduced).sum()))

    big = presolve.LARGE_TABLE_UPDATES
    try:
        presolve.LARGE_TABLE_UPDATES = 0
        before = presolve.least(problem, True, bits, dominance=True, heavy_first=True)
        presolve.reduction(problem, True, dominance=True, heavy_first=True)  # the fixing runs: ``least`` now reads it
        after = presolve.least(problem, True, bits, dominance=True, heavy_first=True)
    finally:
        presolve.LARGE_TABLE_UPDATES = big
    assert before <= after
    left = presolve.reduce(problem).problem
    if left is not None and left.n > 1:
        kept = dominance.undominated(left)
        assert not (dominance.fixed_out(left) & kept).any()
