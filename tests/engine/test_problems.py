import math

import numpy as np
import pytest

import clsolve
from clsolve.errors import InvalidProblemError


def test_shapes_are_normalised():
    p = clsolve.Knapsack([1, 2], [3, 4], 5)
    assert p.weights.shape == (2, 1) and p.capacities.tolist() == [5] and p.m == 1 and p.n == 2
    q = clsolve.Knapsack([1, 2], [[3, 1], [4, 1]], [5, 6], weights_by="item")
    assert q.m == 2 and q.cells() == 6 * 7


def test_arrays_are_read_only():
    p = clsolve.Knapsack([1, 2], [3, 4], 5)
    with pytest.raises(ValueError):
        p.profits[0] = 9


@pytest.mark.parametrize(
    "profits, weights, caps, field",
    [
        ([1, -2], [1, 1], 3, "profits[1]"),
        ([1, 2], [1, -1], 3, "weights[1]"),
        ([1, 2], [1, 1], -3, "capacities"),
        ([1.5, 2], [1, 1], 3, "profits[0]"),
        ([1, 2], [1, 0.25], 3, "weights[1]"),
        ([1, math.nan], [1, 1], 3, "profits[1]"),
        ([1, 2], [1, math.inf], 3, "weights[1]"),
        ([1, 2], [1, 1, 1], 3, "weights"),
        ([1, 2], [[1, 1], [1, 1]], [3], "weights"),
        ([], [], 3, "profits"),
        ([[1, 2]], [1, 2], 3, "profits"),
        ([1, 2], [1, 1], [], "capacities"),
        ([2**63], [1], 3, "2^62"),
        (["a", 1], [1, 1], 3, "profits"),
    ],
)
def test_bad_input_names_the_field(profits, weights, caps, field):
    with pytest.raises(InvalidProblemError) as info:
        clsolve.Knapsack(profits, weights, caps)
    assert field in str(info.value)


def test_total_profit_beyond_int64_is_refused():
    with pytest.raises(InvalidProblemError, match="signed 64-bit"):
        clsolve.Knapsack([2**62, 2**62, 2**62], [1, 1, 1], 3)


def test_integral_floats_and_big_python_ints_are_accepted():
    p = clsolve.Knapsack([1.0, 2**61], np.array([3.0, 4.0]), 7.0)
    assert p.profits.dtype == np.int64 and p.profits[1] == 2**61


@pytest.mark.parametrize("bad", [-1, 2.5, "7", 2**63])
def test_a_known_optimum_must_be_a_non_negative_integer(bad):
    from clsolve.problems import LCS, TSP

    for make in (
        lambda: clsolve.Knapsack([1, 2], [1, 1], 2, known_optimum=bad),
        lambda: LCS("AB", "B", known_optimum=bad),
        lambda: TSP([[0, 1], [1, 0]], known_optimum=bad),
    ):
        with pytest.raises(InvalidProblemError, match="known_optimum"):
            make()
    assert clsolve.Knapsack([1, 2], [1, 1], 2, known_optimum=3.0).known_optimum == 3


@pytest.mark.parametrize("shape", [(5,), (4, 3), (0,), (0, 2)])
def test_exact_sum_matches_python_integers(shape):
    """``exact_sum`` of values up to 2^62, whole and per column: Python's sums, where int64 overflows."""
    from clsolve.problems import exact_sum

    rng = np.random.default_rng(3)
    for top in (10, 2**62):
        values = rng.integers(0, top, shape, dtype=np.int64, endpoint=True)
        assert exact_sum(values) == sum(int(v) for v in values.ravel())
        if len(shape) == 2:
            assert exact_sum(values, axis=0) == [sum(int(v) for v in column) for column in values.T]
