"""Variable fixing by bounds (clsolve.dp.fixing): the core's optimum with the fixed items, or the incumbent,
equals brute force; the incumbent is feasible and its value right; on [HC22]'s easy instances the
core is small, on the correlated-classes family it is not; bnb with fixing matches sequential."""
import numpy as np
from conftest import brute_force
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import clsolve
from clsolve.bench.mckp import correlated_classes, table2
from clsolve.dp.fixing import fix
from clsolve.solution import Solution


@st.composite
def knapsacks(draw):
    n = draw(st.integers(2, 13))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    weights = rng.integers(1, 50, n)
    kind = draw(st.sampled_from(("uncorrelated", "strong", "equal-value")))
    profits = {"uncorrelated": rng.integers(1, 60, n), "strong": weights + 5,
               "equal-value": np.full(n, 7)}[kind]
    capacity = draw(st.integers(int(weights.max()), max(int(weights.max()), int(weights.sum()) - 1)))
    return clsolve.Knapsack(profits, weights, capacity)


def _best_selection(problem):
    """Brute force returning the items, for the core."""
    best, chosen = -1, None
    for mask in range(1 << problem.n):
        sel = np.array([(mask >> i) & 1 for i in range(problem.n)], dtype=bool)
        if problem.weights[sel, 0].sum() <= problem.capacities[0]:
            value = int(problem.profits[sel].sum())
            if value > best:
                best, chosen = value, sel
    return best, chosen


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=knapsacks())
def test_fixing_keeps_the_optimum(problem):
    expected = brute_force(problem)
    fixed = fix(problem)
    assert fixed.incumbent_value == int(problem.profits[fixed.incumbent].sum()) or not fixed.changed
    if fixed.changed:
        assert problem.weights[fixed.incumbent, 0].sum() <= problem.capacities[0]
    if fixed.core is None:
        answer = fixed.trivial("test", "host")
    else:
        value, selected = _best_selection(fixed.core)
        answer = fixed.expand(Solution(value=value, selected=selected, optimal=True, solver="test", device="host"))
    assert answer.value == expected
    assert int(problem.profits[answer.selected].sum()) == expected
    assert problem.weights[answer.selected, 0].sum() <= problem.capacities[0]


def test_core_is_small_on_easy_instances_and_not_on_correlated_classes():
    easy = table2(10**4, 1000, seed=3)
    core = fix(easy).core
    assert core is None or core.n < easy.n // 20
    hard = correlated_classes(10**4, 64, seed=64)
    assert fix(hard).core.n > hard.n // 2


def test_bnb_with_fixing_matches_sequential(device):
    problem = table2(2000, 50, seed=1)
    expected = clsolve.solve(problem, solver="sequential").value
    solution = clsolve.solve(problem, solver="bnb", device=device)
    assert solution.value == expected and solution.optimal
    assert any(note.startswith("fixing:") for note in solution.notes)


def test_ratio_order_is_exact_where_floats_cannot_tell():
    """Ratios 1 + k / 2^55: equal as doubles, ordered by integer cross products (runs of close float
    ratios sorted again), mixed with items whose ratios doubles do separate."""
    from fractions import Fraction

    from clsolve.dp.fixing import sort_by_ratio
    rng = np.random.default_rng(7)
    base = 2**55
    k = rng.permutation(40)
    weights = np.concatenate([np.full(40, base, dtype=np.int64), rng.integers(1, 1000, 20)])
    profits = np.concatenate([base + k, rng.integers(1, 3000, 20)]).astype(np.int64)
    order = sort_by_ratio(profits, weights)
    ratios = [Fraction(int(profits[i]), int(weights[i])) for i in order]
    assert sorted(order.tolist()) == list(range(60))
    assert all(a >= b for a, b in zip(ratios, ratios[1:]))
