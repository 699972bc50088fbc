"""Which runs of light items fit a halo (``clsolve.dp.blocking``), for dp-rows' and wavefront's blocks."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from clsolve.dp.blocking import fits, runs


@given(weights=st.lists(st.integers(0, 50), max_size=40), halo=st.integers(0, 120), most=st.integers(0, 8))
def test_fits_is_the_longest_run_within_the_halo(weights, halo, most):
    found = fits(np.array(weights, dtype=np.int64), halo, most).tolist()
    for i, count in enumerate(found):
        longest = 0
        while i + longest < len(weights) and longest < most and sum(weights[i : i + longest + 1]) <= halo:
            longest += 1
        assert count == longest


@given(weights=st.lists(st.integers(0, 50), max_size=40), halo=st.integers(0, 120), most=st.integers(0, 8))
def test_runs_cut_the_items_in_order_into_runs_that_fit_and_single_items(weights, halo, most):
    planned = runs(np.array(weights, dtype=np.int64), halo, most)
    assert [first for first, _ in planned] == list(np.cumsum([0] + [count for _, count in planned])[:-1])
    assert sum(count for _, count in planned) == len(weights)
    for first, count in planned:
        if count > 1:
            assert count <= most and sum(weights[first : first + count]) <= halo
        else:  # on its own only where no run of two starts here
            assert most < 2 or first + 1 == len(weights) or sum(weights[first : first + 2]) > halo


def test_zero_weights_and_an_item_heavier_than_the_halo():
    assert runs(np.array([0, 0, 0, 500, 3, 4]), halo=10, most=16) == [(0, 3), (3, 1), (4, 2)]
    assert fits(np.array([500]), halo=10, most=16).tolist() == [0]
