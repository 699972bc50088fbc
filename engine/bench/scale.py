"""``clsolve bench scale``: MSB-630 repeated (100 copies: 63,000 KP2 instances with items) on one GPU,
on every GPU of the host (``device="all"``), and through a Dask cluster of one worker per GPU.

Each run solves fresh problem objects (no presolve result carries over); worker processes and
kernels are warmed on a small batch first, as a long-running service would have them. Reported:
seconds, instances per second, and each spread run's rate over the one-GPU rate (the scaling
factor). Values of all runs are compared.
"""

from __future__ import annotations

import datetime
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Any

import numpy as np

import clsolve
from clsolve import get_device, gpus

from .common import fresh, two_d_set


class DaskProcesses:
    """A Dask cluster started as the README starts one, with Dask's own commands: ``dask scheduler``
    and, per device, ``dask worker --nworkers 1 --nthreads 1 --resources GPU=1`` with
    ``CLSOLVE_DEVICE=#N``, each in its own process (a scheduler inside the client's process, as
    ``LocalCluster`` makes, would take the client's GIL for its own work). Logs go to a temporary
    folder, named when the cluster does not come up."""

    def __init__(self, devices, timeout: float = 120.0):
        import distributed

        self.folder = tempfile.mkdtemp(prefix="clsolve-dask-")
        scheduler_file = os.path.join(self.folder, "scheduler.json")
        self.processes: list[subprocess.Popen] = []
        self._start("scheduler", ["distributed.cli.dask_scheduler", "--no-dashboard", "--port", "0"], scheduler_file)
        deadline = time.monotonic() + timeout
        while not os.path.exists(scheduler_file):
            if time.monotonic() > deadline or self.processes[0].poll() is not None:
                self.close(remove_logs=False)
                raise RuntimeError(f"the Dask scheduler did not start; see the logs in {self.folder}")
            time.sleep(0.1)
        for k, device in enumerate(devices):
            self._start(
                f"worker{k}",
                ["distributed.cli.dask_worker", "--nworkers", "1", "--nthreads", "1", "--resources", "GPU=1", "--no-dashboard"],
                scheduler_file,
                {"CLSOLVE_DEVICE": f"#{device.index}"},
            )
        try:
            self.client = distributed.Client(scheduler_file=scheduler_file, timeout=timeout)
            self.client.wait_for_workers(len(devices), timeout=timeout)
        except Exception as exc:
            self.close(remove_logs=False)
            raise RuntimeError(f"the Dask cluster did not come up ({exc}); see the logs in {self.folder}") from exc

    def _start(self, name: str, command: list[str], scheduler_file: str, env: dict | None = None) -> None:
        with open(os.path.join(self.folder, f"{name}.log"), "wb") as log:
            self.processes.append(
                subprocess.Popen(
                    [sys.executable, "-m", *command, "--scheduler-file", scheduler_file],
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    env={**os.environ, **(env or {})},
                )
            )

    def close(self, remove_logs: bool = True) -> None:
        if getattr(self, "client", None) is not None:
            self.client.close()
        for process in reversed(self.processes):
            process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
        if remove_logs:
            shutil.rmtree(self.folder, ignore_errors=True)


def _once(problems: list, **kwargs) -> tuple[float, Any, dict]:
    """One run on fresh problem objects: seconds, solutions (a list or ``SolutionArrays``), the last
    progress report."""
    batch = fresh(problems)
    seen: list = []
    start = time.perf_counter()
    solutions = clsolve.solve_many(batch, progress=seen.append, **kwargs)
    return time.perf_counter() - start, solutions, (dict(vars(seen[-1])) if seen else {})


# long: a benchmark's cases in the order its JSON reports them
def run(args) -> dict:
    args.name = "msb"
    label, base = two_d_set(args)
    copies = 4 if args.quick else args.copies
    problems = base * copies
    found = gpus()
    first = found[0] if found else get_device(args.device)
    print(f"{label} x {copies} = {len(problems)} instances; GPUs: {[d.label for d in found] or 'none'}", file=sys.stderr)
    # every configuration warmed first (kernels built, worker processes started), then timed in
    # interleaved rounds, so that a slow spell of the host falls on all of them alike
    configs: dict[str, dict] = {"one device": {"device": [first]}, "device=all": {"device": "all"}}
    if len(found) >= 2:  # the host work spread over two processes on one GPU: how much is host work
        configs["one GPU, 2 processes"] = {"device": [f"#{first.index}"] * 2}
    cluster = None
    rows: dict[str, dict] = {}
    if importlib.util.find_spec("distributed") is None:
        rows["dask"] = {"note": "distributed is not installed (pip install 'clsolve[dask]')"}
    else:
        cluster = DaskProcesses(found or [first])
        configs["dask"] = {"client": cluster.client}
    # the same runs returning the answers as arrays (solve_many(..., arrays=True)): no Solution object
    # built per instance, so the client's serial work is packing and the vectorized check only
    for name in ("one device", "device=all", "dask"):
        if name in configs:
            configs[f"{name}, arrays"] = {**configs[name], "arrays": True}
    try:
        for kwargs in configs.values():
            clsolve.solve_many(fresh(base * 2), **kwargs)
        times: dict[str, list[float]] = {name: [] for name in configs}
        values: dict[str, list[int]] = {}
        reports: dict[str, dict] = {}
        devices: dict[str, list[str]] = {}
        for round_ in range(max(1, args.repeats)):
            for name, kwargs in configs.items():
                seconds, solutions, report = _once(problems, **kwargs)
                if not times[name] or seconds < min(times[name]):
                    reports[name] = report
                times[name].append(seconds)
                values[name] = [int(v) for v in solutions.values] if kwargs.get("arrays") else [s.value for s in solutions]
                devices[name] = sorted({s.device for s in solutions})
                print(f"round {round_ + 1}, {name}: {seconds:.3f} s, {len(problems) / seconds:,.0f} instances/s", file=sys.stderr)
    finally:
        if cluster is not None:
            cluster.close()
    processes = {"one device": 1, "device=all": max(len(found), 1), "one GPU, 2 processes": 2, "dask": max(len(found), 1)}
    for name in configs:
        best, median = min(times[name]), float(np.median(times[name]))
        rows[name] = {
            "devices": devices[name],
            "processes": processes[name.removesuffix(", arrays")],
            "result": "SolutionArrays" if name.endswith(", arrays") else "list[Solution]",
            "seconds": best,
            "median_seconds": median,
            "all_seconds": times[name],
            "instances_per_second": len(problems) / best,
            "progress": reports[name],
        }
    for name in configs:  # over the one-GPU run that returns the same form
        one = "one device, arrays" if name.endswith(", arrays") else "one device"
        rows[name]["scaling_median"] = rows[one]["median_seconds"] / rows[name]["median_seconds"]
        rows[name]["scaling_per_round"] = [a / b for a, b in zip(times[one], times[name])]
        rows[name]["scaling"] = rows[name]["instances_per_second"] / rows[one]["instances_per_second"]
    reference = values["one device"]
    return {
        "benchmark": "scale",
        "set": f"{label} x {copies}",
        "instances": len(problems),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "gpus": [d.describe() for d in found],
        "host_cpus": os.cpu_count(),
        "value_mismatches": sum(a != b for v in values.values() for a, b in zip(reference, v)),
        "runs": rows,
        "note": "end to end with items (presolve, planning, solving, the engine's check on the client), "
        "--repeats interleaved rounds (each configuration once per round) on fresh problem objects, worker "
        "processes and kernels warmed on a small batch first; scaling = best instances per second over the "
        "one-GPU run's best (the one-GPU run returning the same form: list[Solution] or SolutionArrays); "
        "scaling_median from the medians; scaling_per_round pairs each round's runs",
    }
