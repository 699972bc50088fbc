"""glibc thresholds in Dask's worker processes (clsolve.scaleout.malloc)."""

import os
import subprocess
import sys
import textwrap

import pytest

linux_glibc = pytest.mark.skipif(
    not sys.platform.startswith("linux") or os.confstr("CS_GNU_LIBC_VERSION") is None, reason="glibc only"
)

# a block of 8 MiB allocated and kept, before and after the call: counted among glibc's mmapped blocks
# (mallinfo2's hblks) before, taken from the heap after
PROBE = textwrap.dedent("""
    import ctypes, ctypes.util, json
    import numpy as np
    from clsolve.scaleout import malloc
    libc = ctypes.CDLL(ctypes.util.find_library("c"))
    class Info(ctypes.Structure):
        _fields_ = [(name, ctypes.c_size_t) for name in
                    "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost".split()]
    libc.mallinfo2.restype = Info
    before = libc.mallinfo2().hblks
    kept = [np.ones(1 << 20)]
    mapped_before = libc.mallinfo2().hblks - before
    raised = malloc.keep_large_blocks_on_heap()
    before = libc.mallinfo2().hblks
    kept.append(np.ones(1 << 20))
    print(json.dumps({"raised": raised, "again": malloc.keep_large_blocks_on_heap(),
                      "mapped_before": mapped_before, "mapped_after": libc.mallinfo2().hblks - before}))
""")


def _probe(**env):
    import json

    clean = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    done = subprocess.run([sys.executable, "-c", PROBE], env={**clean, **env}, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@linux_glibc
def test_a_trim_threshold_alone_has_large_blocks_put_back_on_the_heap():
    found = _probe(MALLOC_TRIM_THRESHOLD_="65536")  # as Dask's nanny starts a worker
    assert found == {"raised": True, "again": True, "mapped_before": 1, "mapped_after": 0}


@linux_glibc
@pytest.mark.parametrize("env", [{}, {"MALLOC_TRIM_THRESHOLD_": "65536", "MALLOC_MMAP_THRESHOLD_": "131072"}])
def test_a_process_left_to_glibc_or_tuned_on_purpose_is_left_alone(env):
    found = _probe(**env)
    assert not found["raised"] and not found["again"]
    if env:  # the chosen mmap threshold still holds
        assert found["mapped_after"] == 1
