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
    profits = {"uncorrelated": rng.integers(1, 60, n), "strong": weights + 5, "equal-value": np.full(n, 7)}[kind]
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

    from clsolve.dp.ratios import sort_by_ratio

    rng = np.random.default_rng(7)
    base = 2**55
    k = rng.permutation(40)
    weights = np.concatenate([np.full(40, base, dtype=np.int64), rng.integers(1, 1000, 20)])
    profits = np.concatenate([base + k, rng.integers(1, 3000, 20)]).astype(np.int64)
    order = sort_by_ratio(profits, weights)
    ratios = [Fraction(int(profits[i]), int(weights[i])) for i in order]
    assert sorted(order.tolist()) == list(range(60))
    assert all(a >= b for a, b in zip(ratios, ratios[1:]))


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    kind=st.sampled_from(("uncorrelated", "classes", "strong", "spread")),
    where=st.floats(0.01, 0.99),
)
def test_partial_order_sorts_the_window_and_splits_the_rest(seed, kind, where):
    """``partial_order``: a permutation; the items before the window weigh at most ``low`` and have
    ratios at least every later item's, the window is in exact ratio order, the items after it have
    ratios at most every earlier item's, and the prefix up to the window's end weighs more than
    ``high`` (exact fractions throughout); many equal ratios (classes, strongly correlated) included."""
    from fractions import Fraction

    from clsolve.dp.ratios import PARTIAL_ITEMS, partial_order

    rng = np.random.default_rng(seed)
    n = PARTIAL_ITEMS + int(rng.integers(0, 3000))
    weights = rng.integers(1, 1001, n)
    profits = {
        "uncorrelated": rng.integers(1, 1001, n),
        "classes": rng.choice([7, 70, 700], n),
        "strong": weights + 100,
        "spread": rng.integers(1, 2**40, n),
    }[kind]
    heaviest = int(weights.max())
    capacity = max(heaviest, int(where * int(weights.sum())))
    low, high = capacity - heaviest, capacity + heaviest
    partial = partial_order(profits, weights, low, high)
    order, start, end = partial.order, partial.start, partial.end
    assert sorted(order.tolist()) == list(range(n))
    ratio = [Fraction(int(profits[i]), int(weights[i])) for i in order]
    assert int(weights[order[:start]].sum()) <= low
    assert end == n or int(weights[order[:end]].sum()) > high
    assert all(a >= b for a, b in zip(ratio[start:end], ratio[start + 1 : end]))
    if start:
        assert min(ratio[:start]) >= max(ratio[start:])
    if end < n:
        assert max(ratio[end:]) <= min(ratio[:end])


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), classes=st.sampled_from((5, 50, 5000)))
def test_flipped_bounds_are_the_same_with_the_partial_order(seed, classes):
    """MT2's bounds of every item from the partial order equal those from a full sort (Dantzig's bound
    has one value whatever the order among equal ratios), where both orders put it on the same side of
    the break item (items of the break item's ratio may change sides)."""
    from clsolve.dp.fixing import _flips
    from clsolve.dp.ratios import partial_order, sort_by_ratio

    problem = table2(6000, classes, seed=seed)
    profits, weights = problem.profits, problem.weights[:, 0]
    capacity, heaviest = int(problem.capacities[0]), int(weights.max())
    full = sort_by_ratio(profits, weights)
    partial = partial_order(profits, weights, capacity - heaviest, capacity + heaviest)
    assert partial.end - partial.start < problem.n // 2
    sides = []
    for order, start, end in ((full, 0, problem.n), (partial.order, partial.start, partial.end)):
        flips = _flips(weights[order], profits[order], capacity, start, end)
        upper, before = np.empty(problem.n, np.int64), np.zeros(problem.n, bool)
        upper[order[: flips.b]], upper[order[flips.b :]] = flips.upper0, flips.upper1
        before[order[: flips.b]] = True
        sides.append((upper, before, order[flips.b]))
    (upper, before, breaking), (other, other_before, _) = sides
    same = before == other_before
    moved = np.flatnonzero(~same)
    assert (profits[moved] * weights[breaking] == profits[breaking] * weights[moved]).all()
    np.testing.assert_array_equal(upper[same], other[same])
