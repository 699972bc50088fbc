"""How much concurrently busy processes slow each other on this host (a probe for scale-out runs).

Each process is pinned to one CPU and runs the same Python-object-heavy loop (dicts, lists, small
NumPy arrays: the kind of host work a batch of small knapsacks does); printed are the CPUs and each
process's seconds. On a host with independent cores, two processes take as long as one.
Usage: python3 ci/cpu_contention.py
"""

import multiprocessing as mp
import os
import time

import numpy as np


def work(cpu: int, out) -> None:
    os.sched_setaffinity(0, {cpu})
    start = time.perf_counter()
    total = 0
    for i in range(100_000):
        entry = {"a": i, "b": [i, i + 1]}
        total += len(entry["b"]) + (i % 7) + int((np.arange(8) + i).sum())
    out.put((cpu, time.perf_counter() - start))


if __name__ == "__main__":
    ctx = mp.get_context("spawn")
    last = os.cpu_count() - 1
    for cpus in ((0,), (0, 1), (0, 2), (0, last // 4), (0, last // 2), (0, last), (0, 1, 2, 3)):
        if max(cpus) > last or len(set(cpus)) < len(cpus):
            continue
        queue = ctx.Queue()
        processes = [ctx.Process(target=work, args=(cpu, queue)) for cpu in cpus]
        for process in processes:
            process.start()
        for process in processes:
            process.join()
        print(cpus, [round(seconds, 3) for _, seconds in sorted(queue.get() for _ in cpus)], flush=True)
