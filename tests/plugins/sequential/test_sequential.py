"""sequential: the host DP's blocks (an item's step in blocks of the first capacity's rows, updated
in place from the top down) against brute force, and the time limit kept inside one item's step."""

import time

import numpy as np
import pytest
from conftest import brute_force
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import knapsacks

import clsolve
from clsolve.runtime import deadline
from clsolve_plugins.sequential import solver as sequential


@settings(max_examples=150, deadline=None)
@given(problem=knapsacks(max_n=10, max_capacity=40), block=st.sampled_from([1, 3, 8, 13, 1 << 22]))
def test_blocks_of_any_size_give_the_optimum_and_its_items(problem, block):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sequential, "BLOCK_STATES", block)
        solution = clsolve.solve(problem, solver="sequential")  # the engine checks the items
    assert solution.value == brute_force(problem)


def test_block_rows_end_on_whole_bytes_of_decision_bits():
    for shape in [(100,), (7, 3), (5, 6, 7), (3, 8), (2, 2, 2)]:
        inner = int(np.prod(shape[1:]))
        assert sequential.block_rows(shape) * inner % 8 == 0


def test_a_time_limit_is_kept_inside_one_items_step():
    """One item's step over 3e7 states takes about 0.1 s; the limit is checked between its blocks."""
    rng = np.random.default_rng(3)
    weights = rng.integers(1, 1000, 6)
    problem = clsolve.Knapsack(weights + 5, weights, 30_000_000)
    began = time.perf_counter()
    with deadline.limit(0.02), pytest.raises(clsolve.TimeLimitError, match="0 of 6 items"):
        sequential.SequentialSolver().decisions(problem)
    assert time.perf_counter() - began < 0.02 + deadline.MARGIN_SECONDS


@settings(max_examples=40, deadline=None)
@given(problem=knapsacks())
def test_sequential_matches_brute_force(problem):
    assert clsolve.solve(problem, solver="sequential").value == brute_force(problem)
