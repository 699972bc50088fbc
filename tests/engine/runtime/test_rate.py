"""clsolve.runtime.deadline: Rate, the predicted cost of an operation that cannot be interrupted, and Pacer's first group."""

from clsolve.runtime.deadline import Rate


def test_a_small_operation_held_up_does_not_make_large_ones_look_slow():
    """10 ms for 40 units (the host busy elsewhere) would predict 1.4 s for 5,500 units if taken as a
    cost per unit; the per-unit part of 40 units is not visible past the overhead, so it is not."""
    rate = Rate(3e-4, 3e-8)
    rate.observe(40, 0.01)
    assert rate.predict(5500) < 0.01


def test_a_slower_large_operation_is_taken_at_once_and_a_faster_one_gradually():
    rate = Rate(3e-4, 3e-8)
    rate.observe(100_000, 0.0303)  # 3e-7 per unit: ten times the first guess
    assert abs(rate.per_unit - 3e-7) < 1e-12
    rate.observe(100_000, 0.0033)  # 3e-8 again: at most 30 % down per observation
    assert abs(rate.per_unit - 0.7 * 3e-7) < 1e-12
    assert abs(rate.units_within(rate.predict(1000)) - 1000) < 1e-6


def test_a_pacer_sizes_its_first_group_by_an_estimate_only_without_a_limit(device):
    """With no time limit an estimate of a launch sizes the first group (a quarter of all launches at
    most, so that progress still shows); under a limit the first group is one launch, whatever the
    estimate says."""
    from clsolve.runtime.deadline import Pacer, limit

    assert Pacer(device.queue, "rows", 40, launch_seconds=1e-4).group == 10
    assert Pacer(device.queue, "rows", 4000, launch_seconds=1e-4).group == 625  # a quarter of 0.25 s
    assert Pacer(device.queue, "rows", 40).group == Pacer(device.queue, "rows", 40, launch_seconds=1.0).group == 1
    with limit(10.0):
        assert Pacer(device.queue, "rows", 40, launch_seconds=1e-4).group == 1


def test_a_pacer_stops_once_the_group_in_flight_would_end_past_the_limit(device):
    """Launches of 30 ms (the host's time between them, as the pacer measures it) under a 0.1 s limit:
    the third ends past the limit; with launches still to come after it the pacer raises while the
    limit has not yet passed, and with none it lets the last launch end."""
    import re
    import time

    import pytest

    from clsolve.errors import TimeLimitError
    from clsolve.runtime.deadline import Pacer, limit

    def run(total: int) -> None:
        pacer = Pacer(device.queue, "rows", total)
        for _ in range(total):
            time.sleep(0.03)
            pacer.launch()
        pacer.close()

    with limit(0.1) as deadline, pytest.raises(TimeLimitError, match="would pass before") as stopped:
        run(10)
    # the third launch (the second where a busy host's sleeps run long) is the last that ends in time
    assert re.search(r"[23] of 10 launches", str(stopped.value)) and not deadline.expired(), stopped.value
    with limit(0.1):
        run(3)


_SPIN = """__kernel void spin(__global uint *out, uint rounds) {
    uint x = get_global_id(0) + 1;
    for (uint i = 0; i < rounds; ++i) x = x * 1664525u + 1013904223u;
    out[get_global_id(0)] = x;
}"""


def _long_launch(device, folder, seconds: float):
    """An enqueue function of one launch that takes about ``seconds`` on ``device`` (measured)."""
    import time

    import numpy as np
    import pyopencl as cl

    from clsolve.runtime import kernels

    (folder / "spin.cl").write_text(_SPIN)
    program = kernels.program(device, kernels.KernelSource.path(folder / "spin.cl"))
    out = cl.Buffer(device.context, cl.mem_flags.READ_WRITE, 4 * 64)
    kernel = program.kernel("spin").set(out=out)
    rounds = 1 << 16
    while True:
        began = time.perf_counter()
        kernel.set(rounds=np.uint32(rounds)).enqueue(device.queue, (64,), None)
        device.queue.finish()
        took = time.perf_counter() - began
        if took >= seconds / 4 or rounds >= 1 << 31:
            break
        rounds = min(rounds * 4, 1 << 31)
    rounds = min(int(rounds * seconds / max(took, 1e-6)), (1 << 32) - 1)
    return lambda: kernel.set(rounds=np.uint32(rounds)).enqueue(device.queue, (64,), None)


def test_a_pacer_and_a_drain_stop_at_the_limit_while_a_launch_runs_on(device, tmp_path):
    """A launch still running at the limit (a first launch on PoCL compiles its kernel) is not waited
    for: the pacer and ``drain`` raise at the limit, and the next call waits for the work left before
    its clock starts (``settle_left_work``); the queue stays usable."""
    import time

    import pytest

    from clsolve.errors import TimeLimitError
    from clsolve.runtime.deadline import Pacer, drain, limit
    from clsolve.runtime.devices import settle_left_work

    launch = _long_launch(device, tmp_path, 1.0)
    with limit(0.1) as deadline:
        pacer = Pacer(device.queue, "rows", 3)
        with pytest.raises(TimeLimitError, match="1 of 3 launches|2 of 3 launches"):
            for _ in range(3):
                launch()
                pacer.launch()
        assert deadline.elapsed() <= 0.1 + deadline.margin
    settle_left_work()
    began = time.perf_counter()
    with limit(0.1) as deadline:
        launch()
        with pytest.raises(TimeLimitError, match="the test's launch"):
            drain(device.queue, "the test's launch")
        assert deadline.elapsed() <= 0.1 + deadline.margin
    settle_left_work()
    assert time.perf_counter() - began >= 0.5  # the launch left running was waited for
    drain(device.queue, "nothing queued")


def test_left_work_whose_queue_failed_does_not_fail_the_next_calls(device):
    """Work left at a limit on a queue the runtime has lost since (a context replaced after a failure)
    is dropped when the next call settles it: that call and every later one solve as usual."""
    import pyopencl as cl

    import clsolve
    from clsolve.runtime.devices import left_work, settle_left_work

    def lost() -> None:
        raise cl.LogicError("clFinish failed: INVALID_COMMAND_QUEUE")

    left_work(lost)
    problem = clsolve.Knapsack([6, 5, 4], [3, 2, 2], 4)
    for _ in range(2):
        assert clsolve.solve(problem, solver="dp-rows", device=device).value == 9
    settle_left_work()
