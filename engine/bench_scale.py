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
import sys
import time

from . import api
from .bench import _fresh, _two_d_set
from .devices import all_devices, get_device


def _dask_cluster(devices):
    """A local Dask cluster of one single-threaded worker per device, each pinned to its device by
    ``CLSOLVE_DEVICE=#N`` and declaring ``GPU=1`` (what ``dask worker --resources GPU=1`` does)."""
    import distributed
    workers = {f"gpu{k}": {"cls": distributed.Nanny,
                           "options": {"nthreads": 1, "resources": {"GPU": 1},
                                       "env": {"CLSOLVE_DEVICE": f"#{d.index}"}}}
               for k, d in enumerate(devices)}
    scheduler = {"cls": distributed.Scheduler, "options": {"dashboard_address": None}}
    cluster = distributed.SpecCluster(workers=workers, scheduler=scheduler, silence_logs=40)
    return cluster, distributed.Client(cluster)


def _timed(label: str, problems: list, repeats: int, **kwargs) -> tuple[float, list, dict]:
    """Best seconds of ``repeats`` runs, the solutions, and the best run's last progress report."""
    best, solutions, report = float("inf"), [], {}
    for _ in range(repeats):
        batch = _fresh(problems)
        seen = []
        start = time.perf_counter()
        solutions = api.solve_many(batch, progress=seen.append, **kwargs)
        elapsed = time.perf_counter() - start
        if elapsed < best:
            best, report = elapsed, (vars(seen[-1]) if seen else {})
    print(f"{label}: {best:.3f} s, {len(problems) / best:,.0f} instances/s {report}", file=sys.stderr)
    return best, solutions, report


def run(args) -> dict:
    args.name = "msb"
    label, base = _two_d_set(args)
    copies = 4 if args.quick else args.copies
    problems = base * copies
    gpus = [d for d in all_devices() if d.is_gpu]
    first = gpus[0] if gpus else get_device(args.device)
    print(f"{label} x {copies} = {len(problems)} instances; GPUs: {[d.label for d in gpus] or 'none'}", file=sys.stderr)
    rows: dict[str, dict] = {}
    values: dict[str, list[int]] = {}

    api.solve_many(_fresh(base), device=first)  # kernels built
    seconds, solutions, _ = _timed("one GPU", problems, args.repeats, device=[first])
    rows["one device"] = {"device": first.label, "seconds": seconds, "instances_per_second": len(problems) / seconds}
    values["one device"] = [s.value for s in solutions]

    api.solve_many(_fresh(base * 2), device="all")  # worker processes started, kernels built there
    seconds, solutions, report = _timed("device=all", problems, args.repeats, device="all")
    rows["device=all"] = {"devices": sorted({s.device for s in solutions}), "processes": max(len(gpus), 1),
                          "seconds": seconds, "instances_per_second": len(problems) / seconds, "progress": report}
    values["device=all"] = [s.value for s in solutions]

    if len(gpus) >= 2:  # the host work spread further: two worker processes per GPU, on one GPU and on all
        for name, spec in (("one GPU, 2 processes", [f"#{first.index}"] * 2),
                           ("all GPUs, 2 processes each", [f"#{d.index}" for d in gpus for _ in range(2)])):
            api.solve_many(_fresh(base * 2), device=spec)
            seconds, solutions, report = _timed(name, problems, args.repeats, device=spec)
            rows[name] = {"processes": len(spec), "seconds": seconds, "instances_per_second": len(problems) / seconds,
                          "progress": report}
            values[name] = [s.value for s in solutions]

    if importlib.util.find_spec("distributed") is None:
        rows["dask"] = {"note": "distributed is not installed (pip install 'clsolve[dask]')"}
    else:
        cluster, client = _dask_cluster(gpus or [first])
        try:
            client.wait_for_workers(max(len(gpus), 1), timeout=120)
            api.solve_many(_fresh(base * 2), client=client)
            seconds, solutions, report = _timed("dask", problems, args.repeats, client=client)
            rows["dask"] = {"workers": max(len(gpus), 1), "devices": sorted({s.device for s in solutions}),
                            "seconds": seconds, "instances_per_second": len(problems) / seconds, "progress": report}
            values["dask"] = [s.value for s in solutions]
        finally:
            client.close()
            cluster.close()
    single = rows["one device"]["instances_per_second"]
    for row in rows.values():
        if "instances_per_second" in row:
            row["scaling"] = row["instances_per_second"] / single
    reference = values["one device"]
    return {
        "benchmark": "scale", "set": f"{label} x {copies}", "instances": len(problems),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "gpus": [d.describe() for d in gpus], "host_cpus": os.cpu_count(),
        "value_mismatches": sum(a != b for v in values.values() for a, b in zip(reference, v)),
        "runs": rows,
        "note": "end to end with items (presolve, planning, solving, the engine's check on the worker and again "
                "on the client), best of --repeats runs on fresh problem objects, worker processes and kernels "
                "warmed on a small batch first; scaling = instances per second over the one-GPU run's",
    }
