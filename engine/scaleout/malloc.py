"""glibc's allocator in a Dask worker process: a chunk's arrays from the heap again, not fresh mmaps.

Dask's nanny starts each worker process with ``MALLOC_TRIM_THRESHOLD_=65536``
(``distributed.nanny.pre-spawn-environ``), so that freed memory goes back to the OS soon. Setting a
threshold turns off glibc's dynamic mmap threshold as well: in such a process every block over
128 KiB is mapped fresh by ``mmap``, page-faulted in and unmapped when freed, and a chunk's NumPy
arrays (its problems, buffers' host copies, answers) are such blocks. On 2 x NVIDIA H200 a chunk of
MSB-630 took 5.9 us per instance in a nanny's worker, 4.0 us in a worker started without one.

:func:`keep_large_blocks_on_heap` sets the two thresholds where glibc's own dynamic rule stops
raising them (mmap above 32 MiB, trim when 64 MiB lie free at the top of the heap), once per process,
and only where ``MALLOC_TRIM_THRESHOLD_`` was set and ``MALLOC_MMAP_THRESHOLD_`` was not: a process
whose mmap threshold was chosen on purpose keeps it (set ``MALLOC_MMAP_THRESHOLD_=131072`` in a
worker's environment to keep Dask's behaviour).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys

#: mallopt parameters (malloc.h).
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
#: Where glibc's dynamic mmap threshold stops on 64-bit hosts (DEFAULT_MMAP_THRESHOLD_MAX), and the
#: trim threshold it pairs with it (twice the mmap threshold).
MMAP_THRESHOLD = 32 * 1024 * 1024
TRIM_THRESHOLD = 2 * MMAP_THRESHOLD

_done = False


def keep_large_blocks_on_heap() -> bool:
    """Raise glibc's mmap and trim thresholds in this process if a trim threshold alone was set in its
    environment (see the module doc); True when they were raised (now or by an earlier call)."""
    global _done
    if _done:
        return True
    if (
        not sys.platform.startswith("linux")
        or "MALLOC_TRIM_THRESHOLD_" not in os.environ
        or "MALLOC_MMAP_THRESHOLD_" in os.environ
    ):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # not glibc (musl has no mallopt)
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    _done = bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))
    return _done
