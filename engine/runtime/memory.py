"""Host memory: what this host has, and the budget a solve's host memory lives within.

Every plan counts the host memory its solve takes (its host buffers, and on a device whose memory is
the host's, such as PoCL's CPU device, its device buffers too) and is refused, with the numbers,
where that passes ``host_budget()``: the limit set for the call (``host_memory_limit`` of
``clsolve.solve``, ``solve_many`` and ``plan``; ``--host-memory-limit`` in the CLI), else
``HOST_BUDGET_SHARE`` of what is available when the solve plans. Solvers that grow lists on the
host keep them within it too.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import time
from collections.abc import Iterator

#: Share of the memory available when a solve starts that a solver's host lists may use by default.
HOST_BUDGET_SHARE = 0.5
#: ``available_bytes`` reads /proc/meminfo at most this often (seconds): a plan asks for it, and
#: ``auto`` plans several solvers per problem.
AVAILABLE_REFRESH_SECONDS = 0.5
_available: list[tuple[float, int]] = []  # (when, bytes) of the last reading


def physical_bytes() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):  # pragma: no cover - non-POSIX hosts
        return 8 * 2**30


def available_bytes() -> int:
    """Memory the kernel could hand out now (``MemAvailable``, read at most every
    AVAILABLE_REFRESH_SECONDS), else the physical memory."""
    now = time.monotonic()
    if _available and now - _available[0][0] < AVAILABLE_REFRESH_SECONDS:
        return _available[0][1]
    found = _read_available()
    _available[:] = [(now, found)]
    return found


def _read_available() -> int:
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return physical_bytes()


_limit: contextvars.ContextVar[int | None] = contextvars.ContextVar("clsolve_host_memory_limit", default=None)


def default_budget() -> int:
    """A fair share of what is available now (``HOST_BUDGET_SHARE``)."""
    return int(available_bytes() * HOST_BUDGET_SHARE)


def host_budget() -> int:
    """Host bytes the current solve may take: the limit set for the call (``limit``), else
    ``default_budget()``."""
    found = _limit.get()
    return default_budget() if found is None else found


def limited() -> bool:
    """Whether a limit is set for the current call (else the budget is the default share)."""
    return _limit.get() is not None


@contextlib.contextmanager
def limit(host_memory_limit: int | None) -> Iterator[None]:
    """Install ``host_memory_limit`` bytes (None: the default share) as the budget of the code inside."""
    if host_memory_limit is None:
        yield
        return
    token = _limit.set(int(host_memory_limit))
    try:
        yield
    finally:
        _limit.reset(token)


def budget_words() -> str:
    """How messages name the budget: the limit set, or the share of what is available."""
    if limited():
        return "set by host_memory_limit"
    return f"{HOST_BUDGET_SHARE:.0%} of the {format_bytes(available_bytes())} available (set host_memory_limit)"


def format_bytes(count: int) -> str:
    """A byte count for messages: ``1.50 GiB (1610612736 B)``."""
    value = float(count)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if value < 1024 or unit == "PiB":
            return f"{count} B" if unit == "B" else f"{value:.2f} {unit} ({count} B)"
        value /= 1024
    return f"{count} B"  # pragma: no cover
