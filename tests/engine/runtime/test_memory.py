"""Host memory (clsolve.runtime.memory): what is available, read at most every AVAILABLE_REFRESH_SECONDS."""

from types import SimpleNamespace

from clsolve.runtime import memory


def test_available_memory_is_read_again_only_after_the_refresh_interval(monkeypatch):
    readings = iter([8 * 2**30, 6 * 2**30])
    calls = []

    def read():
        calls.append(1)
        return next(readings)

    clock = [1000.0]
    monkeypatch.setattr(memory, "_read_available", read)
    monkeypatch.setattr(memory, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    monkeypatch.setattr(memory, "_available", [])
    assert memory.available_bytes() == 8 * 2**30
    clock[0] += memory.AVAILABLE_REFRESH_SECONDS / 2
    assert memory.available_bytes() == 8 * 2**30 and len(calls) == 1  # within the interval: kept
    clock[0] += memory.AVAILABLE_REFRESH_SECONDS
    assert memory.available_bytes() == 6 * 2**30 and len(calls) == 2  # after it: read again
    assert memory.default_budget() == int(6 * 2**30 * memory.HOST_BUDGET_SHARE)


def test_the_reading_is_the_kernels_figure_or_the_physical_memory():
    assert 0 < memory._read_available() <= memory.physical_bytes()
