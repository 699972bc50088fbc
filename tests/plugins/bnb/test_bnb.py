"""bnb ([LE12]): random uncorrelated, weakly and strongly correlated and p = w + 10 instances against
sequential and brute force, on the host path, the device path and both; capacities no DP can hold;
the list cut into chunks; the time limit; the large_scale KP01 instances to their published optima."""

from fractions import Fraction

import numpy as np
import pytest
from conftest import brute_force
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import clsolve
from clsolve.dp.fixing import sort_by_ratio
from clsolve.io import formats

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
KINDS = ("uncorrelated", "weak", "strong", "plus10")


def instance(kind: str, n: int, rng: np.random.Generator, spread: int = 100, capacity: int | None = None):
    weights = rng.integers(1, spread + 1, n)
    if kind == "uncorrelated":
        profits = rng.integers(1, spread + 1, n)
    elif kind == "weak":
        profits = np.maximum(1, weights + rng.integers(-spread // 10, spread // 10 + 1, n))
    elif kind == "strong":
        profits = weights + spread // 10
    else:  # the paper's Table I: p = w + 10
        profits = weights + 10
    return clsolve.Knapsack(profits, weights, int(weights.sum()) // 2 if capacity is None else capacity)


@st.composite
def small(draw):
    kind = draw(st.sampled_from(KINDS))
    n = draw(st.integers(1, 14))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    weights = rng.integers(1, 60, n)
    capacity = draw(st.integers(0, int(weights.sum()) + 3))
    return instance(kind, n, rng, 60, capacity)


@SETTINGS
@given(problem=small())
def test_random_instances_match_brute_force_on_host_and_device(problem, device):
    expected = brute_force(problem)
    for threshold in (0, 4, 10**9):  # all on the device, switching, all on the host
        for dominance in (True, False):
            for fixing in (True, False):
                solution = clsolve.solve(
                    problem, solver="bnb", device=device, host_threshold=threshold, dominance=dominance, fixing=fixing
                )
                assert solution.value == expected and solution.optimal, (threshold, dominance, fixing)


@pytest.mark.parametrize("kind", KINDS)
def test_larger_instances_match_sequential(kind, device):
    rng = np.random.default_rng(len(kind))
    for n in (60, 150):
        problem = instance(kind, n, rng)
        expected = clsolve.solve(problem, solver="sequential").value
        for threshold in (0, 192):
            for fixing in (True, False):
                solution = clsolve.solve(problem, solver="bnb", device=device, host_threshold=threshold, fixing=fixing)
                assert solution.value == expected


@pytest.mark.parametrize("scale", [10**9, 10**12, 2**61])
def test_capacities_no_dp_can_hold(scale, device):
    rng = np.random.default_rng(7)
    for kind in KINDS:
        base = instance(kind, 13, rng, 1000)
        odd = rng.integers(0, 997, 13)  # keeps the weights' common divisor at 1
        weights = base.weights[:, 0] * (scale // 1000) + odd
        capacity = min(sum(int(x) for x in weights) // 2, 2**62)
        problem = clsolve.Knapsack(base.profits * min(scale // 1000, 2**48), weights, capacity)
        if capacity >= 2**32:  # beyond any DP row (below it, a DP of 13 x 4e9 cells may still fit a GPU)
            with pytest.raises(clsolve.UnsupportedProblemError):
                clsolve.solve(problem, solver="dp-rows", device=device)
            assert clsolve.solve(problem, solver="auto", device=device).solver in ("dp-states", "bnb")
        expected = brute_force(problem)
        for fixing in (True, False):
            solution = clsolve.solve(problem, solver="bnb", device=device, host_threshold=0, fixing=fixing)
            assert solution.value == expected


def test_list_cut_into_chunks_stays_exact(device):
    rng = np.random.default_rng(3)
    problem = instance("plus10", 40, rng)
    expected = clsolve.solve(problem, solver="sequential").value
    for threshold in (0, 10**9):
        for dominance in (True, False):
            solution = clsolve.solve(
                problem, solver="bnb", device=device, max_nodes=256, host_threshold=threshold, dominance=dominance, fixing=False
            )
            assert solution.value == expected and solution.optimal
        assert any("chunk" in note for note in solution.notes)


def test_time_limit_returns_best_found_and_bound(device):
    rng = np.random.default_rng(5)
    problem = instance("plus10", 300, rng)
    solution = clsolve.solve(problem, solver="bnb", device=device, time_limit=0, fixing=False)
    optimum = clsolve.solve(problem, solver="dp-rows", device=device).value
    assert not solution.optimal and solution.bound is not None
    assert solution.value <= optimum <= solution.bound and solution.gap == solution.bound - solution.value
    assert any("time limit" in note for note in solution.notes) and solution.to_dict()["gap"] == solution.gap
    with pytest.raises(clsolve.InvalidOptionError, match="time_limit"):
        clsolve.solve(problem, solver="bnb", time_limit=-1)
    with pytest.raises(clsolve.InvalidOptionError, match="power of two"):
        clsolve.solve(problem, solver="bnb", local_size=48)


def test_items_are_returned_and_checked(device):
    problem = clsolve.Knapsack([10, 40, 30, 50], [5, 4, 6, 3], 10)
    solution = clsolve.solve(problem, solver="bnb", device=device)
    assert solution.value == 90 and solution.items.tolist() == [1, 3]
    with pytest.raises(clsolve.UnsupportedProblemError, match="m = 1"):
        clsolve.solve(clsolve.Knapsack([1, 1], [[2, 1], [1, 2]], [2, 2], weights_by="item"), solver="bnb", device=device)


def test_sort_by_ratio_is_exact_for_huge_values():
    # ratios equal in float64, different in exact arithmetic
    profits = np.array([2**61 + 1, 2**61], dtype=np.int64)
    weights = np.array([2**61, 2**61 - 1], dtype=np.int64)
    order = sort_by_ratio(profits, weights)
    ratios = [Fraction(int(profits[i]), int(weights[i])) for i in order]
    assert ratios == sorted(ratios, reverse=True)


def test_large_scale_to_published_optimum(data, device):
    folder = data / "kp01" / "instances_01_KP" / "large_scale"
    if not folder.is_dir():
        pytest.skip("large_scale instances absent")
    files = sorted(folder.iterdir(), key=lambda p: int(p.name.split("_")[2]))
    assert len(files) == 21
    for path in files:
        (problem,) = formats.read(path)
        optimum = Fraction((folder.parent / "large_scale-optimum" / path.name).read_text().strip())
        solution = clsolve.solve(problem, solver="bnb", device=device, time_limit=120)
        assert solution.optimal and solution.value == optimum, path.name


@pytest.mark.parametrize("profits, weights, capacity", [([5], [0], 0), ([5, 3], [0, 0], 4), ([4, 5, 0], [0, 2, 0], 3)])
def test_weightless_items_without_presolve_divide_by_nothing(profits, weights, capacity, device):
    """With presolve off, weightless items reach the bounds; a node past the last item must not divide
    by that item's weight (no RuntimeWarning: warnings are errors here)."""
    import warnings

    problem = clsolve.Knapsack(profits, weights, capacity)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        solution = clsolve.solve(problem, solver="bnb", device=device, presolve=False, fixing=False, host_threshold=64)
    assert solution.optimal and solution.value == brute_force(problem)


def test_a_filtered_list_longer_than_the_node_limit_stays_in_the_planned_buffers(device):
    """A device step doubles a list of max_nodes into its sons; the dominance filter's survivors (more
    than max_nodes) go back into the list's slots as they are, not into larger buffers than the plan
    counted (``Workspace`` raised ``PlanError`` for 283 nodes where the plan counted 256)."""
    weights = [
        439,
        785,
        323,
        811,
        963,
        205,
        809,
        763,
        802,
        762,
        629,
        383,
        40,
        440,
        287,
        22,
        972,
        461,
        996,
        143,
        913,
        349,
        180,
        453,
        866,
        449,
        809,
        276,
        868,
        880,
        714,
        142,
        558,
        737,
        708,
        386,
        130,
        604,
        936,
        530,
        776,
        716,
        327,
        526,
        783,
        765,
        1,
        386,
        94,
        232,
        825,
        845,
        574,
        320,
        833,
        630,
        782,
        543,
        514,
    ]
    problem = clsolve.Knapsack([x + 100 for x in weights], weights, 16497)  # strongly correlated
    solution = clsolve.solve(problem, solver="bnb", device=device, host_threshold=0, presolve=False, fixing=False, max_nodes=256)
    assert solution.optimal and solution.value == clsolve.solve(problem, solver="dp-rows", device=device).value
