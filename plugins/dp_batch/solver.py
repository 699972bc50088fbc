"""Host side of ``dp-batch`` (kernels in ``opencl/dp_batch.cl`` and ``opencl/subset_enum.cl``).

The state rows of all instances of a batch are concatenated (the offsets vector S of paper 000),
one launch per item step advances every instance (items right-aligned, so instances with fewer
items need no artificial items), decision bits stay on the device, and one work-item per instance
backtracks (Algorithm 3.3): only values and item vectors come back. Instances of different m are
batched separately; a batch larger than the device is cut into chunks that fit, run back to back.
Instances whose 2^n subsets are fewer than the DP's n x states cell updates (the 20-item MSB set:
10^6 against 2 x 10^7) are instead solved by enumerating every subset on the device, in one launch
for all of them; both methods are exact and return the items.
"""
from __future__ import annotations

import time
from typing import Sequence

import numpy as np
import pyopencl as cl

from clsolve import kernels
from clsolve.buffers import fill
from clsolve.devices import Device
from clsolve.dptable import (MODEL_BANDWIDTH, MODEL_LAUNCH_SECONDS, POISON_BYTE, DecisionLayout,
                             clamped_weights, dp_accepts, opencl_type, spans, value_dtype, work_group_size)
from clsolve.errors import DoesNotFitError, InvalidOptionError
from clsolve.problems import Knapsack
from clsolve.solution import Solution, Timings
from clsolve.solver import DEVICE_MEMORY_SHARE, Plan, Solver

#: Subset enumeration is exact for any n, but its masks are 32-bit words and its work is 2^n.
ENUMERATION_MAX_ITEMS = 30
#: Matches instance_t in opencl/dp_batch.cl.
INSTANCE = np.dtype([("state_offset", np.uint64), ("decision_offset", np.uint64), ("states", np.uint32),
                     ("span1", np.uint32), ("span2", np.uint32), ("first_tile", np.uint32),
                     ("first_item", np.uint32), ("items", np.uint32), ("words_per_row", np.uint32),
                     ("pad", np.uint32)], align=True)


class BatchSolver(Solver):
    name = "dp-batch"
    summary = "k instances at once on an OpenCL device, one launch per item step, items by per-instance backtracking"
    batches = True

    def __init__(self, local_size: int | None = None, poison: bool = False, memory_limit: int | None = None,
                 method: str = "auto"):
        """``local_size`` overrides the work-group size; ``poison`` fills device buffers with garbage
        first (tests); ``memory_limit`` caps the device bytes one chunk may use (default: the
        device's own limit), which forces a batch into several chunks. ``method`` chooses per
        instance: ``dp`` (the dense DP), ``enumerate`` (every subset, n <= 30), or ``auto``
        (enumerate where 2^n <= n x states, the DP's cell updates)."""
        if memory_limit is not None and memory_limit <= 0:
            raise InvalidOptionError(f"memory_limit must be positive, got {memory_limit}")
        if method not in ("auto", "dp", "enumerate"):
            raise InvalidOptionError(f"method must be auto, dp or enumerate, got {method!r}")
        self.method = method
        self.local_size = local_size
        self.poison = poison
        self.memory_limit = memory_limit

    def accepts(self, problem) -> str | None:
        if self.method == "enumerate":
            if not isinstance(problem, Knapsack) or problem.m > 3:
                return f"{self.name} enumerates knapsacks with m = 1..3"
            return None if problem.n <= ENUMERATION_MAX_ITEMS else \
                f"method=enumerate takes n <= {ENUMERATION_MAX_ITEMS}; this problem has n = {problem.n}"
        return dp_accepts(problem, self.name)

    def enumerates(self, problem: Knapsack) -> bool:
        """Whether this instance is solved by subset enumeration rather than the DP."""
        if self.method != "auto":
            return self.method == "enumerate"
        return problem.n <= ENUMERATION_MAX_ITEMS and 2**problem.n <= problem.n * problem.cells()

    def _local_size(self, device: Device) -> int:
        return work_group_size(device.max_work_group_size, self.local_size)

    def _bytes(self, problem: Knapsack, dtype: np.dtype, local_size: int) -> tuple[int, int]:
        """(state row bytes for both buffers, decision bytes) of one instance."""
        layout = DecisionLayout(problem.cells(), local_size)
        return 2 * problem.cells() * dtype.itemsize, problem.n * layout.row_bytes

    def _budget(self, device: Device) -> tuple[int, int]:
        """(bytes a chunk may use in all, bytes one buffer may hold)."""
        total = int(device.global_memory * DEVICE_MEMORY_SHARE)
        if self.memory_limit is not None:
            total = min(total, int(self.memory_limit))
        return total, device.max_allocation

    def plan(self, problem: Knapsack, device: Device) -> Plan:
        if self.enumerates(problem):
            dtype = value_dtype(problem)
            kind = "gpu" if device.is_gpu else "other"
            return Plan(solver=self.name, device_buffers={"items": problem.n * (13 + dtype.itemsize)},
                        cell_updates=2**problem.n, launches=2,
                        seconds=2**problem.n / (1e11 if kind == "gpu" else 2e8) + 2 * MODEL_LAUNCH_SECONDS[kind],
                        details={"method": "subset enumeration", "value_type": opencl_type(dtype)})
        return self.plan_many([problem], device)

    def plan_many(self, problems: Sequence[Knapsack], device: Device) -> Plan:
        dtype = value_dtype_of(problems)
        local_size = self._local_size(device)
        updates = sum(p.n * p.cells() for p in problems)
        chunks = self._chunks(problems, device)
        steps = sum(max(problems[i].n for i in chunk) for chunk in chunks)
        kind = "gpu" if device.is_gpu else "other"
        largest = max(chunks, key=lambda c: sum(sum(self._bytes(problems[i], dtype, local_size)) for i in c))
        buffers = {"rows": sum(self._bytes(problems[i], dtype, local_size)[0] for i in largest),
                    "decisions": sum(self._bytes(problems[i], dtype, local_size)[1] for i in largest)}
        return Plan(
            solver=self.name, device_buffers=buffers, cell_updates=updates, launches=steps + len(chunks),
            seconds=updates * (dtype.itemsize * 2 + 0.125) / MODEL_BANDWIDTH[kind]
            + (steps + len(chunks)) * MODEL_LAUNCH_SECONDS[kind] + 0.002,
            details={"value_type": opencl_type(dtype), "local_size": local_size, "chunks": len(chunks),
                     "instances": len(problems)})

    def _chunks(self, problems: Sequence[Knapsack], device: Device) -> list[list[int]]:
        """Instances (indices) of each chunk, in order, each chunk within the memory budget."""
        dtype = value_dtype_of(problems)
        local_size = self._local_size(device)
        total, per_buffer = self._budget(device)
        chunks: list[list[int]] = []
        current: list[int] = []
        rows = decisions = 0
        for index, problem in enumerate(problems):
            r, d = self._bytes(problem, dtype, local_size)
            if r + d > total or r / 2 > per_buffer or d > per_buffer:
                raise DoesNotFitError(
                    f"{self.name}: {problem.describe()} alone needs {r} B of state rows and "
                    f"{d} B of decision bits; {device.label} allows {total} B in all and {per_buffer} B per buffer")
            if current and (rows + r + d + decisions > total or (rows + r) / 2 > per_buffer
                            or decisions + d > per_buffer):
                chunks.append(current)
                current, rows, decisions = [], 0, 0
            current.append(index)
            rows += r
            decisions += d
        chunks.append(current)
        return chunks

    def solve(self, problem: Knapsack, device: Device, plan: Plan) -> Solution:
        return self.solve_many([problem], device)[0]

    def solve_many(self, problems: Sequence[Knapsack], device: Device) -> list[Solution]:
        problems = list(problems)
        out: list[Solution | None] = [None] * len(problems)
        small = [i for i, p in enumerate(problems) if self.enumerates(p)]
        if small:
            for i, solution in zip(small, self._enumerate([problems[i] for i in small], device)):
                out[i] = solution
        for m in sorted({p.m for i, p in enumerate(problems) if out[i] is None}):
            indices = [i for i, p in enumerate(problems) if p.m == m and out[i] is None]
            group = [problems[i] for i in indices]
            chunks = self._chunks(group, device)
            for number, chunk in enumerate(chunks):
                solutions = self._run([group[i] for i in chunk], device, value_dtype_of(group))
                for i, solution in zip(chunk, solutions):
                    if len(chunks) > 1:
                        solution.notes.append(f"batch split into {len(chunks)} chunks to fit {device.label}; "
                                              f"this was chunk {number + 1}")
                    out[indices[i]] = solution
        return out  # type: ignore[return-value]

    def _enumerate(self, problems: list[Knapsack], device: Device) -> list[Solution]:
        """Every subset of each instance, on the device (opencl/subset_enum.cl)."""
        timings = Timings()
        start = time.perf_counter()
        dtype = value_dtype_of(problems)
        local_size = self._local_size(device)
        block_bits = 10
        program = kernels.program(device, "subset_enum.cl", {
            "VALUE_T": opencl_type(dtype), "LOCAL_SIZE": local_size, "BLOCK_BITS": block_bits})
        k = len(problems)
        instances = np.zeros((k, 4), dtype=np.uint32)
        group_instance = []
        first_item = 0
        for index, p in enumerate(problems):
            blocks = 2 ** (p.n - min(p.n, block_bits))
            groups = -(-blocks // local_size)
            instances[index] = (first_item, p.n, len(group_instance), 0)
            group_instance.extend([index] * groups)
            first_item += p.n
        weights = np.concatenate([clamped_weights(p) for p in problems])
        profits = np.concatenate([p.profits for p in problems]).astype(dtype)
        capacities = np.zeros((k, 3), dtype=np.uint32)
        for index, p in enumerate(problems):
            capacities[index, : p.m] = p.capacities
        group_instance = np.asarray(group_instance, dtype=np.uint32)
        groups = len(group_instance)
        timings.host += time.perf_counter() - start

        start = time.perf_counter()
        ctx, queue, flags = device.context, device.queue, cl.mem_flags

        buffers = [upload_readonly(ctx, a) for a in (weights, profits, capacities, instances, group_instance)]
        group_value = cl.Buffer(ctx, flags.READ_WRITE, groups * dtype.itemsize)
        group_mask = cl.Buffer(ctx, flags.READ_WRITE, groups * 4)
        selected_buf = cl.Buffer(ctx, flags.READ_WRITE, first_item)
        values_buf = cl.Buffer(ctx, flags.READ_WRITE, k * dtype.itemsize)
        if self.poison:
            for buf in (group_value, group_mask, selected_buf, values_buf):
                fill(queue, buf, POISON_BYTE)
        queue.finish()
        timings.upload += time.perf_counter() - start

        start = time.perf_counter()
        blocks = cl.Kernel(program, "enum_blocks")
        blocks.set_args(*buffers, group_value, group_mask)
        cl.enqueue_nd_range_kernel(queue, blocks, (groups * local_size,), (local_size,))
        finish = cl.Kernel(program, "enum_finish")
        finish.set_args(buffers[3], group_value, group_mask, np.uint32(k), np.uint32(groups), selected_buf, values_buf)
        group = min(64, device.max_work_group_size)
        cl.enqueue_nd_range_kernel(queue, finish, (-(-k // group) * group,), (group,))
        queue.finish()
        timings.kernels += time.perf_counter() - start
        return self._collect(problems, device, queue, values_buf, selected_buf, dtype, first_item, timings,
                             "subset enumeration")

    def _collect(self, problems, device, queue, values_buf, selected_buf, dtype, items, timings, method):
        """Read back values and item flags of a batch and make one Solution per instance."""
        start = time.perf_counter()
        k = len(problems)
        values = np.empty(k, dtype=dtype)
        cl.enqueue_copy(queue, values, values_buf)
        selected = np.empty(items, dtype=np.uint8)
        cl.enqueue_copy(queue, selected, selected_buf)
        queue.finish()
        timings.download += time.perf_counter() - start
        if selected.max(initial=0) > 1:
            raise RuntimeError(f"{self.name}: unwritten item flags")
        share = Timings(*(getattr(timings, f) / k for f in ("upload", "kernels", "download", "host")))
        out, first = [], 0
        for index, p in enumerate(problems):
            out.append(Solution(value=int(values[index]), selected=selected[first:first + p.n].astype(bool),
                                optimal=True, solver=self.name, device=device.label, timings=share,
                                notes=[f"{method} in a batch of {k}; timings are the batch's divided by {k}"]))
            first += p.n
        return out

    def _run(self, problems: list[Knapsack], device: Device, dtype: np.dtype) -> list[Solution]:
        timings = Timings()
        start = time.perf_counter()
        local_size = self._local_size(device)
        m = problems[0].m
        program = kernels.program(device, "dp_batch.cl", {
            "VALUE_T": opencl_type(dtype), "DIMS": m, "LOCAL_SIZE": local_size})
        k = len(problems)
        table = np.zeros(k, dtype=INSTANCE)
        tile_instance = []
        state_offset = decision_offset = first_item = 0
        for index, p in enumerate(problems):
            layout = DecisionLayout(p.cells(), local_size)
            span1, span2 = spans(p)
            table[index] = (state_offset, decision_offset, p.cells(), span1, span2, len(tile_instance),
                            first_item, p.n, layout.words_per_row, 0)
            tile_instance.extend([index] * layout.tiles)
            state_offset += p.cells()
            decision_offset += p.n * layout.words_per_row
            first_item += p.n
        weights = np.concatenate([clamped_weights(p) for p in problems])
        profits = np.concatenate([p.profits for p in problems]).astype(dtype)
        capacities = np.zeros((k, 3), dtype=np.uint32)
        for index, p in enumerate(problems):
            capacities[index, :m] = p.capacities
        tile_instance = np.asarray(tile_instance, dtype=np.uint32)
        steps = max(p.n for p in problems)
        timings.host += time.perf_counter() - start

        start = time.perf_counter()
        ctx, queue, flags = device.context, device.queue, cl.mem_flags

        weights_buf, profits_buf = upload_readonly(ctx, weights), upload_readonly(ctx, profits)
        table_buf, tiles_buf, caps_buf = (upload_readonly(ctx, a) for a in (table, tile_instance, capacities))
        rows = [cl.Buffer(ctx, flags.READ_WRITE, state_offset * dtype.itemsize) for _ in range(2)]
        decisions = cl.Buffer(ctx, flags.READ_WRITE, max(4, decision_offset * 4))
        selected_buf = cl.Buffer(ctx, flags.READ_WRITE, first_item)
        if self.poison:
            for buf in (decisions, selected_buf):
                fill(queue, buf, POISON_BYTE)
        for buf in rows:  # both: an instance's row is zero until its first item (right alignment)
            fill(queue, buf, 0)
        queue.finish()
        timings.upload += time.perf_counter() - start

        start = time.perf_counter()
        step_kernels = []
        for parity in range(2):
            kernel = cl.Kernel(program, "dp_batch_step")
            kernel.set_args(rows[parity], rows[1 - parity], decisions, weights_buf, profits_buf, table_buf,
                            tiles_buf, np.uint32(steps), np.uint32(0))
            step_kernels.append(kernel)
        global_size = (len(tile_instance) * local_size,)
        for step in range(steps):
            kernel = step_kernels[step & 1]
            kernel.set_arg(8, np.uint32(step))
            cl.enqueue_nd_range_kernel(queue, kernel, global_size, (local_size,))
        values_buf = cl.Buffer(ctx, flags.READ_WRITE, k * dtype.itemsize)
        backtrack = cl.Kernel(program, "dp_batch_backtrack")
        backtrack.set_args(decisions, weights_buf, table_buf, caps_buf, rows[steps & 1], np.uint32(k),
                           selected_buf, values_buf)
        group = min(64, device.max_work_group_size)
        cl.enqueue_nd_range_kernel(queue, backtrack, (-(-k // group) * group,), (group,))
        queue.finish()
        timings.kernels += time.perf_counter() - start

        return self._collect(problems, device, queue, values_buf, selected_buf, dtype, first_item, timings,
                             "dynamic programming")


def upload_readonly(ctx: cl.Context, array: np.ndarray) -> cl.Buffer:
    return cl.Buffer(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=array)


def value_dtype_of(problems: Sequence[Knapsack]) -> np.dtype:
    """One value type for a whole batch: 64-bit when any instance needs it."""
    return max((value_dtype(p) for p in problems), key=lambda d: d.itemsize)
