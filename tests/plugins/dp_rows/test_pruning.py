"""dp-rows with states left out by a bound against an incumbent (``clsolve.dp.pruning``,
``dp_rows_bounded``): bit for bit against a NumPy reference of the same recurrence, and optimal against
brute force through the whole presolve (fixing by reduced costs, then the pruned DP)."""

import numpy as np
import pytest
from conftest import brute_force, efficiency_classes
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import clsolve
from clsolve.dp import presolve
from clsolve.dp.presolve import reduction
from clsolve.dp.pruning import Pruning
from clsolve.plugin import registry
from clsolve.solution import check
from clsolve_plugins.dp_rows import pruned

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _reference(problem: clsolve.Knapsack, pruning: Pruning, per_pass: int) -> tuple[int, np.ndarray]:
    """The pruned recurrence over the whole table in NumPy: the empty row kept where it passes the test
    of all the items; per pass of ``per_pass`` items, a state's
    terms that read a state the last pass did not keep are left out, the take branch wins where it is
    strictly better or the only one; a state is kept where it has a value and passes the test."""
    caps = problem.capacities
    grid = np.stack(np.meshgrid(*[np.arange(c + 1) for c in caps], indexing="ij"), -1).reshape(-1, problem.m)
    shape = tuple(int(c) + 1 for c in caps)
    values = np.zeros(len(grid), dtype=np.int64)
    kept = pruning.kept(values, grid, 0)
    table = np.zeros((problem.n, len(grid)), dtype=bool)

    def shifted(array: np.ndarray, weight: np.ndarray, fill) -> tuple[np.ndarray, np.ndarray]:
        """array at c - w (``fill`` where it does not fit) and where it fits."""
        fits = (grid >= weight).all(axis=1)
        source = np.ravel_multi_index(tuple(np.maximum(grid - weight, 0).T), shape)
        return np.where(fits, array[source], fill), fits

    def item(vals, has, j):
        """One item: the values and presence after it, and its decision bits."""
        take, fits = shifted(vals, problem.weights[j], 0)
        take_has, _ = shifted(has, problem.weights[j], False)
        take_has &= fits
        chosen = take_has & (~has | (take + problem.profits[j] > vals))
        return np.where(chosen, take + problem.profits[j], vals), has | take_has, chosen

    for first in range(0, problem.n, per_pass):
        vals, has = np.where(kept, values, 0), kept.copy()
        end = min(first + per_pass, problem.n)
        for j in range(first, end):
            vals, has, table[j] = item(vals, has, j)
        kept = has & pruning.kept(vals, grid, end)
        values = np.where(kept, vals, values)
    return (int(values[-1]) if kept[-1] else 0), table


@pytest.mark.parametrize("seed, m, per_pass", [(7, 2, 2), (7, 2, 1), (8, 2, 2), (3, 3, 2), (5, 3, 1)])
def test_pruned_decision_table_matches_the_reference_bit_for_bit(seed, m, per_pass, device, monkeypatch):
    """The reduced core of a miniature a33, its decision table and value with pruning: equal to the
    NumPy reference, on poisoned buffers; some states are left out and some kept."""
    monkeypatch.setattr(presolve, "LARGE_TABLE_UPDATES", 0)
    monkeypatch.setattr(pruned, "PRUNED_UPDATES", {"gpu": 0, "other": 0})
    problem = efficiency_classes(seed, m=m)
    pruning = reduction(problem, fixing=True).pruning()
    assert pruning is not None
    core = pruning.problem
    solver = registry.load("dp-rows", poison=True, items_per_launch=per_pass)
    value, table = solver.decisions(core, device, pruning)
    expected_value, expected = _reference(core, pruning, per_pass)
    assert value == expected_value
    assert np.array_equal(table, expected)


def test_pruning_leaves_states_out_and_keeps_the_optimum(device, monkeypatch):
    """On the miniature whose core holds a better solution than the incumbent, the pruned DP finds
    that optimum while its test fails most states (counted by the reference)."""
    monkeypatch.setattr(presolve, "LARGE_TABLE_UPDATES", 0)
    monkeypatch.setattr(pruned, "PRUNED_UPDATES", {"gpu": 0, "other": 0})
    problem = efficiency_classes(7)
    reduced = reduction(problem, fixing=True)
    pruning = reduced.pruning()
    optimum = clsolve.solve(problem, solver="sequential").value
    assert optimum > reduced.floor[0]
    value, _ = _reference(pruning.problem, pruning, 2)
    assert value + reduced.forced_profit == optimum
    solution = clsolve.solve(problem, solver="dp-rows", device=device, poison=True, chain=1)
    plan = clsolve.plan(problem, "dp-rows", device, chain=1)
    assert plan.details["pruning"] and solution.value == optimum and solution.stats["pruning"]
    unpruned = clsolve.solve(problem, solver="dp-rows", device=device, pruning=False)
    assert unpruned.value == optimum


@pytest.mark.parametrize("prices", [None, (1.7, 2.3), (0.0, 9.0)])
def test_a_state_the_test_fails_cannot_lead_past_the_floor(prices):
    """Brute force on both sides of a state: the best of the items before it in its capacity, plus the
    best of the items after it in what is left, is at most the floor wherever the test fails it."""
    from clsolve.mkp.fixing import fix

    problem = efficiency_classes(11, n=10)
    optimum = brute_force(problem)
    y = fix(problem).prices if prices is None else np.array(prices)
    pruning = Pruning(problem, y, optimum - 30)
    rng, failed = np.random.default_rng(0), 0

    def best(first: int, last: int, capacities: np.ndarray) -> int:
        if first == last:
            return 0
        return brute_force(
            clsolve.Knapsack(problem.profits[first:last], problem.weights[first:last], capacities, weights_by="item")
        )

    for _ in range(300):
        end = int(rng.integers(0, problem.n + 1))
        c = rng.integers(0, problem.capacities + 1)
        f = best(0, end, c)
        if not pruning.kept(np.array([f]), c[None, :], end)[0]:
            failed += 1
            assert f + best(end, problem.n, problem.capacities - c) <= pruning.floor
    assert failed > 0


def test_pruning_is_planned_only_where_it_applies(device, monkeypatch):
    monkeypatch.setattr(presolve, "LARGE_TABLE_UPDATES", 0)
    monkeypatch.setattr(pruned, "PRUNED_UPDATES", {"gpu": 0, "other": 0})
    problem = efficiency_classes(7)
    assert clsolve.plan(problem, "dp-rows", device, chain=1).details["pruning"]
    default = clsolve.plan(problem, "dp-rows", device).details  # a GPU chains this short row's passes
    assert default["pruning"] == (default["chain"] == 1)
    for options in ({"pruning": False}, {"fixing": False}, {"items_per_launch": 3}, {"chain": 4}, {"presolve": False}):
        assert not clsolve.plan(problem, "dp-rows", device, **options).details.get("pruning"), options
    one = clsolve.Knapsack([3, 4], [3, 5], [6])  # m = 1: no fixing by reduced costs, no pruning
    assert not clsolve.plan(one, "dp-rows", device).details.get("pruning")
    for prices in ([1.0, -1.0], [np.nan, 1.0], [np.inf, 0.0], [1.0]):
        with pytest.raises(ValueError, match="finite prices >= 0"):
            Pruning(problem, np.array(prices), 0)
    monkeypatch.setattr(pruned, "PRUNED_UPDATES", {"gpu": 2**40, "other": 2**40})  # too small a table to pay
    assert not clsolve.plan(problem, "dp-rows", device, chain=1).details["pruning"]


@st.composite
def efficient(draw):
    """KP2 and KP3 of up to 12 items of a few efficiencies, whose greedy incumbent is often near the
    optimum (reduced costs fix items; the pruned DP decides the rest)."""
    n, m = draw(st.integers(1, 12)), draw(st.integers(2, 3))
    weights = np.array(draw(st.lists(st.lists(st.integers(0, 15), min_size=m, max_size=m), min_size=n, max_size=n)))
    scale = np.array(draw(st.lists(st.sampled_from([1, 2, 5]), min_size=n, max_size=n)))
    noise = np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)))
    capacities = draw(st.lists(st.integers(0, 45), min_size=m, max_size=m))
    return clsolve.Knapsack(weights.sum(axis=1) * scale + noise, weights, capacities, weights_by="item")


@SETTINGS
@given(problem=efficient(), per_pass=st.sampled_from([1, 2]), store=st.sampled_from(["device", "host"]))
def test_pruned_dp_matches_brute_force(problem, per_pass, store, device, monkeypatch):
    monkeypatch.setattr(presolve, "LARGE_TABLE_UPDATES", 0)
    monkeypatch.setattr(pruned, "PRUNED_UPDATES", {"gpu": 0, "other": 0})
    solution = clsolve.solve(
        problem, solver="dp-rows", device=device, poison=True, items_per_launch=per_pass, store=store, chain=1
    )
    check(problem, solution)
    assert solution.optimal and solution.value == brute_force(problem)
