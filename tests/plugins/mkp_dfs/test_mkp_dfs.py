"""mkp-dfs (depth-first subtrees on the device, surrogate bounds): random instances with m = 2..30
against brute force with poisoned buffers, one slot to thousands; the split of a subtree; the level
tables and the subtrees' open bound against the host's bounds (mknap1 and class A: test_mkp_bnb.py);
time limits that bracket the optimum and are kept; refusals."""

import time

import numpy as np
import pytest
from conftest import brute_force
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import hard_mkp, hard_mkp_optimum, multidimensional

import clsolve
from clsolve.generators import chu_beasley
from clsolve.mkp.surrogate import Relaxation, Suffix
from clsolve.runtime.devices import settle_left_work
from clsolve_plugins.mkp_dfs.subtrees import Subtrees

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@SETTINGS
@given(
    problem=multidimensional(),
    slots=st.sampled_from([1, 64, 4096]),
    presolve=st.booleans(),
    host_nodes=st.sampled_from([0, 0, 1, 4096]),
)
def test_random_instances_match_brute_force(problem, slots, presolve, host_nodes, device):
    """host_nodes = 0: the device alone; 1: a walk that gives up at once; 4096: the walk finishes."""
    solution = clsolve.solve(
        problem, solver="mkp-dfs", device=device, slots=slots, presolve=presolve, poison=True, host_nodes=host_nodes
    )
    assert solution.optimal and solution.value == brute_force(problem)


def test_many_launches_and_splits_reach_the_optimum(device):
    """A tree too large for one launch: subtrees are split between launches, the optimum found."""
    solution = clsolve.solve(hard_mkp(), solver="mkp-dfs", device=device, slots=64, poison=True, host_nodes=0)
    assert solution.optimal and solution.value == hard_mkp_optimum()
    assert solution.stats["batches"] > 1 and solution.stats["longest"] > 1
    timings = solution.timings  # the walk's phases apart from the host's
    assert timings.upload > 0 and timings.kernels > 0 and timings.download > 0 and timings.host > 0


def _subtrees(problem, device, slots=64):
    relaxation = Relaxation(problem.profits, problem.weights, problem.capacities)
    subtrees = Subtrees(
        device,
        relaxation.profits.astype(np.int64),
        relaxation.weights.astype(np.int64),
        problem.capacities.astype(np.int64),
        relaxation.tables(problem.capacities),
        slots,
        0,
    )
    subtrees.relaxation = relaxation
    return subtrees


def test_open_bound_is_the_largest_bound_of_a_busy_subtrees_root(device):
    """The kernel's bound of each root (the decisions above it), and the host's from the slots' packed
    state, against the relaxation's bound of that node computed directly."""
    problem = chu_beasley(40, 3, 0.5, seed=5)
    subtrees = _subtrees(problem, device)
    rng = np.random.default_rng(0)
    subtrees.depth[:] = -1
    expected = 0
    for slot in range(0, 64, 3):
        root = int(rng.integers(0, 41))
        taken = np.zeros(40, bool)
        for j in rng.permutation(root):  # items above the root, kept feasible
            if (subtrees.w[taken].sum(axis=0) + subtrees.w[j] <= subtrees.c).all():
                taken[j] = True
        subtrees.root[slot] = subtrees.depth[slot] = root
        subtrees.path[slot, 0] = np.uint64(int(np.dot(taken, 1 << np.arange(40, dtype=np.int64))))
        residual = subtrees.c - subtrees.w[taken].sum(axis=0)
        host = subtrees.relaxation.bounds(root, np.array([subtrees.p[taken].sum()]), residual[None, :])
        expected = max(expected, int(host[0]))
    assert subtrees.open_bound(subtrees.relaxation) == max(expected, subtrees.best)  # the kernel's
    subtrees.left_running = True  # a launch left running at the limit: the host's, the same
    assert subtrees.open_bound(subtrees.relaxation) == max(expected, subtrees.best)


def test_a_split_gives_the_branch_without_the_shallowest_item(device):
    """A walk at level 6 with items 1 and 3 taken above it, under a root at level 1: the taker gets the
    nodes without item 1 (root and node at level 2), the donor keeps those with it (root 2)."""
    subtrees = _subtrees(chu_beasley(10, 2, 0.5, seed=0), device)
    subtrees.root[0], subtrees.depth[0], subtrees.path[0, 0] = 1, 6, np.uint64(0b1011)  # item 0 is above the root
    assert subtrees.split(1) == 1
    taker = int(np.flatnonzero(subtrees.busy)[1])
    assert (subtrees.root[0], subtrees.depth[0], int(subtrees.path[0, 0])) == (2, 6, 0b1011)
    assert (subtrees.root[taker], subtrees.depth[taker], int(subtrees.path[taker, 0])) == (2, 2, 0b1)
    assert subtrees.split(5) == 1  # item 3 is the one 1 left below the root
    second = int(np.flatnonzero(subtrees.busy)[2])
    assert (subtrees.root[0], subtrees.depth[0]) == (4, 6)
    assert (subtrees.root[second], subtrees.depth[second], int(subtrees.path[second, 0])) == (4, 4, 0b0011)


def test_several_splits_of_one_subtree_take_its_shallowest_ones_in_order(device):
    """Items 2, 4, 5 and 7 taken below the root at level 1, the walk at level 9: three splits give the
    branches without 2, without 4 (with 2) and without 5 (with 2 and 4); the walk keeps 2, 4 and 5."""
    subtrees = _subtrees(chu_beasley(12, 2, 0.5, seed=0), device)
    subtrees.root[0], subtrees.depth[0], subtrees.path[0, 0] = 1, 9, np.uint64(0b10110101)
    assert subtrees.split(3) == 3
    made = sorted((int(subtrees.root[k]), int(subtrees.path[k, 0])) for k in np.flatnonzero(subtrees.busy)[1:])
    assert made == [(3, 0b1), (5, 0b101), (6, 0b10101)]
    assert (subtrees.root[0], subtrees.depth[0]) == (6, 9)


@settings(max_examples=20, deadline=None)
@given(problem=multidimensional(max_n=20, max_m=8))
def test_level_tables_hold_the_hosts_bounds(problem):
    """Level k's slice of the flat tables is the host's bound of level k."""
    relaxation = Relaxation(problem.profits, problem.weights, problem.capacities)
    tables = relaxation.tables(problem.capacities)
    for level in range(problem.n):
        begin, size = int(tables.start[level]), problem.n - level
        suffix = Suffix(
            tables.u[level],
            tables.surrogate[begin : begin + size],
            tables.profit_sums[begin : begin + size + 1],
            tables.weight_sums[begin : begin + size + 1],
        )
        residual = problem.capacities[None, :] // 2
        assert (
            suffix.bounds(np.zeros(1, np.int64), residual) == relaxation.levels[level].bounds(np.zeros(1, np.int64), residual)
        ).all()


@pytest.mark.parametrize("limit", [0.0, 0.05, 0.3])
def test_time_limit_is_kept_and_the_answer_brackets_the_optimum(limit, device):
    """A launch predicted to end past the limit is not started; the bound is the largest bound of a
    subtree left."""
    problem = chu_beasley(100, 10, 0.25, seed=1)
    clsolve.solve(problem, solver="mkp-dfs", device=device, time_limit=1.0)  # the kernel built and run once
    settle_left_work()  # its first launch may still compile (PoCL): the next call would wait for it
    began = time.perf_counter()
    solution = clsolve.solve(problem, solver="mkp-dfs", device=device, time_limit=limit)
    assert time.perf_counter() - began <= limit + max(0.1 * limit, 0.05)
    assert not solution.optimal and solution.value <= solution.bound
    small = hard_mkp()
    stopped = clsolve.solve(small, solver="mkp-dfs", device=device, slots=64, time_limit=0.0, host_nodes=0)
    assert stopped.value <= hard_mkp_optimum() <= stopped.bound


def test_a_limit_that_passes_while_the_kernel_is_built_returns_the_greedy_answer(device):
    problem = chu_beasley(30, 7, 0.5, seed=2)  # m = 7: a build of its own
    clsolve.runtime.kernels.forget(device)
    solution = clsolve.solve(problem, solver="mkp-dfs", device=device, time_limit=0.0, host_nodes=0)
    assert not solution.optimal and solution.value <= solution.bound
    assert any("kernel was built" in note for note in solution.notes) or solution.stats["batches"] == 0


def test_refusals_name_the_reason(device):
    with pytest.raises(clsolve.UnsupportedProblemError, match="m >= 2"):
        clsolve.solve(clsolve.Knapsack([3, 4], [2, 3], 4), solver="mkp-dfs", device=device)
    problem = clsolve.Knapsack([2**61, 2**61, 5], [[1, 1], [1, 1], [1, 1]], [2, 2], weights_by="item")
    with pytest.raises(clsolve.UnsupportedProblemError, match="2\\^62"):
        clsolve.solve(problem, solver="mkp-dfs", device=device)
    many = clsolve.Knapsack(np.ones(2**15 + 1, np.int64), np.ones((2**15 + 1, 2), np.int64), [5, 5], weights_by="item")
    with pytest.raises(clsolve.UnsupportedProblemError, match="at most 32768 items"):
        clsolve.solve(many, solver="mkp-dfs", device=device)


def test_plan_counts_the_level_tables_and_the_slots(device):
    problem = hard_mkp(30, 3)
    plan = clsolve.plan(problem, solver="mkp-dfs", device=device, slots=100)
    assert plan.details["slots"] == 128 and plan.device_buffers["level bounds"] > 0
    assert plan.device_buffers["subtrees"] == 128 * (16 + 24) + 4  # and the one shared best value
