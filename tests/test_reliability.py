"""Anytime answers, time limits, wrong types, ambiguous weights, host budgets and signals: each case
guards against a crash, a hang or a broken promise."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pyopencl as cl
import pytest

import clsolve
from clsolve.generators import jooken
from clsolve.io import formats
from clsolve.problems import TSP
from clsolve.runtime import kernels
from clsolve.runtime.deadline import Deadline
from clsolve.runtime.devices import all_devices, is_simulator

REGRESSION = "kp01/jooken-dev/n_1000_c_10000000000_g_10_f_0.2_eps_0.001_s_200.in"


def _within_margin(seconds: float, limit: float) -> bool:
    return seconds <= limit + Deadline(limit).margin


def test_bnb_anytime_answer_on_the_regression_instance(device, data):
    path = data / REGRESSION
    if not path.exists():
        pytest.skip("regression instance not in the data folder")
    problem = formats.read(path)[0]
    clsolve.solve(jooken(40, 10**6, 10, 0.2, 0, 100), solver="bnb", device=device, host_threshold=0)  # kernels
    began = time.perf_counter()
    solution = clsolve.solve(problem, solver="bnb", device=device, time_limit=1.0)  # checked by the engine
    assert _within_margin(time.perf_counter() - began, 1.0)
    assert solution.bound is None if solution.optimal else solution.bound >= solution.value


@pytest.mark.parametrize("seed", range(6))
def test_bnb_value_items_and_bound_agree_when_stopped_early(device, seed):
    clsolve.solve(jooken(40, 10**6, 10, 0.2, 0, 100), solver="bnb", device=device, host_threshold=0)  # kernels
    rng = np.random.default_rng(seed)
    problem = jooken(int(rng.choice([200, 400])), 10**10, int(rng.choice([10, 14])), 0.2,
                     float(rng.choice([0, 1e-4])), 100, seed)
    for limit in (0.0, 0.05, 0.2):
        solution = clsolve.solve(problem, solver="bnb", device=device, time_limit=limit)
        assert solution.value == int(problem.profits[solution.selected].sum())
        if not solution.optimal:
            assert solution.bound >= solution.value and any("time limit" in n for n in solution.notes)


@pytest.mark.parametrize("solver", ["sequential", "dp-rows", "dp-batch", "mckp", "wavefront"])
def test_dp_solvers_keep_the_time_limit(device, solver):
    rng = np.random.default_rng(0)
    capacity = 4_000_000 if device.is_gpu and solver != "sequential" else 400_000
    problem = clsolve.Knapsack(rng.integers(1, 1000, 3000), rng.integers(1, 1000, 3000), capacity)
    # a first launch can compile its kernel inside the OpenCL runtime (PoCL does), which no limit can
    # interrupt: warm up on the same capacity, then time
    # (items heavy enough that not all fit: a knapsack presolve settles alone runs no kernel)
    warm = clsolve.Knapsack(problem.profits[:20], problem.weights[:20] + capacity // 20, capacity)
    if solver not in ("sequential", "wavefront"):
        clsolve.solve(warm, solver=solver, device=device, presolve=False)
    elif solver == "wavefront":
        clsolve.solve(warm, solver=solver, device=device)
    for limit in (0.05, 0.3):
        began = time.perf_counter()
        try:
            clsolve.solve(problem, solver=solver, device=device, time_limit=limit)
        except clsolve.TimeLimitError as exc:
            assert "no answer was found in time" in str(exc)
        assert _within_margin(time.perf_counter() - began, limit)


def test_a_pruned_dense_dp_keeps_the_time_limit(device):
    """class A's a33 through dp-rows' reduced-cost fixing and pruned passes (the shipped example):
    within a short limit it answers optimally or stops with no answer, in time either way."""
    problem = clsolve.examples.load("a33")
    clsolve.solve(problem, solver="dp-rows", device=device)   # builds the kernels
    assert clsolve.plan(problem, "dp-rows", device).details["pruning"]
    for limit in (0.05, 0.3):
        fresh = clsolve.examples.load("a33")   # read before the clock starts: the limit is the solve's
        began = time.perf_counter()
        try:
            solution = clsolve.solve(fresh, solver="dp-rows", device=device, time_limit=limit)
            assert solution.optimal and solution.value == 3050317
        except clsolve.TimeLimitError as exc:
            assert "no answer was found in time" in str(exc)
        assert _within_margin(time.perf_counter() - began, limit)


def test_solve_many_keeps_one_limit_for_the_batch(device):
    rng = np.random.default_rng(1)
    small = [clsolve.Knapsack(rng.integers(1, 1000, 400), rng.integers(1, 1000, 400), 60_000) for _ in range(2)]
    clsolve.solve_many(small, solver="dp-rows", device=device)  # builds the kernels the batch runs
    problems = [clsolve.Knapsack(rng.integers(1, 1000, 2000), rng.integers(1, 1000, 2000), 300_000) for _ in range(80)]
    began = time.perf_counter()
    with pytest.raises(clsolve.TimeLimitError):
        clsolve.solve_many(problems, solver="dp-rows", device=device, time_limit=0.2)
    assert _within_margin(time.perf_counter() - began, 0.2)
    with pytest.raises(clsolve.InvalidOptionError, match="time_limit"):
        clsolve.solve_many(problems, device="all", time_limit=float("nan"))


@pytest.mark.parametrize("bad", [float("nan"), -1, "1", True, float("inf")])
def test_bad_time_limits_are_refused(bad):
    with pytest.raises(clsolve.InvalidOptionError, match="time_limit"):
        clsolve.solve(clsolve.Knapsack([1], [1], 1), solver="sequential", time_limit=bad)


@pytest.mark.parametrize("value, message", [
    (None, "expected a problem"), ({}, "expected a problem"), (5, "expected a problem"),
    ("kp.json", "expected a problem"),
])
def test_solve_refuses_what_is_not_a_problem(value, message):
    with pytest.raises(clsolve.InvalidProblemError, match=message):
        clsolve.solve(value)


def test_a_list_given_to_solve_points_to_solve_many():
    p = clsolve.Knapsack([1, 2], [1, 1], 1)
    with pytest.raises(clsolve.InvalidProblemError, match="solve_many"):
        clsolve.solve([p, p])
    with pytest.raises(clsolve.InvalidProblemError, match="use clsolve.solve"):
        clsolve.solve_many(p)
    with pytest.raises(clsolve.InvalidProblemError, match=r"problems\[1\]"):
        clsolve.solve_many([p, None])


def test_pyopencl_devices_and_contexts_work_as_devices(device):
    p = clsolve.Knapsack([10, 40, 30, 50], [5, 4, 6, 3], 10)
    assert clsolve.solve(p, solver="dp-rows", device=device.cl_device).value == 90
    assert clsolve.solve(p, solver="dp-rows", device=cl.Context([device.cl_device])).value == 90
    for bad in (5, 1.5, object()):
        with pytest.raises(clsolve.DeviceNotFoundError, match="device must be"):
            clsolve.solve(p, solver="dp-rows", device=bad)


@pytest.mark.parametrize("options, name", [
    ({"local_size": 0}, "local_size"), ({"local_size": 1.5}, "local_size"), ({"local_size": 48}, "local_size"),
    ({"value_bits": True}, "value_bits"), ({"presolve": "no"}, "presolve"),
])
def test_bad_option_values_are_refused(options, name):
    with pytest.raises(clsolve.InvalidOptionError, match=name):
        clsolve.solve(clsolve.Knapsack([1], [1], 1), solver="dp-rows", **options)


@pytest.mark.parametrize("options, name", [
    ({"memory_limit": float("nan")}, "memory_limit"), ({"dominance_max_nodes": -1}, "dominance_max_nodes"),
    ({"max_nodes": 2}, "max_nodes"), ({"host_threshold": 1.5}, "host_threshold"),
])
def test_bad_bnb_options_are_refused(options, name):
    with pytest.raises(clsolve.InvalidOptionError, match=name):
        clsolve.solve(clsolve.Knapsack([1], [1], 1), solver="bnb", **options)


def test_square_weights_need_weights_by():
    with pytest.raises(clsolve.InvalidProblemError, match="weights_by"):
        clsolve.Knapsack([10, 40], [[5, 4], [1, 1]], [10, 2])
    by_item = clsolve.Knapsack([10, 40], [[5, 4], [1, 1]], [10, 2], weights_by="item")
    by_dimension = clsolve.Knapsack([10, 40], [[5, 4], [1, 1]], [10, 2], weights_by="dimension")
    assert by_item.weights.tolist() == [[5, 4], [1, 1]] and by_dimension.weights.tolist() == [[5, 1], [4, 1]]
    assert clsolve.Knapsack([1, 2, 3], [[1, 2, 3], [4, 5, 6]], [3, 9], weights_by="dimension").weights.shape == (3, 2)
    with pytest.raises(clsolve.InvalidProblemError, match="weights_by='dimension'"):
        clsolve.Knapsack([1, 2, 3], [[1, 2, 3], [4, 5, 6]], [3, 9])


def test_host_held_karp_takes_huge_costs():
    problem = TSP([[0, 2**62, 1], [1, 0, 1], [1, 1, 0]])
    for solver in ("sequential", "auto"):
        assert clsolve.solve(problem, solver=solver).value == 3


def test_bnb_small_node_limit_finishes():
    rng = np.random.default_rng(56)
    weights = rng.integers(1, 100, 56)
    problem = clsolve.Knapsack(weights + 10, weights, 1270)
    expected = clsolve.solve(problem, solver="sequential").value
    began = time.perf_counter()
    solution = clsolve.solve(problem, solver="bnb", device="auto", host_threshold=0, max_nodes=256, time_limit=20)
    assert solution.value == expected or not solution.optimal
    assert time.perf_counter() - began < 22


def test_dp_batch_solves_what_presolve_makes_trivial(device):
    problem = clsolve.Knapsack([1, 2], [1, 1], 10**12)
    assert clsolve.solve(problem, solver="dp-batch", device=device).value == 3
    assert [s.value for s in clsolve.solve_many([problem] * 3, solver="dp-batch", device=device)] == [3, 3, 3]


def test_bnb_stays_within_its_host_memory_budget(device):
    problem = jooken(400, 10**10, 10, 0.2, 0, 100, seed=100)
    solution = clsolve.solve(problem, solver="bnb", device=device, memory_limit=2**20, host_threshold=10**9,
                             time_limit=30)
    assert not solution.optimal and any("host memory budget" in note for note in solution.notes)
    assert solution.bound >= solution.value


def test_simulators_are_taken_only_when_named():
    simulators = [d for d in all_devices() if is_simulator(d)]
    if not simulators:
        pytest.skip("no simulator platform (oclgrind) installed")
    for spec in ("auto", "cpu", "gpu"):
        try:
            assert not is_simulator(clsolve.get_device(spec))
        except clsolve.DeviceNotFoundError:
            assert spec == "gpu"
    assert is_simulator(clsolve.get_device("oclgrind"))
    from clsolve.scaleout import multidevice
    assert not any(is_simulator(d) for d in multidevice.resolve("all")[0])  # device="all": real GPUs only
    assert not any(d.is_gpu for d in simulators)


@pytest.mark.parametrize("sig, code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_cli_stops_cleanly_on_signals(tmp_path, sig, code):
    rng = np.random.default_rng(3)
    path = tmp_path / "big.json"
    n = 20000
    profits, weights = rng.integers(1, 1000, n).tolist(), rng.integers(1, 1000, n).tolist()
    path.write_text(f'{{"profits": {profits}, "weights": {weights}, "capacities": 3000000}}')
    env = dict(os.environ)
    # the CLI as a shell's foreground job has it: where the tests run as a background job, SIGINT is
    # ignored, which the child would inherit (and rightly ignore)
    process = subprocess.Popen([sys.executable, "-m", "clsolve.cli", "solve", str(path), "--solver", "sequential"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(4)
    process.send_signal(sig)
    try:
        _, err = process.communicate(timeout=10)
    finally:
        process.kill()
    assert process.returncode == code, err


def test_bnb_answers_when_the_limit_passes_during_its_first_kernel_build(device, monkeypatch):
    problem = jooken(400, 10**10, 10, 0.2, 0, 100, seed=3)
    monkeypatch.setattr(kernels, "_programs", {})  # every program is built again inside the call
    build = kernels._build
    monkeypatch.setattr(kernels, "_build", lambda *args: (time.sleep(0.5), build(*args))[1])  # a slow compiler
    solution = clsolve.solve(problem, solver="bnb", device=device, host_threshold=0, fixing=False,
                             time_limit=0.1)
    assert not solution.optimal and solution.bound >= solution.value
    assert solution.value == int(problem.profits[solution.selected].sum())


@pytest.mark.parametrize("n, g, eps", [(400, 14, 0.0), (800, 10, 1e-4), (1200, 14, 1e-4)])
def test_bnb_keeps_a_one_second_limit_on_the_hard_family(device, n, g, eps):
    """A sample of ``ci/time_limits.py``'s family (c = 1e10), which runs all 40 at 1, 3 and 7 s."""
    clsolve.solve(jooken(40, 10**6, 10, 0.2, 0, 100), solver="bnb", device=device, host_threshold=0)  # kernels
    problem = jooken(n, 10**10, g, 0.2, eps, 100, seed=n)
    began = time.perf_counter()
    solution = clsolve.solve(problem, solver="bnb", device=device, time_limit=1.0)
    assert _within_margin(time.perf_counter() - began, 1.0)
    assert solution.optimal or solution.bound >= solution.value
