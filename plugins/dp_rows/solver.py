"""Host side of ``dp-rows`` (kernels in ``opencl/dp_rows.cl``).

Per item i one launch computes row i of the DP over every state, writing row i of the decision bits
(n x states bits in total, kept on the device). After the last item a single work-item walks the
decision bits back (Algorithm 2.1, steps 8-12) so only the value and the item vector are read back.
Decision rows are split over several buffers when one buffer would pass the device's largest
allocation; the two value rows swap roles between launches (two kernel objects with fixed arguments,
so each launch sets only the item index).
"""
from __future__ import annotations

import time

import numpy as np
import pyopencl as cl

from clsolve.dp.presolve import planned, reduction
from clsolve.dp.table import (
    MODEL_BANDWIDTH,
    MODEL_LAUNCH_SECONDS,
    POISON_BYTE,
    DecisionLayout,
    clamped_weights,
    dp_accepts,
    opencl_type,
    spans,
    value_dtype,
    work_group_size,
)
from clsolve.errors import UnsupportedProblemError
from clsolve.plugin import options
from clsolve.plugin.contract import DeviceSolver
from clsolve.plugin.plan import Plan
from clsolve.problems import Knapsack
from clsolve.runtime import kernels
from clsolve.runtime.buffers import fill
from clsolve.runtime.deadline import Pacer
from clsolve.runtime.devices import Device
from clsolve.solution import Solution, Timings

#: The kernels (paper 000, Algorithms 2.1-2.2).
SOURCE = kernels.builtin("dp_rows.cl")


class RowParallelSolver(DeviceSolver):
    name = "dp-rows"
    summary = "row-parallel DP on an OpenCL device, one launch per item, m = 1..3, items by device backtracking"

    def __init__(self, value_bits: int | None = None, local_size: int | None = None, poison: bool = False,
                 items_per_launch: int = 2, presolve: bool = True):
        """``value_bits`` forces 32- or 64-bit values (default: 32 when the total profit fits).
        ``local_size`` overrides the work-group size. ``items_per_launch`` is 2 (default: two items
        fused per pass, so each row is read and written once per two items) or 1 (the paper's one
        launch per item). ``poison`` fills every device buffer with a garbage pattern before solving,
        so that a state the kernels fail to write shows up as a wrong answer (used by the tests).
        ``presolve`` applies the exact reductions of ``clsolve.dp.presolve`` first."""
        self.value_bits = options.choice("value_bits", value_bits, (None, 32, 64))
        self.items_per_launch = options.choice("items_per_launch", items_per_launch, (1, 2))
        self.local_size = options.power_of_two("local_size", local_size)
        self.poison = options.flag("poison", poison)
        self.presolve = options.flag("presolve", presolve)

    # -- planning ----------------------------------------------------------------------------
    def accepts(self, problem) -> str | None:
        if not isinstance(problem, Knapsack):
            return f"{self.name} solves knapsack problems only"
        reduced = reduction(problem, self.presolve).problem
        return None if reduced is None else dp_accepts(reduced, self.name)

    def _local_size(self, device: Device) -> int:
        return work_group_size(device.max_work_group_size, self.local_size)

    def _chunk_items(self, problem: Knapsack, layout: DecisionLayout, device: Device) -> int:
        """Items whose decision rows share one buffer (even, so fused pairs never straddle two)."""
        chunk = min(problem.n, device.max_allocation // layout.row_bytes)
        return max(1, chunk - chunk % 2 if chunk < problem.n else chunk)

    def _launches(self, chunks: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """(first item, items) of each launch: pairs inside a chunk, a single item where one is left."""
        out = []
        for first, count in chunks:
            item = first
            while item < first + count:
                width = min(self.items_per_launch, first + count - item)
                out.append((item, width))
                item += width
        return out

    def plan(self, problem: Knapsack, device: Device) -> Plan:
        return planned(self.name, problem, self.presolve, lambda reduced: self._plan(reduced, device))

    def _plan(self, problem: Knapsack, device: Device) -> Plan:
        dtype = value_dtype(problem, self.value_bits)
        states = problem.cells()
        local_size = self._local_size(device)
        layout = DecisionLayout(states, local_size)
        chunk = self._chunk_items(problem, layout, device)
        buffers = {"row_a": states * dtype.itemsize, "row_b": states * dtype.itemsize}
        for index, first in enumerate(range(0, problem.n, chunk)):
            buffers[f"decisions_{index}"] = min(chunk, problem.n - first) * layout.row_bytes
        buffers["items"] = problem.n * (12 + dtype.itemsize + 1)
        kind = "gpu" if device.is_gpu else "other"
        chunks = [(first, min(chunk, problem.n - first)) for first in range(0, problem.n, chunk)]
        passes = len(self._launches(chunks))
        moved = passes * states * (2 * dtype.itemsize) + problem.n * layout.row_bytes
        launches = passes + len(chunks)
        return Plan(
            solver=self.name,
            device_buffers=buffers,
            cell_updates=problem.n * states,
            launches=launches,
            seconds=moved / MODEL_BANDWIDTH[kind] + launches * MODEL_LAUNCH_SECONDS[kind] + 0.002,
            details={"value_type": opencl_type(dtype), "local_size": local_size,
                     "decision_chunks": len(chunks), "states_per_row": states,
                     "items_per_launch": self.items_per_launch},
        )

    # -- solving -----------------------------------------------------------------------------
    def _run(self, problem: Knapsack, device: Device, plan: Plan, keep_decisions: bool):
        timings = Timings()
        start = time.perf_counter()
        dtype = value_dtype(problem, self.value_bits)
        states = problem.cells()
        local_size = int(plan.details["local_size"])
        layout = DecisionLayout(states, local_size)
        chunk = self._chunk_items(problem, layout, device)
        span1, span2 = spans(problem)
        program = kernels.program(device, SOURCE, {
            "VALUE_T": opencl_type(dtype), "DIMS": problem.m, "LOCAL_SIZE": local_size})
        ctx, queue = device.context, device.queue
        weights = clamped_weights(problem)
        profits = problem.profits.astype(dtype)
        flags = cl.mem_flags
        timings.host += time.perf_counter() - start

        start = time.perf_counter()
        weights_buf = cl.Buffer(ctx, flags.READ_ONLY | flags.COPY_HOST_PTR, hostbuf=weights)
        profits_buf = cl.Buffer(ctx, flags.READ_ONLY | flags.COPY_HOST_PTR, hostbuf=profits)
        rows = [cl.Buffer(ctx, flags.READ_WRITE, states * dtype.itemsize) for _ in range(2)]
        chunks = []
        for first in range(0, problem.n, chunk):
            count = min(chunk, problem.n - first)
            chunks.append((first, count, cl.Buffer(ctx, flags.READ_WRITE, count * layout.row_bytes)))
        selected_buf = cl.Buffer(ctx, flags.READ_WRITE, problem.n)
        remaining_buf = cl.Buffer(ctx, flags.READ_WRITE | flags.COPY_HOST_PTR,
                                  hostbuf=np.pad(problem.capacities.astype(np.uint32), (0, 3 - problem.m)))
        if self.poison:
            for buf in [rows[1], selected_buf] + [c[2] for c in chunks]:
                fill(queue, buf, POISON_BYTE)
        fill(queue, rows[0], 0)
        queue.finish()
        timings.upload += time.perf_counter() - start

        start = time.perf_counter()
        # kernels_by_width[width][parity]: parity p reads rows[p], writes rows[1 - p]; only the item varies
        kernels_by_width: dict[int, list[kernels.Kernel]] = {}
        for width, name in ((1, "dp_rows_item"), (2, "dp_rows_pair")):
            kernels_by_width[width] = []
            for parity in range(2):
                kernels_by_width[width].append(program.kernel(name).set(
                    prev=rows[parity], next=rows[1 - parity], weights=weights_buf, profits=profits_buf,
                    states=np.uint32(states), span1=np.uint32(span1), span2=np.uint32(span2),
                    words_per_row=np.uint64(layout.words_per_row)))
        global_size = (layout.tiles * local_size,)
        group = (local_size,)
        passes = 0
        pacer = Pacer(queue, f"{self.name} rows", plan.launches)
        for first, count, decisions in chunks:
            for pair in kernels_by_width.values():
                for kernel in pair:
                    kernel.set(decisions=decisions, chunk_first=np.uint32(first))
            for item, width in self._launches([(first, count)]):
                kernel = kernels_by_width[width][passes & 1]
                kernel.set(item=np.uint32(item)).enqueue(queue, global_size, group)
                passes += 1
                pacer.launch()
        if not keep_decisions:
            backtrack = program.kernel("dp_rows_backtrack").set(
                weights=weights_buf, words_per_row=np.uint64(layout.words_per_row), span1=np.uint32(span1),
                span2=np.uint32(span2), remaining=remaining_buf, selected=selected_buf)
            for first, count, decisions in reversed(chunks):
                backtrack.set(decisions=decisions, chunk_first=np.uint32(first), chunk_items=np.uint32(count))
                backtrack.enqueue(queue, (1,), (1,))
        queue.finish()
        timings.kernels += time.perf_counter() - start

        start = time.perf_counter()
        final_row = rows[passes & 1]
        value = np.zeros(1, dtype=dtype)
        cl.enqueue_copy(queue, value, final_row, src_offset=(states - 1) * dtype.itemsize)
        if keep_decisions:
            words = np.empty((problem.n, layout.words_per_row), dtype=np.uint32)
            for first, count, decisions in chunks:
                cl.enqueue_copy(queue, words[first:first + count], decisions)
            queue.finish()
            timings.download += time.perf_counter() - start
            return int(value[0]), layout.unpack(words), timings
        selected = np.empty(problem.n, dtype=np.uint8)
        cl.enqueue_copy(queue, selected, selected_buf)
        queue.finish()
        timings.download += time.perf_counter() - start
        return int(value[0]), selected, timings

    def solve(self, problem: Knapsack, device: Device, plan: Plan) -> Solution:
        reduced = reduction(problem, self.presolve)
        if reduced.problem is None:
            return reduced.trivial(self.name, device.label)
        return reduced.expand(self._solve(reduced.problem, device, plan))

    def _solve(self, problem: Knapsack, device: Device, plan: Plan) -> Solution:
        value, selected, timings = self._run(problem, device, plan, keep_decisions=False)
        if selected.max(initial=0) > 1:
            raise RuntimeError(f"{self.name}: backtracking left unwritten item flags")
        return Solution(value=value, selected=selected.astype(bool), optimal=True, solver=self.name,
                        device=device.label, timings=timings,
                        notes=[f"{plan.details['value_type']} values, {plan.launches} launches, "
                               f"{self.items_per_launch} item(s) per pass"])

    def decisions(self, problem: Knapsack, device: Device) -> tuple[int, np.ndarray]:
        """The value and the whole decision table of ``problem`` as given (no presolve), shape
        (n, states), read back (for tests)."""
        reason = dp_accepts(problem, self.name)
        if reason is not None:
            raise UnsupportedProblemError(reason)
        plan = self._plan(problem, device)
        value, table, _ = self._run(problem, device, plan, keep_decisions=True)
        return value, table
