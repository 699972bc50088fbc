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
from clsolve.dptable import (INT32_MAX, MAX_DIMS, MAX_STATES, MODEL_BANDWIDTH, MODEL_DP_STEP_SECONDS, MODEL_LAUNCH_SECONDS,
                             MODEL_SUBSETS_PER_SECOND, POISON_BYTE, Concatenated, dp_accepts, opencl_type,
                             value_dtype, work_group_size)
from clsolve.errors import DoesNotFitError, InvalidOptionError, UnsupportedProblemError
from clsolve.presolve import Reduction, identity, reduce_many
from clsolve.problems import Knapsack
from clsolve.solution import Solution, Timings
from clsolve.solver import DEVICE_MEMORY_SHARE, Plan, Solver, problem_label

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
                 method: str = "auto", presolve: bool = True):
        """``local_size`` overrides the work-group size; ``poison`` fills device buffers with garbage
        first (tests); ``memory_limit`` caps the device bytes one chunk may use (default: the
        device's own limit), which forces a batch into several chunks. ``method`` chooses per
        instance: ``dp`` (the dense DP), ``enumerate`` (every subset, n <= 30), or ``auto``
        (enumerate where 2^n <= n x states, the DP's cell updates; and a whole DP group of small
        instances where enumerating it is estimated cheaper than its item steps, see
        ``clsolve.dptable.MODEL_DP_STEP_SECONDS``). ``presolve`` applies the exact
        reductions of ``clsolve.presolve`` first (``False``: solve the problems as given)."""
        if memory_limit is not None and memory_limit <= 0:
            raise InvalidOptionError(f"memory_limit must be positive, got {memory_limit}")
        if method not in ("auto", "dp", "enumerate"):
            raise InvalidOptionError(f"method must be auto, dp or enumerate, got {method!r}")
        self.method = method
        self.local_size = local_size
        self.poison = poison
        self.memory_limit = memory_limit
        self.presolve = bool(presolve)
        self._last_work: tuple | None = None

    def accepts(self, problem) -> str | None:
        if not isinstance(problem, Knapsack):
            return f"{self.name} solves knapsack problems only"
        return self._accepts_reduced(self._reductions([problem])[0].problem)

    def _accepts_reduced(self, problem: Knapsack | None) -> str | None:
        if problem is None:
            return None
        if self.method == "enumerate":
            if problem.m > 3:
                return f"{self.name} enumerates knapsacks with m = 1..3"
            return None if problem.n <= ENUMERATION_MAX_ITEMS else \
                f"method=enumerate takes n <= {ENUMERATION_MAX_ITEMS}; this problem has n = {problem.n}"
        return dp_accepts(problem, self.name)

    def enumerates(self, problem: Knapsack) -> bool:
        """Whether this (reduced) instance is solved by subset enumeration rather than the DP."""
        if self.method != "auto":
            return self.method == "enumerate"
        return problem.n <= ENUMERATION_MAX_ITEMS and 2**problem.n <= problem.n * problem.cells()

    def _local_size(self, device: Device) -> int:
        return work_group_size(device.max_work_group_size, self.local_size)

    def _sizes(self, problems: Sequence[Knapsack], dtype: np.dtype, local_size: int) -> tuple[np.ndarray, np.ndarray]:
        """Per instance: (state row bytes for both buffers, decision bytes), as int64 arrays."""
        states = np.fromiter((p.cells() for p in problems), dtype=np.int64, count=len(problems))
        items = np.fromiter((p.n for p in problems), dtype=np.int64, count=len(problems))
        tiles = -(-states // (32 * local_size))
        return 2 * states * dtype.itemsize, items * tiles * local_size * 4

    def _budget(self, device: Device) -> tuple[int, int]:
        """(bytes a chunk may use in all, bytes one buffer may hold)."""
        total = int(device.global_memory * DEVICE_MEMORY_SHARE)
        if self.memory_limit is not None:
            total = min(total, int(self.memory_limit))
        return total, device.max_allocation

    def _work(self, problems: Sequence[Knapsack], device: Device) -> tuple[list[Reduction], list[int], dict[int, list[int]]]:
        """The reductions, the indices solved by enumeration, and those solved by the DP, by m.
        Remembered for the last batch (problems are immutable), which ``solve_many`` meets again
        right after the engine's ``checked_plan_many``."""
        key = (device.label, *map(id, problems))
        if self._last_work is not None and self._last_work[0] == key:
            return self._last_work[1]
        reductions = self._reductions(problems)
        enumerated: list[int] = []
        dense: dict[int, list[int]] = {}
        for index, r in enumerate(reductions):
            if r.problem is None:
                continue
            if self.enumerates(r.problem):
                enumerated.append(index)
            else:
                dense.setdefault(r.problem.m, []).append(index)
        if self.method == "auto":
            kind = "gpu" if device.is_gpu else "other"
            for m, indices in list(dense.items()):
                # a DP group costs at least one step per item of its longest instance, however small its
                # rows: when enumerating all of it costs less, it joins the enumeration batch
                group = [reductions[i].problem for i in indices]
                if max(p.n for p in group) > ENUMERATION_MAX_ITEMS:
                    continue
                enumeration = sum(2**p.n for p in group) / MODEL_SUBSETS_PER_SECOND[kind]
                steps = max(p.n for p in group) * MODEL_DP_STEP_SECONDS[kind]
                if enumeration < steps:
                    enumerated.extend(indices)
                    del dense[m]
            enumerated.sort()
        self._last_work = (key, (reductions, enumerated, dense), list(problems))
        return reductions, enumerated, dense

    def _reductions(self, problems: Sequence[Knapsack]) -> list[Reduction]:
        if self.presolve:
            # an instance enumerated as given costs 2^n whatever its capacities: only dropped or
            # always-taken items can help it, so only those rules are applied (and paid for)
            as_given = [self.method == "enumerate" or (self.method == "auto" and p.m <= 3 and self.enumerates(p))
                        for p in problems]
            return reduce_many(problems, items_only=as_given)
        return [identity(p) for p in problems]

    def plan(self, problem: Knapsack, device: Device) -> Plan:
        return self.plan_many([problem], device)

    def plan_many(self, problems: Sequence[Knapsack], device: Device) -> Plan:
        """One plan for the whole batch; raises DoesNotFitError naming an instance too large alone."""
        reductions, enumerated, dense = self._work(problems, device)
        kind = "gpu" if device.is_gpu else "other"
        local_size = self._local_size(device)
        plan = Plan(solver=self.name, details={"instances": len(problems), "local_size": local_size,
                                                "presolved": sum(r.changed for r in reductions),
                                                "solved_by_presolve": sum(r.problem is None for r in reductions)})
        if enumerated:
            reduced = [reductions[i].problem for i in enumerated]
            dtype = value_dtype_of(reduced)
            subsets = sum(2**p.n for p in reduced)
            plan.device_buffers["enumeration"] = sum(p.n * (13 + dtype.itemsize) for p in reduced)
            plan.cell_updates += subsets
            plan.launches += 2
            plan.seconds += subsets / MODEL_SUBSETS_PER_SECOND[kind] + 2 * MODEL_LAUNCH_SECONDS[kind]
            plan.details["enumerated"] = len(enumerated)
        chunk_count = 0
        for m, indices in dense.items():
            reduced = [reductions[i].problem for i in indices]
            dtype = value_dtype_of(reduced)
            rows, decisions = self._sizes(reduced, dtype, local_size)
            chunks = self._chunks(reduced, indices, device, (rows, decisions))
            updates = sum(p.n * p.cells() for p in reduced)
            steps = sum(max(reduced[i].n for i in chunk) for chunk in chunks)
            largest = max(chunks, key=lambda c: int(rows[c].sum() + decisions[c].sum()))
            row_bytes, decision_bytes = int(rows[largest].sum()) // 2, int(decisions[largest].sum())
            for key, size in (("row_a", row_bytes), ("row_b", row_bytes), ("decisions", decision_bytes)):
                plan.device_buffers[key] = max(plan.device_buffers.get(key, 0), size)
            plan.cell_updates += updates
            plan.launches += steps + len(chunks)
            plan.seconds += (updates * (dtype.itemsize * 2 + 0.125) / MODEL_BANDWIDTH[kind]
                             + (steps + len(chunks)) * MODEL_LAUNCH_SECONDS[kind])
            plan.details["value_type"] = opencl_type(dtype)
            chunk_count += len(chunks)
        plan.seconds += 0.002
        plan.details["chunks"] = chunk_count
        return plan

    def costs(self, problems: Sequence, device: Device | None) -> np.ndarray:
        """Each problem's share of a batch's planned seconds, by the same model as ``plan_many`` but
        before presolve and without the per-step launch costs a batch shares (for cutting a large
        batch into chunks; NaN for problems this solver does not take). One pass over the problems
        gathers sizes; the model runs on arrays (a batch of 63,000 costs tens of milliseconds)."""
        kind = "gpu" if device is None or device.is_gpu else "other"
        out = np.full(len(problems), np.nan)
        rows = [k for k, p in enumerate(problems) if isinstance(p, Knapsack)]
        if not rows:
            return out
        knapsacks = [problems[k] for k in rows]
        n = np.fromiter((p.profits.size for p in knapsacks), dtype=np.float64, count=len(rows))
        m = np.fromiter((p.capacities.size for p in knapsacks), dtype=np.int64, count=len(rows))
        wide = np.fromiter((p.total_profit > INT32_MAX for p in knapsacks), dtype=bool, count=len(rows))
        # prod(c + 1) per problem, in floats (exact below 2^53; only compared and scaled here)
        capacities = np.concatenate([p.capacities for p in knapsacks]).astype(np.float64) + 1.0
        starts = np.zeros(len(rows), dtype=np.int64)
        np.cumsum(m[:-1], out=starts[1:])
        cells = np.multiply.reduceat(capacities, starts)
        if self.method == "enumerate":
            taken = (m <= 3) & (n <= ENUMERATION_MAX_ITEMS)
            enumerated = taken
        else:
            taken = (m <= MAX_DIMS) & (cells <= MAX_STATES)
            enumerated = (n <= ENUMERATION_MAX_ITEMS) & (np.exp2(np.minimum(n, 64)) <= n * cells)
            if self.method == "dp":
                enumerated[:] = False
        value_bytes = np.where(wide, 8.0, 4.0)
        cost = np.where(enumerated, np.exp2(np.minimum(n, 64)) / MODEL_SUBSETS_PER_SECOND[kind],
                        n * cells * (2 * value_bytes + 0.125) / MODEL_BANDWIDTH[kind])
        out[np.asarray(rows)[taken]] = cost[taken]
        return out

    def checked_plan_many(self, problems: Sequence, device: Device) -> Plan:
        for index, problem in enumerate(problems):
            if not isinstance(problem, Knapsack):
                raise UnsupportedProblemError(f"{problem_label(index, problem)}: {self.name} solves knapsacks only")
        for index, r in enumerate(self._work(problems, device)[0]):
            reason = self._accepts_reduced(r.problem)
            if reason is not None:
                raise UnsupportedProblemError(f"{problem_label(index, problems[index])}: {self.name} cannot solve it: "
                                              f"{reason}")
        return self.plan_many(problems, device)

    def _chunks(self, problems: Sequence[Knapsack], indices: Sequence[int], device: Device,
                sizes: tuple[np.ndarray, np.ndarray] | None = None) -> list[list[int]]:
        """Positions in ``problems`` of each chunk, in order, each chunk within the memory budget
        (``indices``: the problems' places in the caller's batch, for errors)."""
        if sizes is None:
            sizes = self._sizes(problems, value_dtype_of(problems), self._local_size(device))
        total, per_buffer = self._budget(device)
        chunks: list[list[int]] = []
        current: list[int] = []
        rows = decisions = 0
        for position, (r, d) in enumerate(zip(sizes[0].tolist(), sizes[1].tolist())):
            if r + d > total or r / 2 > per_buffer or d > per_buffer:
                raise DoesNotFitError(
                    f"{problem_label(indices[position], problems[position])}: {self.name} needs {r} B of state "
                    f"rows and {d} B of decision bits for it alone; {device.label} allows {total} B in all and "
                    f"{per_buffer} B per buffer")
            if current and (rows + r + d + decisions > total or (rows + r) / 2 > per_buffer
                            or decisions + d > per_buffer):
                chunks.append(current)
                current, rows, decisions = [], 0, 0
            current.append(position)
            rows += r
            decisions += d
        chunks.append(current)
        return chunks

    def solve(self, problem: Knapsack, device: Device, plan: Plan) -> Solution:
        return self.solve_many([problem], device)[0]

    def solve_many(self, problems: Sequence[Knapsack], device: Device) -> list[Solution]:
        problems = list(problems)
        reductions, enumerated, dense = self._work(problems, device)
        out: list[Solution | None] = [None] * len(problems)
        for index, r in enumerate(reductions):
            if r.problem is None:
                out[index] = r.trivial(self.name, device.label)
        if enumerated:
            solved = self._enumerate([reductions[i].problem for i in enumerated], device)
            for i, solution in zip(enumerated, solved):
                out[i] = reductions[i].expand(solution)
        for m, indices in dense.items():
            group = [reductions[i].problem for i in indices]
            chunks = self._chunks(group, indices, device)
            for number, chunk in enumerate(chunks):
                solutions = self._run([group[i] for i in chunk], device, value_dtype_of(group))
                for i, solution in zip(chunk, solutions):
                    if len(chunks) > 1:
                        solution.notes.append(f"batch split into {len(chunks)} chunks to fit {device.label}; "
                                              f"this was chunk {number + 1}")
                    out[indices[i]] = reductions[indices[i]].expand(solution)
        return out  # type: ignore[return-value]

    def _enumerate(self, problems: list[Knapsack], device: Device) -> list[Solution]:
        """Every subset of each instance, on the device (opencl/subset_enum.cl)."""
        timings = Timings()
        start = time.perf_counter()
        dtype = value_dtype_of(problems)
        local_size = self._local_size(device)
        block_bits = 10
        k = len(problems)
        batch = Concatenated.of(problems, dtype)
        largest_sum = int(np.add.reduceat(batch.weights.astype(np.int64), batch.first_item, axis=0).max())
        program = kernels.program(device, "subset_enum.cl", {
            "VALUE_T": opencl_type(dtype), "LOCAL_SIZE": local_size, "BLOCK_BITS": block_bits,
            "SUM_T": "uint" if largest_sum < 2**32 else "ulong"})
        blocks = 2 ** np.maximum(batch.sizes - block_bits, 0)
        groups_per_instance = -(-blocks // local_size)
        first_group = np.zeros(k, dtype=np.int64)
        np.cumsum(groups_per_instance[:-1], out=first_group[1:])
        instances = np.zeros((k, 4), dtype=np.uint32)
        instances[:, 0], instances[:, 1], instances[:, 2] = batch.first_item, batch.sizes, first_group
        group_instance = np.repeat(np.arange(k, dtype=np.uint32), groups_per_instance)
        weights, profits, capacities = batch.weights, batch.profits, batch.capacities
        groups = len(group_instance)
        first_item = int(batch.sizes.sum())
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
        flags = selected.astype(bool)
        share = Timings(*(getattr(timings, f) / k for f in ("upload", "kernels", "download", "host")))
        note = f"{method} in a batch of {k}; timings are the batch's divided by {k}"
        out, first, label = [], 0, device.label
        for value, p in zip(values.tolist(), problems):
            n = p.n
            out.append(Solution(value=value, selected=flags[first:first + n], optimal=True, solver=self.name,
                                device=label, timings=share, notes=[note]))
            first += n
        return out

    def _run(self, problems: list[Knapsack], device: Device, dtype: np.dtype) -> list[Solution]:
        timings = Timings()
        start = time.perf_counter()
        local_size = self._local_size(device)
        m = problems[0].m
        program = kernels.program(device, "dp_batch.cl", {
            "VALUE_T": opencl_type(dtype), "DIMS": m, "LOCAL_SIZE": local_size})
        k = len(problems)
        batch = Concatenated.of(problems, dtype)
        caps = batch.capacities.astype(np.int64)
        tiles = -(-batch.states // (32 * local_size))
        words_per_row = tiles * local_size
        table = np.zeros(k, dtype=INSTANCE)
        table["state_offset"] = np.cumsum(batch.states) - batch.states
        table["decision_offset"] = np.cumsum(batch.sizes * words_per_row) - batch.sizes * words_per_row
        table["states"] = batch.states
        # the flattening of clsolve.h: state = c1 * span1 + c2 * span2 + c3 (spans of unused dimensions unused)
        table["span1"] = np.where(m == 1, 1, (caps[:, 1] + 1) * np.where(m == 3, caps[:, 2] + 1, 1))
        table["span2"] = np.where(m == 2, 1, np.where(m == 3, caps[:, 2] + 1, 0))
        table["first_tile"] = np.cumsum(tiles) - tiles
        table["first_item"] = batch.first_item
        table["items"] = batch.sizes
        table["words_per_row"] = words_per_row
        tile_instance = np.repeat(np.arange(k, dtype=np.uint32), tiles)
        weights, profits, capacities = batch.weights, batch.profits, batch.capacities
        state_offset = int(batch.states.sum())
        decision_offset = int((batch.sizes * words_per_row).sum())
        first_item = int(batch.sizes.sum())
        steps = int(batch.sizes.max())
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
