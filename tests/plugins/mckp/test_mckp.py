"""mckp ([HC22]): random instances with few and many classes, grouped by value and by weight, for
every variant and every place the counts can live, against brute force and sequential; a group larger
than local memory; classes of size one against dp-rows; 64-bit values; what plan chooses and refuses.
Device buffers are poisoned, so an unwritten DP cell or count shows as a wrong answer."""

import numpy as np
import pytest
from conftest import brute_force
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import clsolve
from clsolve.errors import InvalidOptionError, UnsupportedProblemError
from clsolve_plugins.mckp import solver as mckp
from clsolve_plugins.mckp.groups import Groups

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
VARIANTS = ("full", "no-local", "no-opt")
STORAGE = ("device", "host", "recompute")


def multiclass(
    n: int,
    classes: int,
    rng: np.random.Generator,
    by: str = "value",
    spread: int = 40,
    capacity: int | None = None,
    top_profit: int = 60,
) -> clsolve.Knapsack:
    """n items whose values (or weights) come from `classes` distinct values."""
    shared = rng.choice(np.arange(1, max(top_profit, spread, classes) + 1), size=classes, replace=False)
    if by == "value":
        profits, weights = shared[rng.integers(0, classes, n)], rng.integers(1, spread + 1, n)
    else:
        weights, profits = shared[rng.integers(0, classes, n)], rng.integers(1, top_profit + 1, n)
    return clsolve.Knapsack(profits, weights, int(weights.sum()) // 3 if capacity is None else capacity)


@st.composite
def small(draw):
    n = draw(st.integers(1, 13))
    classes = draw(st.integers(1, n))
    by = draw(st.sampled_from(("value", "weight")))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    problem = multiclass(n, classes, rng, by)
    capacity = draw(st.integers(0, int(problem.weights.sum()) + 2))
    return clsolve.Knapsack(problem.profits, problem.weights, capacity)


def solve(problem, device, **options):
    return clsolve.solve(problem, solver="mckp", device=device, poison=True, **options)


@SETTINGS
@given(problem=small(), grouping=st.sampled_from(("auto", "value", "weight")))
def test_random_instances_match_brute_force(problem, grouping, device):
    expected = brute_force(problem)
    for variant in VARIANTS:
        for counts in STORAGE:
            solution = solve(problem, device, grouping=grouping, variant=variant, counts=counts, segment_groups=2, presolve=False)
            assert solution.value == expected and solution.optimal, (variant, counts)


@pytest.mark.parametrize("by", ["value", "weight"])
@pytest.mark.parametrize("classes", [1, 3, 40, 200])
def test_few_and_many_classes_match_sequential(by, classes, device):
    rng = np.random.default_rng(classes)
    problem = multiclass(200, classes, rng, by, spread=60, top_profit=400)
    expected = clsolve.solve(problem, solver="sequential").value
    for variant in VARIANTS:
        for counts in STORAGE:
            solution = solve(problem, device, grouping=by, variant=variant, counts=counts, segment_groups=7, tile_items=5)
            assert solution.value == expected, (variant, counts)
    assert solve(problem, device).value == expected


def test_group_larger_than_local_memory(device):
    """One class of equal value, more items than local memory holds: the optimum takes the k lightest."""
    dtype_bytes = 4 + 4
    n = device.local_memory // dtype_bytes + 1000
    rng = np.random.default_rng(7)
    weights = rng.integers(1, 100, n)
    capacity = 4000
    problem = clsolve.Knapsack(np.full(n, 3), weights, capacity)
    fits = int(np.searchsorted(np.cumsum(np.sort(weights)), capacity, side="right"))
    for variant in ("full", "no-local"):
        solution = solve(problem, device, variant=variant, grouping="value")
        assert solution.value == 3 * fits
        assert int(problem.weights[solution.selected].sum()) <= capacity
    plan = clsolve.plan(problem, solver="mckp", device=device)
    assert plan.details["largest_group"] == n > plan.details["tile_items"]


def test_classes_of_size_one_equal_dp_rows(device):
    rng = np.random.default_rng(3)
    n = 120
    profits = rng.permutation(np.arange(1, 10 * n))[:n]
    weights = rng.permutation(np.arange(1, 10 * n))[:n]
    problem = clsolve.Knapsack(profits, weights, int(weights.sum()) // 4)
    expected = clsolve.solve(problem, solver="dp-rows", device=device).value
    for variant in VARIANTS:
        solution = solve(problem, device, variant=variant)
        assert solution.value == expected
        assert solution.stats["groups"] == n


@pytest.mark.parametrize("atomics", ["auto", "cas"])
def test_64_bit_values(atomics, device):
    """Profits near 2^40: sums pass 2^31, so values are 64-bit in every variant."""
    rng = np.random.default_rng(11)
    classes = rng.integers(2**39, 2**40, 5)
    profits = classes[rng.integers(0, 5, 60)]
    weights = rng.integers(1, 50, 60)
    problem = clsolve.Knapsack(profits, weights, int(weights.sum()) // 2)
    expected = clsolve.solve(problem, solver="sequential").value
    assert expected > 2**31
    for variant in VARIANTS:
        try:
            solution = solve(problem, device, variant=variant, atomics=atomics)
        except UnsupportedProblemError as exc:  # a device without 64-bit atomics refuses no-opt, by name
            assert variant == "no-opt" and "64-bit" in str(exc)
            continue
        assert solution.value == expected
        assert "long values" in solution.notes[0]


def test_value_only_equals_solve(device):
    rng = np.random.default_rng(5)
    problem = multiclass(300, 12, rng, "value", top_profit=10**6)
    solver = mckp.MultiClassSolver(poison=True)
    value, timings = solver.value_only(problem, device)
    assert value == clsolve.solve(problem, solver="sequential").value
    assert timings.kernels > 0


def test_plan_reports_where_counts_live(device):
    rng = np.random.default_rng(9)
    problem = multiclass(100, 10, rng, "value")
    plan = clsolve.plan(problem, solver="mckp", device=device)
    assert plan.details["counts"] == "device"
    assert plan.details["groups"] == 10 and plan.details["count_type"] == "uint8"
    assert 10 * problem.cells() <= plan.device_buffers["counts"] < 10 * problem.cells() + 256  # 256-byte aligned
    host = clsolve.plan(problem, solver="mckp", device=device, counts="host", segment_groups=3)
    assert host.host_buffers["counts"] == 10 * problem.cells() and host.details["segments"] == 4
    again = clsolve.plan(problem, solver="mckp", device=device, counts="recompute", segment_groups=4)
    assert again.host_buffers["checkpoints"] == 2 * problem.cells() * 4  # 3 segments, int32 rows


class _Tiny:
    """A device stand-in with little memory, for the storage decision alone."""

    def __init__(self, memory: int):
        self.global_memory = memory
        self.memory_budget = int(memory * 0.9)
        self.max_allocation = memory // 4


def test_storage_moves_to_host_then_recompute(monkeypatch):
    rng = np.random.default_rng(1)
    problem = multiclass(1000, 100, rng, "value", spread=1000)
    solver = mckp.MultiClassSolver()
    groups = Groups.of(problem, "value")
    states = problem.cells()
    row = states  # uint8 counts
    args = (problem, groups, states, np.dtype(np.int32), np.dtype(np.uint8))
    assert solver._storage(*args, _Tiny(10**10))[0] == "device"
    assert solver._storage(*args, _Tiny(40 * row))[0] == "host"
    monkeypatch.setattr(mckp, "host_memory_bytes", lambda: 10 * row)
    storage, segment = solver._storage(*args, _Tiny(40 * row))
    assert storage == "recompute" and 1 <= segment < 100


def test_recompute_refused_with_numbers_when_checkpoints_do_not_fit(device):
    rng = np.random.default_rng(2)
    problem = multiclass(400, 50, rng, "value", spread=500)
    with pytest.raises(clsolve.DoesNotFitError, match="checkpoints"):
        clsolve.plan(problem, solver="mckp", device=device, counts="recompute", segment_groups=1, host_memory_limit=1000)


def test_no_opt_refused_without_64_bit_atomics(device):
    class NoAtomics:
        label = "a device without int64 atomics"

        class cl_device:
            extensions = "cl_khr_global_int32_base_atomics"

    assert mckp.atomic_mode(NoAtomics, np.dtype(np.int32), "auto") == 0
    assert mckp.atomic_mode(NoAtomics, np.dtype(np.int64), "auto") is None
    assert mckp.atomic_mode(device, np.dtype(np.int64), "cas") in (2, None)


def test_bad_options_and_problems(device):
    with pytest.raises(InvalidOptionError, match="variant"):
        clsolve.solve(clsolve.Knapsack([1], [1], 1), solver="mckp", variant="fast")
    with pytest.raises(InvalidOptionError, match="counts"):
        clsolve.solve(clsolve.Knapsack([1], [1], 1), solver="mckp", counts="disk")
    with pytest.raises(InvalidOptionError, match="tile_items"):
        clsolve.solve(clsolve.Knapsack([1], [1], 1), solver="mckp", tile_items=0)
    two_d = clsolve.Knapsack([1, 2], [[1, 1], [2, 2]], [2, 2], weights_by="item")
    with pytest.raises(UnsupportedProblemError, match="m = 2"):
        clsolve.solve(two_d, solver="mckp", device=device)


def test_groups_sorted_and_prefix_sums():
    problem = clsolve.Knapsack([5, 3, 5, 3, 5], [4, 9, 1, 2, 7], 10)
    groups = Groups.of(problem, "value")
    groups.sort_range(problem, 0, groups.count)
    assert groups.order.tolist() == [3, 1, 2, 0, 4]  # value 3: weights 2, 9; value 5: 1, 4, 7
    w, p = groups.prefix_sums(problem, 0, groups.count, problem.cells(), np.dtype(np.int64))
    assert w.tolist() == [2, 11, 1, 5, 11] and p.tolist() == [3, 6, 5, 10, 15]  # 11 = states (clamped)
    by_weight = Groups.of(problem, "weight")
    assert by_weight.count == 5
    assert groups.selected(5, np.array([1, 2])).tolist() == [True, False, True, True, False]
