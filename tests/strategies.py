"""Problems that several test files draw: hypothesis strategies and fixed hard instances."""

import functools

import numpy as np
from hypothesis import strategies as st

import clsolve


@st.composite
def knapsacks(draw, max_n=12, max_capacity=24, big_profits=False):
    m = draw(st.integers(1, 3))
    n = draw(st.integers(1, max_n))
    caps = draw(st.lists(st.integers(0, max_capacity if m == 1 else max_capacity // 3), min_size=m, max_size=m))
    top = 2**40 if big_profits else 60
    profits = draw(st.lists(st.integers(0, top), min_size=n, max_size=n))
    # weights up to capacity + 3: zero weights and items too heavy to fit both occur
    weights = [[draw(st.integers(0, c + 3)) for c in caps] for _ in range(n)]
    return clsolve.Knapsack(profits, weights, caps, weights_by="item")


@st.composite
def multidimensional(draw, max_n=12, max_m=30):
    n, m = draw(st.integers(1, max_n)), draw(st.integers(2, max_m))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    top = draw(st.sampled_from([2, 50, 10**6, 2**55]))
    weights = rng.integers(0, top, (n, m))
    shape = draw(st.sampled_from(["random", "zero row", "loose dimension", "correlated"]))
    if shape == "zero row":
        weights[rng.integers(0, n)] = 0
    profits = rng.integers(0, top, n) if shape != "correlated" else weights[:, 0] + top // 10
    capacities = np.array([draw(st.integers(0, int(column.sum()) + 1)) for column in weights.T])
    if shape == "loose dimension":
        capacities[0] = int(weights[:, 0].sum())
    return clsolve.Knapsack(profits, weights, capacities, weights_by="item")


def hard_mkp(n=36, m=5, seed=4):
    """Chu-Beasley style: weights in 1..1000, profits correlated with the weights' sum, tightness 1/2."""
    rng = np.random.default_rng(seed)
    weights = rng.integers(1, 1001, (n, m))
    profits = weights.sum(axis=1) // m + rng.integers(0, 500, n)
    return clsolve.Knapsack(profits, weights, weights.sum(axis=0) // 2, weights_by="item")


@functools.lru_cache(maxsize=1)
def hard_mkp_optimum() -> int:
    solution = clsolve.solve(hard_mkp(), solver="mkp-bnb")
    assert solution.optimal
    return solution.value


def family_brute_force(weights: list[int], profits: list[int], most: list[int], capacity: int, exact: bool) -> int | None:
    """The best of every choice of counts (each in 0..most): the most profit within ``capacity``, or
    with ``exact`` the fewest coins (profits ignored) summing exactly to it, None where none does."""
    import itertools

    best = None
    for counts in itertools.product(*(range(b + 1) for b in most)):
        used = sum(w * c for w, c in zip(weights, counts))
        if exact:
            if used == capacity and (best is None or sum(counts) < best):
                best = sum(counts)
        elif used <= capacity:
            value = sum(p * c for p, c in zip(profits, counts))
            best = value if best is None else max(best, value)
    return best
