"""An example clsolve device solver: every subset of a small knapsack on the device, one work-item
per subset; the host picks the best. Exact for n <= 24 items and any number of dimensions."""

import numpy as np
import pyopencl as cl

from clsolve.sdk import Device, DeviceSolver, Knapsack, Plan, Solution, Timings, Workspace, kernels, options

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
        return Plan(
            solver=self.name,
            device_buffers={"values": 8 * subsets, "items": 8 * (problem.n * (problem.m + 1) + problem.m)},
            host_buffers={"values": 8 * subsets},
            kernels=("subset_values",),
            cell_updates=subsets * problem.n,
            launches=1,
            seconds=1e-4 + subsets * problem.n * 1e-10,
        )

    def solve(self, problem: Knapsack, device: Device, plan: Plan) -> Solution:
        timings, subsets = Timings(), 2**problem.n
        work = Workspace(device, plan)  # buffers and kernels by the plan's names: anything else is a PlanError
        with timings.phase("upload"):
            items = {
                name: work.upload("items", array.astype(np.uint64))
                for name, array in (
                    ("weights", problem.weights),
                    ("profits", problem.profits),
                    ("capacities", problem.capacities),
                )
            }
            values = work.empty("values", 8 * subsets)
            program = kernels.program(device, SOURCE, {"DIMS": problem.m})
        with timings.phase("kernels"):
            work.kernel(program, "subset_values").set(n=problem.n, values=values, **items).enqueue(device.queue, (subsets,), None)
            found = np.empty(subsets, dtype=np.int64)
            cl.enqueue_copy(device.queue, found, values)  # blocking: waits for the kernel
        best = int(np.argmax(found))  # the empty subset (value 0) always fits
        selected = (best >> np.arange(problem.n)) & 1 == 1
        return Solution(
            value=int(found[best]), selected=selected, optimal=True, solver=self.name, device=device.label, timings=timings
        )
