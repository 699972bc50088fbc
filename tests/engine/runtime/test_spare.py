"""The device's spare buffer (clsolve.runtime.spare): kept, taken, and released before it could crowd out a plan."""

from __future__ import annotations

import numpy as np
import pyopencl as cl
import pytest

import clsolve
from clsolve import LCS
from clsolve.plan import Plan
from clsolve.plugin import checked
from clsolve.runtime import spare


@pytest.fixture
def small_spares(device, monkeypatch):
    """Spares from 4 KiB on, and none left behind by other tests or for them."""
    monkeypatch.setattr(spare, "SPARE_MIN_BYTES", 4096)
    spare.release(device)
    yield device
    spare.release(device)


def _buffer(device, size):
    return cl.Buffer(device.context, cl.mem_flags.READ_WRITE, size)


def test_a_kept_buffer_serves_the_next_store_that_fits(small_spares):
    device = small_spares
    kept = _buffer(device, 8192)
    spare.keep(device, kept)
    assert spare.spare_bytes(device) == 8192
    larger = spare.take(device, 16384)  # too small for this: a new buffer, the spare stays
    assert larger is not kept and larger.size == 16384 and spare.spare_bytes(device) == 8192
    assert spare.take(device, 4096) is kept and spare.spare_bytes(device) == 0
    larger.release()
    kept.release()


def test_only_the_largest_buffer_worth_keeping_is_kept(small_spares, monkeypatch):
    device = small_spares
    spare.keep(device, _buffer(device, 1024))  # below SPARE_MIN_BYTES: released
    assert spare.spare_bytes(device) == 0
    spare.keep(device, _buffer(device, 8192))
    spare.keep(device, _buffer(device, 4096))  # smaller than the spare: released
    assert spare.spare_bytes(device) == 8192
    spare.keep(device, _buffer(device, 12288))  # larger: replaces it
    assert spare.spare_bytes(device) == 12288
    monkeypatch.setattr(spare, "SPARE_SHARE", 10_000 / device.global_memory)
    spare.release(device)
    spare.keep(device, _buffer(device, 12288))  # more than the share of device memory: released
    assert spare.spare_bytes(device) == 0


def test_a_plan_that_needs_the_room_releases_the_spare(small_spares):
    device = small_spares
    spare.keep(device, _buffer(device, 8192))
    limit = device.memory_budget
    checked.make_room(Plan(solver="test", device_buffers={"rows": limit - 8192}), device)
    assert spare.spare_bytes(device) == 8192  # fits beside it
    checked.make_room(Plan(solver="test", device_buffers={"rows": limit - 4096}), device)
    assert spare.spare_bytes(device) == 0


def test_solves_in_a_row_reuse_the_store_and_stay_exact(small_spares, monkeypatch):
    """The second solve's bit rows go into the first's buffer (its old rows poisoned first); the
    answers are those of a fresh buffer."""
    device = small_spares
    taken = []
    real_take = spare.take

    def recording(dev, size):
        before = spare.spare_bytes(dev)
        buffer = real_take(dev, size)
        taken.append(before > 0 and spare.spare_bytes(dev) == 0)
        return buffer

    monkeypatch.setattr(spare, "take", recording)
    rng = np.random.default_rng(8)
    problems = [LCS(rng.integers(0, 4, 900), rng.integers(0, 4, 700)) for _ in range(3)]
    for problem in problems:
        solution = clsolve.solve(problem, solver="wavefront", device=device, poison=True)
        fresh = clsolve.solve(problem, solver="wavefront", device=device, rows_per_block=64)
        assert solution.value == fresh.value
    assert taken[0] is False and any(taken[1:])


def test_a_batch_solver_starts_without_a_spare(small_spares):
    device = small_spares
    spare.keep(device, _buffer(device, 8192))
    problems = [clsolve.Knapsack([3, 4, 5], [4, 5, 6], 9) for _ in range(4)]
    clsolve.solve_many(problems, solver="dp-batch", device=device)
    assert spare.spare_bytes(device) == 0


def test_auto_makes_room_before_the_chosen_solve(small_spares, monkeypatch):
    """auto solves with the plan choose made (the solver's own plan, not checked.plan's): the solve still
    releases a spare that would not fit beside it (here every plan needs the room)."""
    from clsolve import solving
    from clsolve.plugin import registry

    device = small_spares
    kept = _buffer(device, 1 << 20)
    spare.keep(device, kept)
    monkeypatch.setattr(checked, "make_room", lambda planned, where: spare.make_room(where, planned.device_bytes, 0))
    problem = LCS("GATTACA", "TACAGATTA")
    chosen = registry.load("wavefront")
    solution = solving._solve_chosen(problem, (chosen, device, chosen.plan(problem, device)), {})
    # released before the solve: its store was allocated anew (and may be the spare now), not the kept one
    assert solution.value == 5 and spare.take(device, 1) is not kept


def test_a_process_takes_the_share_of_device_memory_it_is_given(device, monkeypatch):
    """Several processes sharing one device each take a part (CLSOLVE_DEVICE_MEMORY_SHARE): plans are
    refused past it, with the share in the message; a bad share is refused naming the variable."""
    problem = clsolve.Knapsack(np.arange(1, 41), np.arange(1, 41) * 7, 5000)
    options = {"store": "device", "presolve": False}
    plan = clsolve.plan(problem, "dp-rows", device, **options)
    monkeypatch.setenv("CLSOLVE_DEVICE_MEMORY_SHARE", str(plan.device_bytes / device.global_memory / 2))
    assert device.memory_budget < plan.device_bytes
    with pytest.raises(clsolve.DoesNotFitError, match="allows|budget"):
        clsolve.plan(problem, "dp-rows", device, **options)
    for bad in ("0", "1.5", "half", "nan"):
        monkeypatch.setenv("CLSOLVE_DEVICE_MEMORY_SHARE", bad)
        with pytest.raises(clsolve.InvalidOptionError, match="CLSOLVE_DEVICE_MEMORY_SHARE"):
            clsolve.plan(problem, "dp-rows", device, **options)


@pytest.mark.parametrize("solver", ["dp-states", "bnb"])
def test_searches_size_their_lists_to_the_share_they_are_given(device, solver, monkeypatch):
    """The searches' optional device memory (dp-states' block records, cluster lists and relaxed rows;
    bnb's node lists) is a share of the process's budget, so a smaller share plans smaller, never refused."""
    rng = np.random.default_rng(5)
    weights = rng.integers(1000, 100_000, 300)
    problem = clsolve.Knapsack(weights + rng.integers(0, 100, 300), weights, int(weights.sum()) // 2)
    default = clsolve.plan(problem, solver, device).device_bytes
    monkeypatch.setenv("CLSOLVE_DEVICE_MEMORY_SHARE", "0.05")
    assert clsolve.plan(problem, solver, device).device_bytes <= min(default, device.memory_budget)
