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
    rate.observe(100_000, 0.0303)   # 3e-7 per unit: ten times the first guess
    assert abs(rate.per_unit - 3e-7) < 1e-12
    rate.observe(100_000, 0.0033)   # 3e-8 again: at most 30 % down per observation
    assert abs(rate.per_unit - 0.7 * 3e-7) < 1e-12
    assert abs(rate.units_within(rate.predict(1000)) - 1000) < 1e-6


def test_a_pacer_sizes_its_first_group_by_an_estimate_only_without_a_limit(device):
    """With no time limit an estimate of a launch sizes the first group (a quarter of all launches at
    most, so that progress still shows); under a limit the first group is one launch, whatever the
    estimate says."""
    from clsolve.runtime.deadline import Pacer, limit
    assert Pacer(device.queue, "rows", 40, launch_seconds=1e-4).group == 10
    assert Pacer(device.queue, "rows", 4000, launch_seconds=1e-4).group == 625   # a quarter of 0.25 s
    assert Pacer(device.queue, "rows", 40).group == Pacer(device.queue, "rows", 40, launch_seconds=1.0).group == 1
    with limit(10.0):
        assert Pacer(device.queue, "rows", 40, launch_seconds=1e-4).group == 1


def test_a_pacer_stops_once_the_group_in_flight_would_end_past_the_limit(device):
    """Launches of 30 ms (the host's time between them, as the pacer measures it) under a 0.1 s limit:
    the third ends past the limit; with launches still to come after it the pacer raises while the
    limit has not yet passed, and with none it lets the last launch end."""
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
    assert "3 of 10 launches" in str(stopped.value) and not deadline.expired()
    with limit(0.1):
        run(3)
