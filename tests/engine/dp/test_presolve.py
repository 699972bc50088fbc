"""The exact reductions of clsolve.dp.presolve: each rule alone, and random problems built to trigger
them, solved through the reduction and expanded back, against brute force on the original."""

import numpy as np
import pytest
from conftest import brute_force, efficiency_classes
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import clsolve
from clsolve.dp.presolve import reduce, reduction
from clsolve.solution import check

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def test_identical_dimensions_become_one():
    problem = clsolve.Knapsack([5, 6, 7], [[3, 3], [4, 4], [5, 5]], [8, 8])
    r = reduce(problem)
    assert r.problem.m == 1 and r.problem.capacities.tolist() == [8] and "dimension 1 implied" in r.notes[0]


def test_implied_dimension_needs_smaller_weights_and_larger_capacity():
    implied = clsolve.Knapsack([5, 6, 7], [[3, 2], [4, 4], [5, 3]], [8, 8])
    assert reduce(implied).problem.m == 1
    not_implied = clsolve.Knapsack([5, 6, 7], [[3, 2], [4, 4], [5, 3]], [8, 7])  # capacity 7 < 8
    assert reduce(not_implied).problem is not_implied


def test_heavy_items_loose_dimensions_zero_items_and_divisors(device):
    problem = clsolve.Knapsack([1, 2, 3, 4, 9], [[30, 1], [20, 5], [40, 0], [99, 2], [0, 0]], [70, 6])
    r = reduce(problem)
    # item 3 (99 > 70) dropped; dimension 1 totals 1 + 5 + 0 + 0 = 6 <= 6: never binds; item 4 weighs
    # nothing: always taken; dimension 0 weights 30, 20, 40 share the divisor 10: capacity 70 -> 7
    assert r.items.tolist() == [0, 1, 2] and r.forced.tolist() == [4]
    assert r.problem.weights.ravel().tolist() == [3, 2, 4] and r.problem.capacities.tolist() == [7]
    solution = clsolve.solve(problem, solver="dp-rows", device=device)
    assert solution.value == brute_force(problem) == 14 and solution.items.tolist() == [1, 2, 4]
    assert any(note.startswith("presolve:") for note in solution.notes)


def test_nothing_left_to_decide(device):
    problem = clsolve.Knapsack([4, 5, 6], [[1, 9], [2, 1], [3, 2]], [6, 12])  # everything fits
    r = reduce(problem)
    assert r.problem is None
    solution = r.trivial("dp-rows", "x")
    check(problem, solution)
    assert solution.value == 15 and solution.selected.all()
    assert clsolve.solve_many([problem, problem], solver="dp-batch", device=device)[1].value == 15


def test_unchanged_problem_is_the_same_object_and_disabled_presolve_is_identity():
    problem = clsolve.Knapsack([5, 6, 7], [3, 4, 5], 8)
    assert reduce(problem).problem is problem and not reduce(problem).changed
    spread = clsolve.Knapsack([5, 6, 7], [30, 40, 50], 80)
    assert reduce(spread).changed and not reduction(spread, enabled=False).changed


@st.composite
def reducible(draw):
    """Knapsacks with copied or scaled-down dimensions, common divisors, zero and heavy items."""
    n = draw(st.integers(1, 11))
    base = draw(st.lists(st.integers(0, 12), min_size=n, max_size=n))
    scale = draw(st.sampled_from([1, 2, 3, 7]))
    columns = [[w * scale for w in base]]
    capacities = [draw(st.integers(0, 40)) * scale + draw(st.integers(0, scale - 1))]
    for _ in range(draw(st.integers(0, 2))):
        kind = draw(st.sampled_from(["copy", "smaller", "free", "loose"]))
        if kind == "copy":
            columns.append(list(columns[0]))
            capacities.append(capacities[0] + draw(st.integers(0, 3)))
        elif kind == "smaller":
            columns.append([max(0, w - draw(st.integers(0, 3))) for w in columns[0]])
            capacities.append(capacities[0] + draw(st.integers(-2, 2)) if capacities[0] >= 2 else capacities[0])
        elif kind == "free":
            columns.append(draw(st.lists(st.integers(0, 15), min_size=n, max_size=n)))
            capacities.append(draw(st.integers(0, 40)))
        else:
            columns.append(draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)))
            capacities.append(2 * n + 1)
    weights = np.array(columns, dtype=np.int64).T
    profits = draw(st.lists(st.integers(0, 50), min_size=n, max_size=n))
    return clsolve.Knapsack(profits, weights, capacities, weights_by="item")


@SETTINGS
@given(problem=reducible())
def test_reduced_then_expanded_is_optimal_for_the_original(problem, device):
    r = reduce(problem)
    expected = brute_force(problem)
    if r.problem is None:
        solution = r.trivial("test", "none")
    else:
        assert r.problem.m <= problem.m and r.problem.n <= problem.n
        assert r.problem.cells() <= problem.cells()
        inner = clsolve.solve(r.problem, solver="sequential")
        solution = r.expand(inner)
    check(problem, solution)
    assert solution.value == expected
    for solver in ("dp-rows", "dp-batch"):
        assert clsolve.solve(problem, solver=solver, device=device).value == expected


@SETTINGS
@given(problems=st.lists(reducible(), min_size=1, max_size=8), data=st.data())
def test_packed_reduction_equals_the_reduction_of_each_problem(problems, data):
    """reduce_packed over a batch (mixed m, some rows items-only) gives, row by row, the reduced
    problem, forced items and note of reduce_many, and expands answers the same way."""
    from clsolve.batch.packed import PackedProblems
    from clsolve.dp.presolve import reduce_many, reduce_packed

    only = data.draw(st.lists(st.booleans(), min_size=len(problems), max_size=len(problems)))
    fresh = [clsolve.Knapsack(p.profits, p.weights, p.capacities, weights_by="item") for p in problems]  # no cached reductions
    expected = reduce_many(fresh, items_only=only)
    packed = PackedProblems.pack(problems)
    got = reduce_packed(packed, np.array(only))
    reduced = got.reduced
    rows = reduced.positions.tolist()
    assert rows == [k for k, r in enumerate(expected) if r.problem is not None]
    for k in rows:
        mine = reduced.unpack_one(k)
        theirs = expected[k].problem
        assert mine.profits.tolist() == theirs.profits.tolist()
        assert mine.weights.tolist() == theirs.weights.tolist()
        assert mine.capacities.tolist() == theirs.capacities.tolist()
    for k, r in enumerate(expected):
        a, b = packed.item_offsets[k], packed.item_offsets[k + 1]
        assert np.flatnonzero(got.forced[a:b]).tolist() == r.forced.tolist()
        note = got.notes[got.note_index[k]] if got.note_index[k] >= 0 else None
        assert note == ("presolve: " + "; ".join(r.notes) if r.changed else None)
    # expanding "take every reduced item" matches Reduction.expand
    values, selected = got.expand(
        np.add.reduceat(reduced.profits, reduced.item_offsets[:-1]) if len(reduced) else np.zeros(0, np.int64),
        np.ones(reduced.profits.size, dtype=bool),
    )
    for k, r in enumerate(expected):
        everything = clsolve.Solution(
            int(r.problem.profits.sum()) if r.problem is not None else 0,
            np.ones(r.problem.n if r.problem is not None else 0, dtype=bool),
            True,
            "t",
            "t",
        )
        want = r.expand(everything) if r.problem is not None else r.trivial("t", "t")
        a, b = packed.item_offsets[k], packed.item_offsets[k + 1]
        assert int(values[k]) == int(want.value) and selected[a:b].tolist() == want.selected.tolist()


def test_packed_rows_are_views_equal_to_taking_them():
    from clsolve.batch.packed import PackedProblems

    rng = np.random.default_rng(2)
    problems = [
        clsolve.Knapsack(
            rng.integers(0, 9, n), rng.integers(0, 9, (n, m)), rng.integers(5, 20, m), name=f"p{k}", weights_by="item"
        )
        for k, (n, m) in enumerate(zip(rng.integers(1, 6, 9), rng.integers(1, 4, 9)))
    ]
    packed = PackedProblems.pack(problems)
    for first, stop in ((0, 9), (2, 5), (8, 9), (0, 1)):
        view, taken = packed.rows(first, stop), packed.take(np.arange(first, stop))
        assert np.shares_memory(view.weights, packed.weights)
        for name in ("positions", "item_offsets", "capacity_offsets", "profits", "weights", "capacities", "known_optima"):
            assert getattr(view, name).tolist() == getattr(taken, name).tolist(), name
        assert view.names == taken.names == [p.name for p in problems[first:stop]]
        assert [q.weights.tolist() for q in view.unpack()] == [p.weights.tolist() for p in problems[first:stop]]


@SETTINGS
@given(problem=reducible(), dominance=st.booleans())
def test_heavy_first_and_dominance_for_a_dense_dp_match_brute_force(problem, dominance, device, monkeypatch):
    """dp-rows' large-table steps (fixing by dominance, the items heaviest first) on every size: the
    answer maps back to the original items."""
    from clsolve.dp import presolve

    monkeypatch.setattr(presolve, "LARGE_TABLE_UPDATES", 0)
    solution = clsolve.solve(problem, solver="dp-rows", device=device, poison=True, dominance=dominance)
    check(problem, solution)
    assert solution.optimal and solution.value == brute_force(problem)


def test_heavy_first_gives_a_shuffled_instance_the_same_table(device):
    """A Jooken-style instance and its items shuffled: the same planned cell updates, well under the
    full table (passes launched one by one: chained passes sweep whole rows), and the same optimum."""
    from clsolve.generators import jooken

    problem = jooken(400, 10**6, 10, 0.2, 1e-3, 300)
    order = np.random.default_rng(0).permutation(problem.n)
    shuffled = clsolve.Knapsack(problem.profits[order], problem.weights[order], problem.capacities)
    plans = [clsolve.plan(p, "dp-rows", device, dominance=False, chain=1) for p in (problem, shuffled)]
    assert plans[0].cell_updates == plans[1].cell_updates < 0.7 * problem.n * problem.cells()
    assert "heaviest first" in plans[1].details["presolve"]
    assert clsolve.solve(shuffled, solver="dp-rows", device=device).value == clsolve.solve(problem, solver="sequential").value


@st.composite
def multidimensional(draw):
    """KP2 and KP3 of up to 11 items whose greedy incumbent is often optimal or near it (profits
    close to the weights' sum), so that reduced costs fix items, and sometimes all of them."""
    n, m = draw(st.integers(1, 11)), draw(st.integers(2, 3))
    weights = np.array(draw(st.lists(st.lists(st.integers(0, 12), min_size=m, max_size=m), min_size=n, max_size=n)))
    noise = np.array(draw(st.lists(st.integers(0, draw(st.sampled_from([0, 2, 30]))), min_size=n, max_size=n)))
    capacities = draw(st.lists(st.integers(0, 40), min_size=m, max_size=m))
    return clsolve.Knapsack(weights.sum(axis=1) + noise, weights, capacities, weights_by="item")


@SETTINGS
@given(problem=multidimensional())
def test_fixing_by_reduced_costs_for_a_dense_dp_matches_brute_force(problem, device, monkeypatch):
    """dp-rows' reduced-cost fixing (m = 2, 3) on every size: the core's best, or the incumbent where
    the core holds nothing better, is the optimum, with its items."""
    from clsolve.dp import presolve

    monkeypatch.setattr(presolve, "LARGE_TABLE_UPDATES", 0)
    solution = clsolve.solve(problem, solver="dp-rows", device=device, poison=True)
    check(problem, solution)
    assert solution.optimal and solution.value == brute_force(problem)


@pytest.mark.parametrize("seed, incumbent_optimal", [(8, True), (7, False)])
def test_fixing_by_reduced_costs_answers_with_the_core_or_the_incumbent(seed, incumbent_optimal, device, monkeypatch):
    """Items of three efficiencies (class A's a33 in miniature): reduced costs fix items in and out;
    where the greedy incumbent is optimal the core's DP finds nothing better and the incumbent is the
    answer, else the core's best is; the plan counts the core's table only."""
    from clsolve.dp import presolve

    monkeypatch.setattr(presolve, "LARGE_TABLE_UPDATES", 0)
    problem = efficiency_classes(seed)
    reduced = reduction(problem, fixing=True)
    assert reduced.floor is not None and reduced.problem is not None and reduced.problem.n < problem.n
    plan = clsolve.plan(problem, "dp-rows", device)
    assert plan.cell_updates == reduced.problem.n * reduced.problem.cells() and "reduced costs" in plan.details["presolve"]
    solution = clsolve.solve(problem, solver="dp-rows", device=device, poison=True)
    optimum = clsolve.solve(problem, solver="sequential").value
    assert solution.value == optimum and (reduced.floor[0] == optimum) == incumbent_optimal
    assert any("it is the answer" in note for note in solution.notes) == incumbent_optimal
    unfixed = clsolve.solve(problem, solver="dp-rows", device=device, fixing=False)
    assert unfixed.value == optimum and not any("reduced costs" in note for note in unfixed.notes)


def test_a_reduction_keeps_the_better_floor_through_a_second_step():
    from clsolve.dp.reduction import Reduction

    original = clsolve.Knapsack([5, 4, 3, 2], [[1, 1], [1, 1], [1, 1], [1, 1]], [3, 3], weights_by="item")
    first = Reduction(
        original,
        clsolve.Knapsack([4, 3, 2], [[1, 1]] * 3, [2, 2], weights_by="item"),
        np.array([1, 2, 3]),
        np.array([0]),
        ("first",),
        (7, np.array([True, False, False, True])),
    )
    second = Reduction(
        first.problem,
        clsolve.Knapsack([2], [[1, 1]], [1, 1], weights_by="item"),
        np.array([2]),
        np.array([0]),
        ("second",),
        (4, np.array([True, False, False])),
    )
    both = first.then(second)
    assert both.forced.tolist() == [0, 1] and both.items.tolist() == [3]
    assert both.floor[0] == 9 and both.floor[1].tolist() == [True, True, False, False]  # 5 + 4 beats 7
    none = clsolve.Solution(value=0, selected=np.zeros(1, bool), optimal=True, solver="t", device="t")
    assert both.expand(none).value == 9 and both.expand(none).selected.tolist() == [True, True, False, False]
    one = clsolve.Solution(value=2, selected=np.ones(1, bool), optimal=True, solver="t", device="t")
    assert both.expand(one).value == 11 and both.expand(one).selected.tolist() == [True, True, False, True]
