"""Faults under a solve: an allocation the runtime refuses mid-run, a device whose context is lost, a
Ctrl-C during a long solve, and several threads solving on one device at once. Each ends in a clear
clsolve error or a right answer, and the device stays usable afterwards."""

from __future__ import annotations

import _thread
import signal
import threading

import numpy as np
import pyopencl as cl
import pytest
from pyopencl import _cl

import clsolve
from clsolve.problems import LCS, TSP
from clsolve.runtime import failures

DEVICE_SOLVERS = ["dp-rows", "dp-batch", "mckp", "bnb", "dp-states", "wavefront"]


def _problem(solver: str):
    rng = np.random.default_rng(5)
    if solver in ("bnb", "dp-states"):
        return clsolve.Knapsack(rng.integers(50, 100, 300), rng.integers(40, 90, 300), 3000)
    return clsolve.Knapsack(rng.integers(1, 100, 60), rng.integers(1, 60, 60), 900)


class _FailingBuffers:
    """``pyopencl.Buffer`` that refuses the ``fail_at``-th allocation as a device out of memory would."""

    def __init__(self, fail_at: int):
        self.real, self.fail_at, self.calls = cl.Buffer, fail_at, 0

    def __call__(self, *args, **kwargs):
        self.calls += 1
        if self.calls == self.fail_at:
            raise cl.MemoryError(_cl._ErrorRecord("clCreateBuffer failed: MEM_OBJECT_ALLOCATION_FAILURE", -4, "clCreateBuffer"))
        return self.real(*args, **kwargs)


@pytest.mark.parametrize("solver", DEVICE_SOLVERS)
def test_an_allocation_refused_mid_run_is_a_clear_error(device, solver, monkeypatch):
    problem = _problem(solver)
    options = {"bnb": {"host_threshold": 0, "fixing": False}, "dp-states": {"fixing": False, "host_states": 0}}.get(solver, {})
    expected = clsolve.solve(problem, solver=solver, device=device, **options).value  # kernels built
    monkeypatch.setattr(cl, "Buffer", _FailingBuffers(fail_at=3))
    with pytest.raises(clsolve.DeviceError, match="MEM_OBJECT_ALLOCATION_FAILURE.*still usable") as raised:
        clsolve.solve(problem, solver=solver, device=device, **options)
    assert raised.value.code == "MEM_OBJECT_ALLOCATION_FAILURE" and not raised.value.reset
    monkeypatch.undo()
    assert clsolve.solve(problem, solver=solver, device=device, **options).value == expected


def test_an_allocation_refused_in_a_batch_is_a_clear_error(device, monkeypatch):
    problems = [_problem("dp-batch")] * 4
    expected = [s.value for s in clsolve.solve_many(problems, solver="dp-batch", device=device)]
    monkeypatch.setattr(cl, "Buffer", _FailingBuffers(fail_at=2))
    with pytest.raises(clsolve.DeviceError, match="solve_many with dp-batch"):
        clsolve.solve_many(problems, solver="dp-batch", device=device)
    monkeypatch.undo()
    assert [s.value for s in clsolve.solve_many(problems, solver="dp-batch", device=device)] == expected


def test_a_lost_context_is_replaced(device, monkeypatch):
    problem = _problem("dp-rows")
    expected = clsolve.solve(problem, solver="dp-rows", device=device).value
    old_context = device.context
    monkeypatch.setattr(cl, "Buffer", _FailingBuffers(fail_at=1))
    monkeypatch.setattr(failures, "_usable", lambda dev: False)  # as after a crashed kernel
    with pytest.raises(clsolve.DeviceError, match="context was lost and has been replaced") as raised:
        clsolve.solve(problem, solver="dp-rows", device=device)
    assert raised.value.reset
    monkeypatch.undo()
    assert device.context is not old_context
    assert clsolve.solve(problem, solver="dp-rows", device=device).value == expected  # kernels rebuilt


def test_ctrl_c_during_a_long_solve_leaves_the_device_usable(device):
    rng = np.random.default_rng(9)
    n, capacity = (4000, 4_000_000) if device.is_gpu else (6000, 800_000)  # seconds of PoCL, whatever rows it skips
    long = clsolve.Knapsack(rng.integers(1, 1000, n), rng.integers(1, 1000, n), capacity)
    small = _problem("dp-rows")
    expected = clsolve.solve(small, solver="sequential").value
    clsolve.solve(small, solver="dp-rows", device=device)
    # the long solve's kernels (rows past SMALL_ROW: 3 items per pass) built before the timer starts
    # (items heavy enough that not all fit: a knapsack presolve settles alone runs no kernel)
    warm = clsolve.Knapsack(long.profits[:4], long.weights[:4] + capacity // 4, capacity)
    clsolve.solve(warm, solver="dp-rows", device=device, presolve=False)
    # Ctrl-C raises KeyboardInterrupt even where the runner was started with SIGINT ignored (a
    # background job of a non-interactive shell), where interrupt_main would do nothing
    handler = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.3, _thread.interrupt_main)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            # every item through the table: fixing by dominance would leave few of these uncorrelated ones
            clsolve.solve(long, solver="dp-rows", device=device, dominance=False)
            timer.join()  # the solve ended before the interrupt: take it here (the test then fails)
            raise AssertionError("the solve finished before Ctrl-C; make it longer")
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, handler)
    assert clsolve.solve(small, solver="dp-rows", device=device).value == expected


@pytest.mark.parametrize("same", [True, False])
def test_threads_solving_on_one_device(device, same):
    rng = np.random.default_rng(11)
    problems = [
        clsolve.Knapsack(rng.integers(1, 100, 40), rng.integers(1, 50, 40), int(rng.integers(100, 600))) for _ in range(6)
    ]
    problems += [LCS("ACGTTGCAAGTAC" * 3, "TTGACGCAGTCA" * 3), TSP(rng.integers(1, 100, (7, 7)))]
    expected = [clsolve.solve(p, solver="sequential").value for p in problems]
    solvers = ["dp-rows", "mckp", "bnb", "dp-batch", "wavefront", "auto"]
    errors: list = []

    def work(worker: int) -> None:
        for round_ in range(6):
            k = 0 if same else (worker + round_) % len(problems)
            problem = problems[k]
            solver = "wavefront" if not isinstance(problem, clsolve.Knapsack) else solvers[(worker + round_) % 6]
            try:
                if clsolve.solve(problem, solver=solver, device=device).value != expected[k]:
                    errors.append(f"{solver} on problem {k}: wrong value")
            except Exception as exc:  # noqa: BLE001 - every failure is collected and reported
                errors.append(f"{solver} on problem {k}: {type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=work, args=(w,)) for w in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors[:5]


@pytest.mark.parametrize("size", [4096, 4099])
def test_fill_by_kernel_sets_every_byte(device, size, monkeypatch):
    from clsolve.runtime import buffers

    monkeypatch.setattr(buffers, "KERNEL_FILL_BYTES", 1000)  # the path that buffers past 4 GiB take
    buffer = cl.Buffer(device.context, cl.mem_flags.READ_WRITE, size)
    buffers.fill(device.queue, buffer, 0xAB)
    out = np.zeros(size, dtype=np.uint8)
    cl.enqueue_copy(device.queue, out, buffer)
    assert (out == 0xAB).all()


def test_fill_past_eight_gib(device):
    """NVIDIA's clEnqueueFillBuffer invalidates the queue from an offset of 8 GiB on."""
    from clsolve.runtime import buffers

    size = 9 * 2**30 + 4
    if device.max_allocation < size or device.global_memory < 2 * size:
        pytest.skip("the device cannot hold a 9 GiB buffer")
    buffer = cl.Buffer(device.context, cl.mem_flags.READ_WRITE, size)
    buffers.fill(device.queue, buffer, 3)
    out = np.zeros(8, dtype=np.uint8)
    cl.enqueue_copy(device.queue, out, buffer, src_offset=size - 8)
    assert (out == 3).all()
