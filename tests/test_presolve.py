"""The exact reductions of clsolve.presolve: each rule alone, and random problems built to trigger
them, solved through the reduction and expanded back, against brute force on the original."""
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import clsolve
from clsolve.presolve import reduce, reduction
from clsolve.solution import check

from conftest import brute_force

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
    return clsolve.Knapsack(profits, weights, capacities)


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
