"""Anytime answers, time limits, wrong types, ambiguous weights, host budgets and signals: each case
guards against a crash, a hang or a broken promise."""

from __future__ import annotations

import math
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pyopencl as cl
import pytest

import clsolve
from clsolve import solving
from clsolve.generators import jooken
from clsolve.io import formats
from clsolve.plugin import checked, registry
from clsolve.problems import TSP
from clsolve.runtime import deadline, kernels
from clsolve.runtime.deadline import Deadline
from clsolve.runtime.devices import all_devices, is_simulator, settle_left_work

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
    problem = jooken(int(rng.choice([200, 400])), 10**10, int(rng.choice([10, 14])), 0.2, float(rng.choice([0, 1e-4])), 100, seed)
    for limit in (0.0, 0.05, 0.2):
        solution = clsolve.solve(problem, solver="bnb", device=device, time_limit=limit)
        assert solution.value == int(problem.profits[solution.selected].sum())
        if not solution.optimal:
            assert solution.bound >= solution.value and any("time limit" in n for n in solution.notes)


@pytest.mark.parametrize("solver", ["sequential", "dp-rows", "dp-batch", "mckp", "wavefront"])
def test_dp_solvers_keep_the_time_limit(device, solver, monkeypatch):
    """The stops inside a run (the pacer's, the host's blocks): the engine's refusal to start a plan
    far past the limit (``Deadline.hopeless``) is switched off here."""
    monkeypatch.setattr(deadline, "HOPELESS_FACTOR", math.inf)
    registry.solver_classes()  # a process's first call imports the plugins before its clock starts
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
        settle_left_work()  # a call waits for what an earlier one left running (a build) before its clock starts
        began = time.perf_counter()
        try:
            clsolve.solve(problem, solver=solver, device=device, time_limit=limit)
        except clsolve.TimeLimitError as exc:
            assert "no answer was found in time" in str(exc)
        assert _within_margin(time.perf_counter() - began, limit)


@pytest.mark.parametrize("solver", ["sequential", "dp-rows", "dp-batch", "mckp", "wavefront"])
def test_a_dp_whose_plan_is_far_past_the_limit_does_not_start(device, solver, monkeypatch):
    """No answer comes before a DP's end: one whose estimate is far past the time left raises at once,
    before it allocates (here: its ``solve`` is never called); an anytime solver answers instead."""
    rng = np.random.default_rng(2)
    profits, weights = rng.integers(1, 1000, 1000), rng.integers(1, 1000, 1000)
    problem = clsolve.Knapsack(profits, weights, 20_000)
    for scale in (1, 10, 100, 1000):  # an estimate of 0.4 s or more, where one fits
        try:
            heavier = weights * scale + rng.integers(0, scale, weights.size)  # no common divisor
            bigger = clsolve.Knapsack(profits, heavier, int(heavier.sum()) // 2)
            if clsolve.plan(bigger, solver, device).seconds >= 0.4:
                problem = bigger
                break
        except clsolve.DoesNotFitError:
            break
    estimate = clsolve.plan(problem, solver, device).seconds
    monkeypatch.setattr(registry.solver_classes()[solver], "solve", lambda *args: pytest.fail("started"))
    for limit in (0.0, 0.05) if estimate >= 0.4 else (0.0,):
        began = time.perf_counter()
        with pytest.raises(clsolve.TimeLimitError, match="not started: its plan's estimate"):
            clsolve.solve(problem, solver=solver, device=device, time_limit=limit)
        assert _within_margin(time.perf_counter() - began, limit)
    assert clsolve.solve(problem, solver="bnb", device=device, time_limit=0.0).value >= 0


def test_a_pruned_dense_dp_keeps_the_time_limit(device):
    """class A's a33 through dp-rows' reduced-cost fixing and pruned passes (the shipped example):
    within a short limit it answers optimally or stops with no answer, in time either way."""
    problem = clsolve.examples.load("a33")
    clsolve.solve(problem, solver="dp-rows", device=device)  # builds the kernels
    assert clsolve.plan(problem, "dp-rows", device).details["pruning"]
    for limit in (0.05, 0.3):
        fresh = clsolve.examples.load("a33")  # read before the clock starts: the limit is the solve's
        settle_left_work()  # what the call before left running, waited for before a call's clock
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
    with pytest.raises(clsolve.BatchError) as raised:
        clsolve.solve_many(problems, solver="dp-rows", device=device, time_limit=0.2)
    assert _within_margin(time.perf_counter() - began, 0.2)
    assert raised.value.failures and all(isinstance(e, clsolve.TimeLimitError) for e in raised.value.failures.values())
    assert all((s is None) == (i in raised.value.failures) for i, s in enumerate(raised.value.solutions))
    with pytest.raises(clsolve.InvalidOptionError, match="time_limit"):
        clsolve.solve_many(problems, device="all", time_limit=float("nan"))


def _kept_batch(rng) -> tuple[list, int]:
    """Three easy knapsacks and, at index 2, one past what a dense DP holds (2^32 states) or fits."""
    easy = [clsolve.Knapsack(rng.integers(1, 100, 30), rng.integers(1, 100, 30), 500, name=f"easy{k}") for k in range(3)]
    weights = rng.integers(10**6, 10**7, 3000)
    huge = clsolve.Knapsack(weights + 100, weights, int(weights.sum()) // 2, name="huge")
    return easy[:2] + [huge] + easy[2:], 2


@pytest.mark.parametrize("solver", ["dp-rows", "dp-batch"])
def test_a_batch_keeps_every_answer_beside_a_problem_it_refuses(device, solver):
    problems, refused = _kept_batch(np.random.default_rng(5))
    with pytest.raises(clsolve.BatchError) as raised:
        clsolve.solve_many(problems, solver=solver, device=device)
    assert list(raised.value.failures) == [refused]
    assert isinstance(raised.value.failures[refused], (clsolve.DoesNotFitError, clsolve.UnsupportedProblemError))
    assert str(raised.value.failures[refused]).startswith(f"problem {refused} (huge")
    for i, solution in enumerate(raised.value.solutions):
        if i != refused:
            expected = clsolve.solve(problems[i], solver="sequential").value
            assert solution.optimal and solution.value == expected


def test_a_batch_under_a_limit_answers_every_problem_it_can_in_time(device):
    """A hard problem among easy ones: the easy ones are answered, the hard one by an anytime solver with
    its proven bound (or its own TimeLimitError), and the call keeps the limit."""
    rng = np.random.default_rng(7)
    problems, hard = _kept_batch(rng)
    clsolve.solve_many([problems[0], problems[1]], device=device)  # kernels built beforehand
    limit = 1.0
    began = time.perf_counter()
    try:
        solutions = clsolve.solve_many(problems, device=device, time_limit=limit)
    except clsolve.BatchError as exc:
        assert list(exc.failures) == [hard] and isinstance(exc.failures[hard], clsolve.TimeLimitError)
        solutions = exc.solutions
    assert _within_margin(time.perf_counter() - began, limit)
    for i, solution in enumerate(solutions):
        if i != hard:
            assert solution.optimal and solution.value == clsolve.solve(problems[i], solver="sequential").value
        elif solution is not None:
            assert solution.bound is not None and solution.bound >= solution.value


def test_a_call_error_is_raised_for_the_whole_batch(device):
    problems, _ = _kept_batch(np.random.default_rng(5))
    with pytest.raises(clsolve.InvalidOptionError):
        clsolve.solve_many(problems, solver="dp-rows", device=device, no_such_option=1)


@pytest.mark.parametrize("bad", [float("nan"), -1, "1", True, float("inf")])
def test_bad_time_limits_are_refused(bad):
    with pytest.raises(clsolve.InvalidOptionError, match="time_limit"):
        clsolve.solve(clsolve.Knapsack([1], [1], 1), solver="sequential", time_limit=bad)


@pytest.mark.parametrize(
    "value, message",
    [
        (None, "expected a problem"),
        ({}, "expected a problem"),
        (5, "expected a problem"),
        ("kp.json", "expected a problem"),
    ],
)
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


@pytest.mark.parametrize(
    "options, name",
    [
        ({"local_size": 0}, "local_size"),
        ({"local_size": 1.5}, "local_size"),
        ({"local_size": 48}, "local_size"),
        ({"value_bits": True}, "value_bits"),
        ({"presolve": "no"}, "presolve"),
    ],
)
def test_bad_option_values_are_refused(options, name):
    with pytest.raises(clsolve.InvalidOptionError, match=name):
        clsolve.solve(clsolve.Knapsack([1], [1], 1), solver="dp-rows", **options)


@pytest.mark.parametrize(
    "options, name",
    [
        ({"memory_limit": float("nan")}, "memory_limit"),
        ({"dominance_max_nodes": -1}, "dominance_max_nodes"),
        ({"max_nodes": 2}, "max_nodes"),
        ({"host_threshold": 1.5}, "host_threshold"),
    ],
)
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
    solution = clsolve.solve(problem, solver="bnb", device=device, memory_limit=2**20, host_threshold=10**9, time_limit=30)
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
    process = subprocess.Popen(
        [sys.executable, "-m", "clsolve.cli", "solve", str(path), "--solver", "sequential"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
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
    solution = clsolve.solve(problem, solver="bnb", device=device, host_threshold=0, fixing=False, time_limit=0.1)
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


def _slow_builds(monkeypatch, seconds: float = 0.5) -> None:
    """Every program built again inside the call, by a compiler that takes ``seconds`` more."""
    monkeypatch.setattr(kernels, "_programs", {})
    build = kernels._build
    monkeypatch.setattr(kernels, "_build", lambda *args: (time.sleep(seconds), build(*args))[1])


def test_mkp_batch_answers_when_the_limit_passes_while_its_kernels_build(device, monkeypatch):
    """The issue's reproducer: the host's greedy answer and surrogate bound, never TimeLimitError."""
    _slow_builds(monkeypatch)
    problems = [clsolve.Knapsack([10, 40, 30, 50], [[5, 1], [4, 2], [6, 3], [3, 4]], [10, 6])] * 3
    for limit in (0.0, 0.01, 0.1):
        settle_left_work()  # what the call before left running, waited for before a call's clock
        began = time.perf_counter()
        solutions = clsolve.solve_many(problems, solver="mkp-batch", device=device, time_limit=limit)
        assert _within_margin(time.perf_counter() - began, limit)
        for solution in solutions:  # the engine checked each: feasible, value = its items' profit
            assert solution.value <= 90 and (solution.optimal or solution.bound >= 90)


def test_mkp_batch_answers_when_the_limit_passes_during_a_first_launch(device, monkeypatch):
    """A launch that has not ended at the limit (PoCL compiles a kernel at its first launch) is not
    waited for: the host's answers come in time, and the device stays usable."""
    from clsolve.runtime import deadline

    monkeypatch.setattr(deadline, "finished", lambda *args, **kwargs: False)
    problems = [clsolve.Knapsack([10, 40, 30, 50], [[5, 1], [4, 2], [6, 3], [3, 4]], [10, 6])] * 2
    solutions = clsolve.solve_many(problems, solver="mkp-batch", device=device, time_limit=0.5)
    assert all(not s.optimal or s.value == 90 for s in solutions)
    monkeypatch.undo()
    assert [s.value for s in clsolve.solve_many(problems, solver="mkp-batch", device=device)] == [90, 90]


def test_dp_states_answers_when_the_limit_passes_while_its_kernels_build(device, monkeypatch):
    """The issue's reproducer: the lists go on on the host, and the search stops with its incumbent."""
    _slow_builds(monkeypatch)
    w = np.random.default_rng(1).integers(1, 1001, 100)
    problem = clsolve.Knapsack(w + 100, w, int(w.sum()) // 2)
    for limit in (0.01, 0.1):
        settle_left_work()  # what the call before left running, waited for before a call's clock
        began = time.perf_counter()
        solution = clsolve.solve(problem, solver="dp-states", device=device, host_states=0, time_limit=limit)
        assert _within_margin(time.perf_counter() - began, limit)
        assert solution.optimal or solution.bound >= solution.value


@pytest.mark.parametrize(
    "make, error, words",
    [
        (lambda: clsolve.LCS("ab\udc80", "abc"), clsolve.InvalidProblemError, "a: position 2 .* lone surrogate"),
        (lambda: clsolve.LCS("ab", "ab", name="x\ud800"), clsolve.InvalidProblemError, "name: position 1"),
        (lambda: clsolve.Knapsack([1], [1], 1, name="\udfff"), clsolve.InvalidProblemError, "name: position 0"),
        (
            lambda: clsolve.solve(clsolve.LCS("abc", "abd"), solver="wavefront", device_memory_limit="abc"),
            clsolve.InvalidOptionError,
            "device_memory_limit",
        ),
        (
            lambda: clsolve.solve(clsolve.Knapsack([2**40, 3], [1, 2], 2), solver="dp-rows", value_bits=32),
            clsolve.InvalidOptionError,
            "value_bits=32 cannot hold",
        ),
        (
            lambda: clsolve.solve(clsolve.Knapsack([2**40, 3], [1, 2], 2), solver="mckp", value_bits=32),
            clsolve.InvalidOptionError,
            "value_bits=32 cannot hold",
        ),
        (
            lambda: clsolve.solve_many([clsolve.Knapsack([2, 3], [1, 2], 2)] * 2, solver="dp-batch", memory_limit=float("nan")),
            clsolve.InvalidOptionError,
            "memory_limit",
        ),
        (
            lambda: clsolve.solve(clsolve.Knapsack([2, 3], [1, 2], 2), host_memory_limit=0),
            clsolve.InvalidOptionError,
            "host_memory_limit",
        ),
        (
            lambda: clsolve.solve(clsolve.Knapsack([2, 3], [1, 2], 2), host_memory_limit=1.5),
            clsolve.InvalidOptionError,
            "host_memory_limit",
        ),
    ],
)
def test_the_last_hostile_inputs_end_in_clsolve_errors(device, make, error, words):
    with pytest.raises(error, match=words):
        make()


def test_a_json_file_with_a_lone_surrogate_is_a_format_error(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"kind": "lcs", "a": "ab\\udc80", "b": "abc"}')
    with pytest.raises(clsolve.FormatError, match="lone surrogate"):
        formats.read(path)
    done = subprocess.run([sys.executable, "-m", "clsolve", "solve", str(path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "lone surrogate" in done.stderr and "Traceback" not in done.stderr


def test_a_plan_counts_the_host_memory_it_takes_against_the_budget(device):
    """On a device whose memory is the host's (PoCL's CPU device), the device buffers are host memory:
    a dense DP that passes the budget is refused before anything is allocated, with the numbers;
    ``host_memory_limit`` sets the budget (default: half of what is available)."""
    rng = np.random.default_rng(0)
    problem = clsolve.Knapsack(rng.integers(1, 1000, 300), rng.integers(1, 1000, (300, 2)), [6000, 6000], weights_by="item")
    options = {"fixing": False, "store": "host"}  # the decision rows in host memory on every device
    plan = clsolve.plan(problem, solver="dp-rows", device=device, **options)
    taken = sum(plan.host_memory(device).values())
    assert taken == plan.host_bytes + (plan.device_bytes if device.shares_host_memory else 0) and plan.host_bytes
    assert clsolve.plan(problem, solver="dp-rows", device=device, host_memory_limit=taken + 1, **options)
    with pytest.raises(clsolve.DoesNotFitError, match=r"host_memory_limit"):
        clsolve.solve(problem, solver="dp-rows", device=device, host_memory_limit=taken // 2, **options)
    chosen = clsolve.plan(problem, solver="auto", device=device, host_memory_limit=2**24)
    assert sum(chosen.host_memory(device).values()) <= 2**24


def test_the_cli_takes_a_host_memory_limit(tmp_path):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "clsolve",
            "solve",
            "--example",
            "a33",
            "--solver",
            "dp-rows",
            "--option",
            "fixing=false",
            "--option",
            "store=host",
            "--host-memory-limit",
            "1K",
            "--plan",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 3 and "host_memory_limit" in done.stderr + done.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "clsolve", "solve", "--example", "a33", "--host-memory-limit", "lots"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert bad.returncode == 2 and "8G or 500M" in bad.stderr


def test_a_quick_search_runs_before_its_fallback_is_planned(device, monkeypatch):
    """``auto`` with a search estimated under AUTO_QUICK_SECONDS leaves the DP to fall back on unplanned
    (LATER) and runs the search first; a search that has not proved its answer within
    AUTO_SEARCH_SECONDS gives way to the fallback planned then (the solver ``auto`` now picks, where
    that is a DP), and the answer is the DP's optimum."""
    rng = np.random.default_rng(11)
    weights = rng.integers(1, 11, (56, 3))
    problem = clsolve.Knapsack(weights[:, 0], weights, [129, 160, 164], weights_by="item")
    search = registry.load("mkp-dfs")
    plan = checked.planned(search, problem, device)
    plan.seconds = solving.AUTO_QUICK_SECONDS / 2  # as quick as its estimate could say
    handed = solving._solve_auto(problem, (search, device, plan), solving.LATER, {}, device)
    assert handed.optimal and not registry.load(handed.solver).anytime
    assert any("had not proved its answer after 0.1 s" in note for note in handed.notes)
    assert handed.value == clsolve.solve(problem, solver="dp-rows", device=device).value
    assert solving._choices(problem, device)[1] != solving.LATER  # only ``auto``'s own solve defers
    dp = registry.load("dp-rows")
    monkeypatch.setattr(solving, "_choices", lambda p, d, quick=False: ((dp, device, checked.planned(dp, p, d)), None))
    handed = solving._solve_auto(problem, (search, device, plan), solving.LATER, {}, device)  # the DP is best now
    assert handed.optimal and handed.solver == "dp-rows"


def test_auto_gives_an_unproved_search_over_to_a_dp_that_ends(device):
    """A subset-sum KP3 (n = 56) whose surrogate bound stays one above the optimum: the searches walk an
    exponential tree, a DP over its 3.5e6 states ends in a second. ``auto``, which picks a search by
    its estimate, hands over to the DP once the search has had twice the DP's estimate: it returns the
    proved optimum without a time limit. Where this device's DP estimate is already the smallest (a
    GPU), the hand-over is driven from ``mkp-dfs`` directly."""
    rng = np.random.default_rng(11)
    weights = rng.integers(1, 11, (56, 3))
    problem = clsolve.Knapsack(weights[:, 0], weights, [129, 160, 164], weights_by="item")
    assert not clsolve.solve(problem, solver="mkp-dfs", device=device, time_limit=0.5).optimal
    chosen, fallback = solving._choices(problem, device)
    if not chosen[0].anytime:
        search = registry.load("mkp-dfs")
        chosen, fallback = (search, device, checked.planned(search, problem, device)), chosen
    assert fallback is not None and not fallback[0].anytime
    handed = solving._solve_auto(problem, chosen, fallback, {})
    assert handed.optimal and handed.solver == fallback[0].name
    assert any("had not proved its answer" in note for note in handed.notes)
    began = time.perf_counter()
    solution = clsolve.solve(problem, device=device)
    assert solution.optimal and time.perf_counter() - began < 60
    assert solution.value == clsolve.solve(problem, solver="dp-rows", device=device).value
    many = clsolve.solve_many([problem, problem], device=device)
    assert all(s.optimal and s.value == solution.value for s in many)
