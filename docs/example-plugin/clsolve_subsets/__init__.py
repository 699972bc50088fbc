"""An example clsolve device solver: every subset of a small knapsack on the device, one work-item
per subset; the host picks the best. Exact for n <= 24 items and any number of dimensions."""
import time

import numpy as np
import pyopencl as cl

from clsolve.sdk import Device, DeviceSolver, Knapsack, Plan, Solution, Timings, kernels, options

#: The kernel ships in this package (``package-data`` in pyproject.toml).
SOURCE = kernels.KernelSource.resource("clsolve_subsets", "subsets.cl")
#: 2^24 subsets: 128 MiB of values.
MAX_ITEMS = 24


class SubsetSolver(DeviceSolver):
    name = "subsets"
    summary = "every subset on an OpenCL device, one work-item each (example plugin, n <= 24)"

    def __init__(self, max_items: int = MAX_ITEMS):
        """``max_items``: refuse knapsacks with more items (at most 24)."""
        self.max_items = options.integer("max_items", max_items, 1, MAX_ITEMS)

    def accepts(self, problem) -> str | None:
        if not isinstance(problem, Knapsack):
            return "knapsack problems only"
        if problem.n > self.max_items:
            return f"n = {problem.n} > {self.max_items}"
        if int(problem.profits.sum()) >= 2**63 or int(problem.weights.sum()) >= 2**64:
            return "sums of profits or weights beyond 64 bits"
        return None

    def plan(self, problem: Knapsack, device: Device) -> Plan:
        subsets = 2**problem.n
        return Plan(solver=self.name, device_buffers={"values": 8 * subsets, "items": 8 * problem.n * (problem.m + 1)},
                    host_buffers={"values": 8 * subsets}, cell_updates=subsets * problem.n, launches=1,
                    seconds=1e-4 + subsets * problem.n * 1e-10)

    def solve(self, problem: Knapsack, device: Device, plan: Plan) -> Solution:
        began = time.perf_counter()
        flags, queue, subsets = cl.mem_flags, device.queue, 2**problem.n

        def upload(array: np.ndarray) -> cl.Buffer:
            return cl.Buffer(device.context, flags.READ_ONLY | flags.COPY_HOST_PTR, hostbuf=np.ascontiguousarray(array))

        values = cl.Buffer(device.context, flags.WRITE_ONLY, 8 * subsets)
        program = kernels.program(device, SOURCE, {"DIMS": problem.m})
        program.kernel("subset_values").set(
            weights=upload(problem.weights.astype(np.uint64)), profits=upload(problem.profits.astype(np.uint64)),
            capacities=upload(problem.capacities.astype(np.uint64)), n=np.uint32(problem.n), values=values,
        ).enqueue(queue, (subsets,), None)
        found = np.empty(subsets, dtype=np.int64)
        cl.enqueue_copy(queue, found, values)  # blocking: waits for the kernel
        best = int(np.argmax(found))  # the empty subset (value 0) always fits
        selected = (best >> np.arange(problem.n)) & 1 == 1
        return Solution(value=int(found[best]), selected=selected, optimal=True, solver=self.name,
                        device=device.label, timings=Timings(kernels=time.perf_counter() - began))
