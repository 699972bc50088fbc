"""Host memory: what this host has, and budgets that solvers growing lists on the host live within."""
from __future__ import annotations

import os
import time

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


def default_budget() -> int:
    """A fair share of what is available now (``HOST_BUDGET_SHARE``)."""
    return int(available_bytes() * HOST_BUDGET_SHARE)


def size(count: int) -> str:
    """``count`` bytes in human units."""
    value = float(count)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if value < 1024 or unit == "TiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.2f} {unit}"
        value /= 1024
    return f"{count} B"  # pragma: no cover
