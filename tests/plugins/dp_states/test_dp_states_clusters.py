"""dp-states' cluster bound (``clusters.py``): the bound of the whole problem is at least the optimum for
any bases at most the weights and any rate; searches that bound every state by it match brute force
with poisoned buffers; the kept lists fit the memory given them or are left out."""

import numpy as np
import pytest
from conftest import brute_force
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import clsolve
from clsolve_plugins.dp_states import clusters
from clsolve_plugins.dp_states.clusters import DENOMINATOR, ClusterLists, Clusters, _Builder
from clsolve_plugins.dp_states.core import Core

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def optimum(problem: clsolve.Knapsack) -> int:
    """Brute force over all subsets, vectorised (n <= 18)."""
    n = problem.n
    masks = (np.arange(2**n)[:, None] >> np.arange(n)[None, :]) & 1
    weights = masks @ problem.weights[:, 0].astype(np.int64)
    profits = masks @ problem.profits.astype(np.int64)
    return int(profits[weights <= int(problem.capacities[0])].max())


@st.composite
def based(draw):
    """A small problem and bases B_j <= w_j (0 for some)."""
    n = draw(st.integers(1, 10))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    weights = rng.integers(1, 10**6, n)
    profits = np.maximum(0, weights + rng.integers(-(10**5), 10**5, n))
    capacity = draw(st.integers(0, int(weights.sum())))
    bases = np.where(rng.random(n) < 0.7, weights - rng.integers(0, 1000, n).clip(0, weights - 1), 0)
    return clsolve.Knapsack(profits, weights, capacity), bases


@SETTINGS
@given(case=based(), share=st.sampled_from([0, 1, 2, 3]), host_step=st.sampled_from([0, clusters.HOST_STEP]))
def test_the_root_bound_is_at_least_the_optimum_at_any_rate(case, share, host_step, device, monkeypatch):
    """On the device (host_step = 0: every cluster's step there) and on the host."""
    monkeypatch.setattr(clusters, "HOST_STEP", host_step)
    problem, bases = case
    core = Core.of(problem)
    found = Clusters(bases[core.order].astype(np.int64), 1, 1)
    builder = _Builder(clsolve.get_device(device), 32, core, found, 2**16, True, 2**24)
    b = min(core.breaking, core.n - 1)
    rate = int(core.profits[b]) * DENOMINATOR // max(int(core.weights[b]), 1) * share // 2
    kept = builder.run(core.upcoming(), rate, 1, None)
    assert kept is not None
    lists = ClusterLists(builder.device, core, found, rate, 1, kept, builder.kept)
    try:
        assert lists.root_bound(core) >= brute_force(problem)
    finally:
        lists.release()


@st.composite
def jooken_like(draw):
    """Two clusters of eight items near C / 3 and C / 5 (weights within the spread C / 2^23) and two
    light items: the cluster bound applies."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    capacity = 2**24 + int(rng.integers(0, 2**20))
    spread = capacity >> 23
    centres = [capacity // 3, capacity // 5]
    weights = np.concatenate([c + rng.integers(0, spread + 1, 8) for c in centres] + [rng.integers(1, 5000, 2)])
    profits = weights + rng.integers(-3000, 3000, weights.size)
    return clsolve.Knapsack(np.maximum(profits, 0), weights, capacity)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(problem=jooken_like(), host_step=st.sampled_from([0, clusters.HOST_STEP]))
def test_searches_bounded_by_the_clusters_match_brute_force(problem, host_step, device, monkeypatch):
    monkeypatch.setattr(clusters, "HOST_STEP", host_step)
    expected = optimum(problem)
    solution = clsolve.solve(
        problem,
        solver="dp-states",
        device=device,
        poison=True,
        host_states=0,
        cluster_states=0,
        fixing=False,
        descent=False,
        relaxation=0,
    )
    assert solution.optimal and solution.value == expected
    assert solution.stats["cluster_bytes"] > 0 and any("cluster bound" in note for note in solution.notes)


def test_clusters_group_near_equal_large_weights():
    capacity = 2**30  # spread 2^7
    weights = np.array([10**6, 10**6 + 100, 10**6 + 128, 10**6 + 200, 5, 7, 3 * 10**6])
    found = Clusters.of(weights, capacity)
    assert found.spread == 128 and found.count == 1
    assert found.bases.tolist() == [10**6, 10**6, 10**6, 0, 0, 0, 0]  # 10**6 + 200 is past the spread
    assert not found.useful()  # three items in one cluster: fewer than MIN_SIZE on average


def test_kept_lists_fit_their_memory_or_are_left_out(device):
    problem = _example()
    core = Core.of(problem)
    found = Clusters.of(core.weights, core.capacity)
    found_device = clsolve.get_device(device)
    roomy = ClusterLists.make(found_device, 32, core, found, 2**16, 2**30, poison=True)
    assert roomy is not None and roomy.stride == 1 and len(roomy.snapshots) == core.n
    total = roomy.nbytes
    roomy.release()
    tight = ClusterLists.make(found_device, 32, core, found, 2**16, total // 3, poison=True)
    assert tight is not None and tight.stride > 1 and tight.nbytes <= total // 3
    assert tight.root_bound(core) >= optimum(problem)
    tight.release()
    assert ClusterLists.make(found_device, 32, core, found, 2**16, 8, poison=True) is None


def _example() -> clsolve.Knapsack:
    rng = np.random.default_rng(5)
    capacity = 2**24
    weights = np.concatenate(
        [capacity // 3 + rng.integers(0, 3, 8), capacity // 5 + rng.integers(0, 3, 8), rng.integers(1, 5000, 2)]
    )
    return clsolve.Knapsack(weights + rng.integers(0, 3000, weights.size), weights, capacity)


@pytest.mark.parametrize("value", [-1, "x"])
def test_cluster_states_is_checked(value):
    with pytest.raises(clsolve.ClsolveError, match="cluster_states"):
        clsolve.solve(_example(), solver="dp-states", cluster_states=value)


def test_guesses_go_on_just_below_the_cluster_bound_after_a_costly_guess():
    """The descent's first guess runs out of budget; the cluster bound (3 above the optimum) is asked
    for, a guess 1 below it fails, the next 16 further down proves the optimum."""
    from clsolve_plugins.dp_states import descent

    problem = clsolve.Knapsack([10**6, 12 * 10**5, 12 * 10**5], [4, 6, 6], 12)  # greedy 2.2e6, Dantzig 2.6e6
    best, guesses = 24 * 10**5, []

    def answer(value: int, optimal: bool, stopped: str) -> clsolve.Solution:
        return clsolve.Solution(
            value=value,
            selected=np.array([False, True, True]),
            optimal=optimal,
            solver="test",
            device="test",
            stats={"stopped": stopped},
        )

    def guessed(guess: int) -> clsolve.Solution:
        guesses.append(guess)
        if len(guesses) == 1:
            return answer(best, False, "budget")
        return answer(best, guess <= best, "")

    solution = descent.descend(problem, 0, guessed, lambda: pytest.fail("the plain search ran"), clustered=lambda: best + 3)
    assert guesses[1:] == [best + 2, best + 1 - 16]
    assert solution.optimal and solution.value == best and solution.stats["descent_guesses"] == guesses


def test_making_the_lists_stops_at_the_time_limit(device):
    """Past the time limit the lists are left out (no bound) rather than made late."""
    from clsolve.runtime import deadline

    problem = _example()
    core = Core.of(problem)
    found = Clusters.of(core.weights, core.capacity)
    with deadline.limit(1e-9):
        assert ClusterLists.make(clsolve.get_device(device), 32, core, found, 2**16, 2**30) is None


def test_every_item_fitting_leaves_rate_zero(device):
    """Without a break item the rate stays 0 (rate * C could pass the scaled sums otherwise)."""
    weights = np.full(16, 2**24)
    problem = clsolve.Knapsack(weights * 3, weights, 2**29)
    core = Core.of(problem)
    lists = ClusterLists.make(clsolve.get_device(device), 32, core, Clusters.of(core.weights, core.capacity), 2**16, 2**30)
    assert lists is not None and lists.rate == 0 and lists.root_bound(core) == int(problem.profits.sum())
    lists.release()


def test_the_plan_names_the_lists_memory_and_clusters_false_leaves_them_out(device):
    problem = _example()
    planned = clsolve.plan(problem, solver="dp-states", device=device)
    assert planned.device_buffers["cluster lists (at most)"] > 0
    off = clsolve.plan(problem, solver="dp-states", device=device, clusters=False)
    assert "cluster lists (at most)" not in off.device_buffers
    solution = clsolve.solve(
        problem, solver="dp-states", device=device, clusters=False, cluster_states=0, host_states=0, fixing=False, descent=False
    )
    assert solution.optimal and solution.value == optimum(problem) and "cluster_bytes" not in solution.stats
