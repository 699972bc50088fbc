"""Thread safety as a promise: any number of threads may call ``solve`` and ``solve_many`` on one
device at once, from a process's first call on (``ci/threads.py``: every solver, answers against
independent references). Before, two threads making their first dp-rows calls together could each make
a context, and every later call in that process failed with INVALID_CONTEXT."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np

import clsolve
from clsolve.runtime import devices, kernels

SCRIPT = Path(__file__).resolve().parents[3] / "ci" / "threads.py"
#: Seconds of the stress in the test suite (CI's share; ``ci/threads.py --seconds 60`` on a GPU).
SECONDS = float(os.environ.get("CLSOLVE_STRESS_SECONDS", "20"))


def test_eight_threads_and_every_solver_from_a_fresh_process(device, tmp_path):
    out = tmp_path / "threads.json"
    env = dict(os.environ, CLSOLVE_DEVICE=f"#{device.index}")
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--threads", "8", "--seconds", str(SECONDS), "--json", str(out)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.exists(), done.stdout + done.stderr
    summary = json.loads(out.read_text())
    assert summary["errors"] == 0, json.dumps(summary["failed"][:3], indent=1)
    assert done.returncode == 0
    solvers = set(summary["solves"])
    assert {"dp-rows", "bnb", "mkp-dfs", "wavefront", "dp-batch", "mkp-batch"} <= solvers, summary["solves"]


def test_threads_asking_for_a_device_context_at_once_get_one(device):
    fresh = devices.Device(device.cl_device)  # its context not made yet
    start = threading.Barrier(8)
    made: list = []

    def ask() -> None:
        start.wait()
        made.append(fresh.context)

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({context.int_ptr for context in made}) == 1
    assert fresh.queue.context.int_ptr == made[0].int_ptr


def test_a_program_asked_for_by_threads_at_once_is_built_once(device, monkeypatch):
    built: list = []
    build = kernels._build

    def counted(*args):
        built.append(args[2])
        return build(*args)

    monkeypatch.setattr(kernels, "_build", counted)
    source = kernels.builtin("fill.cl")
    defines = {"CLSOLVE_TEST_THREADS": np.random.default_rng().integers(1 << 30)}  # a program no one built
    start = threading.Barrier(6)
    programs: list = []

    def ask() -> None:
        start.wait()
        programs.append(kernels.program(device, source, defines))

    threads = [threading.Thread(target=ask) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(built) == 1 and len({id(p) for p in programs}) == 1


def test_a_replaced_context_gets_its_own_programs(device):
    """Programs are kept per context: a device whose context was replaced builds them again for the new
    one instead of launching the old context's kernels (INVALID_CONTEXT)."""
    fresh = devices.Device(device.cl_device)
    source = kernels.builtin("fill.cl")
    first = kernels.program(fresh, source)
    fresh.reset()
    second = kernels.program(fresh, source)
    assert first is not second
    problem = clsolve.Knapsack([5, 4, 3], [4, 3, 2], 5)
    assert clsolve.solve(problem, solver="dp-rows", device=fresh).value == 7
