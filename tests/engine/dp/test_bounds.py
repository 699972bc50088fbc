"""Strong bounds and incumbents for KP01 (``clsolve.dp.bounds``, ``exchange``, ``incumbent``): the bounds
never below the optimum (brute force, hypothesis), exact against fractions, the cardinality bounds'
closed forms on strongly and inversely correlated instances, divisibility; exchanges keep solutions
feasible and fill subset sums to the unit; fixing from a seed and a ceiling; dp-states strengthening
its search (triggered at any list length) against brute force, and proving large-range Pisinger
instances through the bounds."""

import math
from fractions import Fraction

import numpy as np
import pytest
from conftest import brute_force
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import clsolve
from clsolve.dp import bounds
from clsolve.dp.fixing import fix
from clsolve.dp.ratios import ratio_order
from clsolve.family import generators as family_generators
from clsolve.family.splitting import piece_arrays, split
from clsolve.generators import pisinger
from clsolve_plugins.dp_states import exchange, incumbent
from clsolve_plugins.dp_states import solver as dp_states

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@st.composite
def instances(draw, max_n=13):
    """Every weight between 1 and the capacity (what the bounds assume)."""
    n = draw(st.integers(2, max_n))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    spread = draw(st.sampled_from([5, 100, 10**9]))
    weights = rng.integers(1, spread + 1, n)
    kind = draw(st.sampled_from(["uncorrelated", "strong", "inverse", "subset", "ceiling", "huge", "split"]))
    if kind == "split":  # a strongly correlated bounded knapsack's binary split: p_j = w_j + delta copies_j
        items, copies = piece_arrays(rng.integers(1, 6, n))
        items, copies = items[:max_n], copies[:max_n]
        weights = weights[items] * copies
        profits = weights + max(spread // 10, 1) * copies
        return clsolve.Knapsack(profits, weights, draw(st.integers(int(weights.max()), int(weights.sum()))))
    profits = {
        "uncorrelated": rng.integers(1, spread + 1, n),
        "huge": rng.integers(1, 2**57, n),
        "strong": weights + max(spread // 10, 1),
        "inverse": np.maximum(weights - max(spread // 10, 1), 1),
        "subset": weights.copy(),
        "ceiling": 3 * -(-weights // 3),
    }[kind]
    capacity = draw(st.integers(int(weights.max()), int(weights.sum())))
    return clsolve.Knapsack(profits, weights, capacity)


def _arrays(problem):
    return problem.profits.astype(np.int64), problem.weights[:, 0].astype(np.int64), int(problem.capacities[0])


@SETTINGS
@given(problem=instances(), below=st.integers(0, 3))
def test_upper_bound_is_never_below_the_optimum(problem, below):
    """Whatever incumbent it is given (the optimum or less), the bound holds the optimum."""
    optimum = brute_force(problem)
    p, w, c = _arrays(problem)
    incumbent_value = max(optimum - below, 0)
    bound = bounds.upper_bound(p, w, c, incumbent_value)
    assert bound.value >= optimum
    assert bound.value <= bounds.dantzig(p, w, c)


@SETTINGS
@given(problem=instances())
def test_dantzig_is_the_exact_lp_bound(problem):
    p, w, c = _arrays(problem)
    order = sorted(range(problem.n), key=lambda j: -Fraction(int(p[j]), int(w[j])))
    room, total = Fraction(c), Fraction(0)
    for j in order:
        take = min(Fraction(1), room / int(w[j]))
        total, room = total + take * int(p[j]), room - take * int(w[j])
    assert bounds.dantzig(p, w, c) == int(total)  # floor of the LP optimum


@SETTINGS
@given(problem=instances())
def test_martello_toth_lies_between_the_optimum_and_u2(problem):
    """At least the optimum, at most Dantzig's bound and at most [MT77]'s U2 as printed (the branches
    bounded by the items next to the break item)."""
    p, w, c = _arrays(problem)
    found = bounds.martello_toth(p, w, c)
    if found is None:
        assert int(w.sum()) <= c
        return
    order = sorted(range(problem.n), key=lambda j: -Fraction(int(p[j]), int(w[j])))
    ps, ws = [int(p[j]) for j in order], [int(w[j]) for j in order]
    s = next(i for i in range(len(ws)) if sum(ws[: i + 1]) > c)
    room, before = c - sum(ws[:s]), sum(ps[:s])
    u0 = before + (room * ps[s + 1] // ws[s + 1] if s + 1 < len(ws) else 0)
    u1 = math.floor(before + ps[s] - Fraction((ws[s] - room) * ps[s - 1], ws[s - 1])) if s else ps[s]
    assert brute_force(problem) <= found <= min(bounds.dantzig(p, w, c), max(u0, u1))


def test_max_cardinality_bound_of_strongly_correlated_items():
    """p = w + R/10 and lambda = R/10: the bound is c + K_max R/10, below Dantzig's."""
    problem = pisinger("strongly", 3000, 10**8, seed=4)
    p, w, c = _arrays(problem)
    k_max = int(np.searchsorted(np.cumsum(np.sort(w)), c, side="right"))
    found = bounds.max_cardinality(p, w, c)
    assert found is not None
    assert found[0] == c + k_max * 10**7 < bounds.dantzig(p, w, c)


def test_max_copies_bound_of_a_split_strongly_correlated_bounded_knapsack():
    """Pieces of 1, 2, 4, ... copies have p = w + delta copies: the bound is c + K delta with K the most
    copies that fit, below each piece's own cardinality bound, and the strengthened incumbent meets it."""
    bounded = family_generators.bounded("strongly", 1000, 1000, 10, 1)
    pieces = split(bounded).problem
    p, w, c = _arrays(pieces)
    order = np.argsort(bounded.weights)
    k = int(np.searchsorted(np.cumsum(np.repeat(bounded.weights[order], bounded.counts[order])), c, side="right"))
    assert bounds.excess_sizes(p, w) is not None
    bound = bounds.upper_bound(p, w, c, 0)
    assert bound.source == "max-copies" and bound.value == c + 100 * k
    assert bound.relaxation is None  # fixing's surrogate constraints have unit sizes
    strong = incumbent.strengthen(pieces)
    assert strong.value == bound.value


def test_min_cardinality_bound_of_inversely_correlated_items():
    """w = p + R/10: every solution worth T takes K_min(T) items or more, and mu = R/10 gives
    c - K_min R/10, below Dantzig's."""
    problem = pisinger("inverse", 3000, 10**8, seed=4)
    p, w, c = _arrays(problem)
    target = incumbent.strengthen(problem).value + 1
    k_min = int(np.searchsorted(np.cumsum(np.sort(p)[::-1]), target, side="left")) + 1
    found = bounds.min_cardinality(p, w, c, target)
    assert found is not None
    assert found[0] <= c - k_min * 10**7 < bounds.dantzig(p, w, c)


def test_divisibility_rounds_the_bound_down():
    problem = pisinger("profit-ceiling", 500, 10**6, seed=3)
    p, w, c = _arrays(problem)
    bound = bounds.upper_bound(p, w, c, 0)
    assert bound.value % 3 == 0 and "divisibility" in bound.source or bounds.dantzig(p, w, c) % 3 == 0


@SETTINGS
@given(problem=instances(max_n=40), seed=st.integers(0, 2**16))
def test_exchanges_keep_solutions_feasible_and_never_worse(problem, seed):
    p, w, c = _arrays(problem)
    rng = np.random.default_rng(seed)
    start = np.zeros(problem.n, dtype=bool)
    for j in rng.permutation(problem.n):  # a random feasible start
        if int(w[start].sum()) + int(w[j]) <= c:
            start[j] = True
    better, moves = exchange.improve(p, w, c, start, ratio_order(problem), 2**62, 1.0)
    assert int(w[better].sum()) <= c
    assert int(p[better].sum()) >= int(p[start].sum())
    assert moves == 0 or int(p[better].sum()) > int(p[start].sum())


@pytest.mark.parametrize("family, seed", [("subset-sum", 1), ("strongly", 2), ("inverse", 3), ("profit-ceiling", 1)])
def test_strengthened_incumbent_reaches_the_bound_at_large_ranges(family, seed):
    """The greedy solution leaves room that bounds do not; on these instances exchanges fill it to the
    unit (on others of the same families a remainder of a few units can stay)."""
    problem = pisinger(family, 3000, 10**10, seed=seed)
    strong = incumbent.strengthen(problem)
    p, w, c = _arrays(problem)
    assert int(w[strong.selected].sum()) <= c and int(p[strong.selected].sum()) == strong.value
    assert strong.value == strong.bound.value


def test_fixing_from_a_seed_and_a_ceiling():
    problem = pisinger("uncorrelated", 12, 100, seed=5)
    optimum = brute_force(problem)
    best = clsolve.solve(problem, solver="sequential")
    seeded = fix(problem, seed=np.asarray(best.selected, dtype=bool))
    assert seeded.incumbent_value == optimum
    closed = fix(problem, seed=np.asarray(best.selected, dtype=bool), ceiling=optimum)
    assert closed.core is None and closed.incumbent_value == optimum


@SETTINGS
@given(problem=instances(max_n=14), again=st.sampled_from([0.0, 1.0]))
def test_dp_states_strengthened_at_once_matches_brute_force(problem, again, device, monkeypatch_module):
    """Every list strengthens (``strengthen=1``): the search ends at the bound, or goes on from the better
    incumbent (AGAIN_SHARE 0) or starts again from it (1), and still returns the optimum."""
    monkeypatch_module.setattr(dp_states, "AGAIN_SHARE", again)
    solution = clsolve.solve(problem, solver="dp-states", device=device, poison=True, host_states=2, strengthen=1)
    assert solution.optimal and solution.value == brute_force(problem)


@pytest.fixture(scope="module")
def monkeypatch_module():
    patch = pytest.MonkeyPatch()
    yield patch
    patch.undo()


@pytest.mark.parametrize("family, seed", [("subset-sum", 2), ("strongly", 2), ("inverse", 3), ("profit-ceiling", 2)])
def test_dp_states_proves_large_range_families_through_the_bounds(family, seed, device):
    """Lists of 2^22 states and more (the threshold lowered from its default to keep the test short),
    no dense DP possible: the strengthened incumbent meets the bound, where the plain search stops at
    max_states."""
    problem = pisinger(family, 3000, 10**10, seed=seed)
    solution = clsolve.solve(problem, solver="dp-states", device=device, time_limit=120, strengthen=2**22)
    assert solution.optimal and solution.value == solution.bound
    assert any(note.startswith("strengthened") for note in solution.notes)
    plain = clsolve.solve(problem, solver="dp-states", device=device, strengthen=0, max_states=2**20)
    assert not plain.optimal and plain.value <= solution.value <= plain.bound


@SETTINGS
@given(problem=instances(), below=st.integers(0, 3))
def test_fixing_with_a_cardinality_relaxation_keeps_the_optimum(problem, below):
    """Items fixed by the surrogate constraint's flipped bounds (against an incumbent up to 3 below the
    optimum) leave a core whose optimum, with the fixed items, is the optimum."""
    from clsolve.dp.fixing import stages

    optimum = brute_force(problem)
    p, w, c = _arrays(problem)
    seed = np.zeros(problem.n, dtype=bool)
    for j in ratio_order(problem):  # a feasible seed, greedy in ratio order
        if int(w[seed].sum()) + int(w[j]) <= c:
            seed[j] = True
    found = bounds.max_cardinality(p, w, c)
    relaxations = [] if found is None else [(found[1], found[2])]
    least = bounds.min_cardinality(p, w, c, max(optimum - below, int(p[seed].sum())) + 1)
    if least is not None and least[1]:
        relaxations.append((-least[1], least[2]))
    for relaxation in relaxations:
        staged = stages(problem, True, True, seed=seed, relaxation=relaxation)
        solution = staged.solve(_exhaustive, "test", "host")
        assert solution.value == optimum


def _exhaustive(problem):
    """The best subset of a small problem, as a Solution (the search that fixing hands its core to)."""
    import itertools

    from clsolve.solution import Solution, Timings

    p, w, c = _arrays(problem)
    best, chosen = 0, np.zeros(problem.n, dtype=bool)
    for mask in itertools.product((False, True), repeat=problem.n):
        x = np.array(mask, dtype=bool)
        if int(w[x].sum()) <= c and int(p[x].sum()) > best:
            best, chosen = int(p[x].sum()), x
    return Solution(value=best, selected=chosen, optimal=True, solver="test", device="host", timings=Timings())


def test_bounds_with_profits_near_two_to_the_60():
    """Multipliers up to the largest profit (7.7e17): the search's grid, made in floating point, stays
    within its range."""
    problem = clsolve.Knapsack([502706537664465855, 746342884606007751, 766859003613767883], [392, 551, 852], 897)
    p, w, c = _arrays(problem)
    optimum = brute_force(problem)
    assert bounds.upper_bound(p, w, c, 0).value >= optimum == 766859003613767883
    solution = clsolve.solve(problem, solver="dp-states", strengthen=1)
    assert solution.optimal and solution.value == optimum
