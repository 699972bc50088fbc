"""Host side of ``dp-batch`` (kernels in ``dp_batch.cl`` and ``subset_enum.cl``).

The state rows of all instances of a batch are concatenated (the offsets vector S of [LLMF]),
one launch per item step advances every instance (items right-aligned, so instances with fewer
items need no artificial items), decision bits stay on the device, and one work-item per instance
backtracks (Algorithm 3.3): only values and item vectors come back. Instances of different m are
batched separately; a batch larger than the device is cut into chunks that fit, run back to back.
Instances whose 2^n subsets are fewer than the DP's n x states cell updates (the 20-item MSB set:
10^6 against 2 x 10^7) are instead solved by enumerating every subset on the device, in one launch
for all of them; both methods are exact and return the items.

The host side works on the batch as packed arrays (``clsolve.batch.packed``) from end to end: presolve
(``clsolve.dp.presolve.reduce_packed``), the choice of method, the plan, the device layout, and the
answers, with no Python object per instance; a batch of 63,000 costs a few milliseconds of NumPy
besides packing the problems and building the solutions.
"""

# long module: the batch's two methods (the DP and subset enumeration) share the packed layout and the plan
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pyopencl as cl

from clsolve.sdk import (
    INT32_MAX,
    MAX_DIMS,
    MAX_STATES,
    MODEL_BANDWIDTH,
    MODEL_DP_STEP_SECONDS,
    MODEL_LAUNCH_SECONDS,
    MODEL_SUBSETS_PER_SECOND,
    POISON_BYTE,
    Concatenated,
    Device,
    DoesNotFitError,
    InvalidOptionError,
    Knapsack,
    Pacer,
    PackedBatchSolver,
    PackedProblems,
    PackedReduction,
    PackedSolutions,
    Plan,
    Reduction,
    Timings,
    UnsupportedProblemError,
    Workspace,
    concatenated_ranges,
    copy_later,
    deadline,
    dp_accepts,
    fill,
    identity,
    identity_packed,
    kernels,
    opencl_type,
    options,
    problem_label,
    reduce_many,
    reduce_packed,
    work_group_size,
)

from . import chip

#: Subset enumeration is exact for any n, but its masks are 32-bit words and its work is 2^n.
ENUMERATION_MAX_ITEMS = 30
#: Subset enumeration holds weights and capacities (each capacity first lowered to its dimension's
#: total weight, which changes nothing) in 32 bits, weights clamped to capacity + 1.
ENUMERATION_MAX_CAPACITY = 2**32 - 2
#: Subset enumeration: each work-item walks a block of 2^ENUMERATION_BLOCK_BITS subsets.
ENUMERATION_BLOCK_BITS = 10
#: What every plan adds to its model: the batch's setup, copies and checks beside its kernels.
PLAN_SECONDS = 0.002
#: instance_t of dp_batch.cl, declared to the kernel from this dtype (kernels.struct_declaration):
#: S, the instance's first state in the concatenated rows; its first decision word; its states
#: (C1+1)(C2+1)(C3+1); the flattening spans of dp_states.h; its first work-group; its first item in
#: the weights and profits arrays; n_k; decision words per item row.
INSTANCE = np.dtype(
    [
        ("state_offset", np.uint64),
        ("decision_offset", np.uint64),
        ("states", np.uint32),
        ("span1", np.uint32),
        ("span2", np.uint32),
        ("first_tile", np.uint32),
        ("first_item", np.uint32),
        ("items", np.uint32),
        ("words_per_row", np.uint32),
        ("pad", np.uint32),
    ],
    align=True,
)
#: The dense DP over concatenated rows ([LLMF], Algorithms 3.1-3.3).
DP_SOURCE = kernels.KernelSource.resource("clsolve_plugins.dp_batch", "dp_batch.cl")
#: Every subset of each instance.
ENUMERATION_SOURCE = kernels.KernelSource.resource("clsolve_plugins.dp_batch", "subset_enum.cl")
#: The kernels of each way: enumeration (best subset per block, then per problem) and the dense DP
#: (on-chip rows, item steps, the trace-back).
ENUMERATION_KERNELS = ("enum_blocks", "enum_finish")
DENSE_KERNELS = ("dp_batch_chip", "dp_batch_step", "dp_batch_backtrack")


@dataclass
class _Work:
    """What a packed batch comes to: its reduction, and which reduced rows each method solves."""

    reduction: PackedReduction
    #: Reduced rows solved by subset enumeration.
    enumerated: np.ndarray
    #: Reduced rows solved by the DP, by m.
    dense: dict[int, np.ndarray]


@dataclass
class _Answer:
    """The answers of one launch sequence (the enumeration batch, or one DP chunk)."""

    values: np.ndarray
    selected: np.ndarray
    timings: Timings
    note: str


class KnapsackBatchSolver(PackedBatchSolver):
    name = "dp-batch"
    summary = (
        "k instances at once on an OpenCL device, one launch per item step (rows that fit in local memory: "
        "all their items in one launch), items by per-instance backtracking"
    )

    def __init__(
        self,
        local_size: int | None = None,
        poison: bool = False,
        memory_limit: int | None = None,
        method: str = "auto",
        presolve: bool = True,
        on_chip: bool | None = None,
    ):
        """``local_size`` overrides the work-group size; ``poison`` fills device buffers with garbage
        first (tests); ``memory_limit`` caps the device bytes one chunk may use (default: the
        device's own limit), which forces a batch into several chunks. ``method`` chooses per
        instance: ``dp`` (the dense DP), ``enumerate`` (every subset, n <= 30), or ``auto``
        (enumerate where 2^n <= n x states, the DP's cell updates; and a whole DP group of small
        instances where enumerating it is estimated cheaper than its item steps, see
        ``clsolve.dp.table.MODEL_DP_STEP_SECONDS``). ``presolve`` applies the exact
        reductions of ``clsolve.dp.presolve`` first (``False``: solve the problems as given). ``on_chip``
        keeps an instance's DP row in local memory for all its items where it fits
        (``plugins/dp_batch/chip.py``): ``True`` wherever it fits, ``False`` never (one launch per item
        step for all), ``None`` (default) where it pays, on a GPU."""
        memory_limit = options.integer("memory_limit", memory_limit, minimum=1, none=True)
        if method not in ("auto", "dp", "enumerate"):
            raise InvalidOptionError(f"method must be auto, dp or enumerate, got {method!r}")
        self.method = method
        self.local_size = options.integer("local_size", local_size, minimum=1, none=True)
        self.poison = options.flag("poison", poison)
        self.memory_limit = memory_limit
        self.presolve = options.flag("presolve", presolve)
        self.on_chip = None if on_chip is None else options.flag("on_chip", on_chip)

    # ------------------------------------------------------------------------- one problem at a time

    def accepts(self, problem) -> str | None:
        if not isinstance(problem, Knapsack):
            return f"{self.name} solves knapsack problems only"
        return self._accepts_reduced(self._reductions([problem])[0].problem, problem)

    def _accepts_reduced(self, problem: Knapsack | None, given: Knapsack | None = None) -> str | None:
        if problem is None:
            return None
        if self.method == "enumerate" or (self.method == "auto" and self.enumerates(problem)):
            reason = self._enumeration_refusal(problem)
            if reason is None or self.method == "enumerate":
                return reason
        return dp_accepts(problem, self.name, given)

    @staticmethod
    def _enumeration_refusal(problem: Knapsack) -> str | None:
        if problem.m > 3:
            return "subset enumeration takes knapsacks with m = 1..3"
        if problem.n > ENUMERATION_MAX_ITEMS:
            return f"method=enumerate takes n <= {ENUMERATION_MAX_ITEMS}; this problem has n = {problem.n}"
        totals = problem.weights.sum(axis=0, dtype=object)
        for d, (c, total) in enumerate(zip(problem.capacities.tolist(), totals)):
            if min(c, int(total)) > ENUMERATION_MAX_CAPACITY:
                return (
                    f"method=enumerate holds capacities in 32 bits: capacity {d} is {c} and its items weigh "
                    f"{int(total)} in all, both above {ENUMERATION_MAX_CAPACITY}"
                )
        return None

    def enumerates(self, problem: Knapsack) -> bool:
        """Whether this (reduced) instance is solved by subset enumeration rather than the DP."""
        if self.method != "auto":
            return self.method == "enumerate"
        return problem.n <= ENUMERATION_MAX_ITEMS and 2**problem.n <= problem.n * problem.cells()

    def least_seconds(self, problem: Knapsack, device: Device) -> float:
        """The plan's fixed PLAN_SECONDS, and its subsets at the model's rate where it enumerates, or the
        lesser of that and its updates (an item for every state; two values of at least 4 bytes and a
        decision bit each) at the model's bandwidth where it does not."""
        reduced = self._reductions([problem])[0].problem
        kind = "gpu" if device.is_gpu else "other"
        if reduced is None:
            return PLAN_SECONDS
        subsets = 2.0**reduced.n / MODEL_SUBSETS_PER_SECOND[kind] if reduced.n <= ENUMERATION_MAX_ITEMS else np.inf
        if bool(self._enumerated(reduced.n, reduced.cells())):
            return PLAN_SECONDS + subsets
        # a group of small instances may be enumerated where that is cheaper than its item steps
        updates = reduced.n * reduced.cells()
        streamed = updates * 8.125 / MODEL_BANDWIDTH[kind]
        stays = bool(self._on_chip(np.array([reduced.cells()]), device, np.dtype(np.int32), self._local_size(device))[0])
        return PLAN_SECONDS + min(subsets, chip.seconds(updates, kind) if stays else streamed)

    def _reductions(self, problems: Sequence[Knapsack]) -> list[Reduction]:
        if self.presolve:
            return reduce_many(problems, items_only=[bool(self._as_given(p.n, p.m, min(p.cells(), 2**64))) for p in problems])
        return [identity(p) for p in problems]

    # ---------------------------------------------------------------------- a batch, as packed arrays

    def _enumerated(self, n, cells):
        """Where the method enumerates (arrays or scalars of items and states)."""
        if self.method != "auto":
            return np.full(np.shape(n), self.method == "enumerate")
        n = np.asarray(n, dtype=np.float64)
        return (n <= ENUMERATION_MAX_ITEMS) & (np.exp2(np.minimum(n, 64)) <= n * np.asarray(cells, dtype=np.float64))

    def _as_given(self, n, m, cells):
        """Where presolve may only drop or always take items: an instance enumerated as given costs
        2^n whatever its capacities, so only those rules help it (and are paid for)."""
        if self.method != "auto":
            return np.full(np.shape(n), self.method == "enumerate")
        return (np.asarray(m) <= 3) & self._enumerated(n, cells)

    def _work(self, packed: PackedProblems, device: Device) -> _Work:
        """The reduction of a packed batch and each reduced row's method; refuses (naming the
        problem's batch index) what this solver cannot solve. Made once per batch, device and options
        (the batch's ``memo``), for the plan and the solve."""
        key = (self.name, device.label, self.method, self.presolve, self.local_size, self.on_chip, self.memory_limit)
        if key not in packed.memo:
            packed.memo[key] = self._made_work(packed, device)
        return packed.memo[key]

    def _made_work(self, packed: PackedProblems, device: Device) -> _Work:
        self.refuse_others(packed)
        n, m, _ = packed.segments()
        reduction = reduce_packed(packed, self._as_given(n, m, packed.cells())) if self.presolve else identity_packed(packed)
        reduced = reduction.reduced
        rn, rm, _ = reduced.segments()
        cells = reduced.cells()
        self._refuse(packed, reduced, rn, rm, cells)
        enumerated = self._enumerated(rn, cells)
        dense = {width: np.flatnonzero(~enumerated & (rm == width)) for width in np.unique(rm[~enumerated]).tolist()}
        if self.method == "auto":
            kind = "gpu" if device.is_gpu else "other"
            for width, rows in list(dense.items()):
                # a DP group costs at least one step per item of its longest instance, however small its
                # rows: when enumerating all of it costs less, it joins the enumeration batch
                longest = int(rn[rows].max())
                if longest > ENUMERATION_MAX_ITEMS:
                    continue
                if np.exp2(rn[rows]).sum() / MODEL_SUBSETS_PER_SECOND[kind] < self._least_dp_seconds(
                    rn[rows], cells[rows], device, self._dtype(reduced, rows)
                ):
                    enumerated[rows] = True
                    del dense[width]
        return _Work(reduction, np.flatnonzero(enumerated), dense)

    def _least_dp_seconds(self, n: np.ndarray, cells: np.ndarray, device: Device, dtype: np.dtype) -> float:
        """At least what a DP group costs however small its rows: a step per item of its longest row
        that does not stay on chip, and the on-chip rows' updates in one launch."""
        kind = "gpu" if device.is_gpu else "other"
        stays = self._on_chip(cells, device, dtype, self._local_size(device))
        seconds = float(n[~stays].max(initial=0)) * MODEL_DP_STEP_SECONDS[kind]
        if stays.any():
            seconds += chip.seconds(float((n * cells)[stays].sum()), kind) + MODEL_LAUNCH_SECONDS[kind]
        return seconds

    def _refuse(self, packed: PackedProblems, reduced: PackedProblems, n: np.ndarray, m: np.ndarray, cells: np.ndarray) -> None:
        """Raise UnsupportedProblemError for the first reduced knapsack this solver cannot solve."""
        dense_bad = (m > MAX_DIMS) | (cells > MAX_STATES)
        if self.method == "enumerate":
            bad = _not_enumerable(reduced)
        elif self.method == "dp":
            bad = dense_bad
        else:  # what auto enumerates needs no DP row
            bad = dense_bad & (~self._enumerated(n, cells) | _not_enumerable(reduced))
        if not bad.any():
            return
        row = int(reduced.positions[int(np.argmax(bad))])
        position = int(packed.knapsack_positions[row])
        problem = packed.unpack_one(position)
        reason = self.accepts(problem) or f"its reduced form has m = {int(m[bad][0])} and n = {int(n[bad][0])}"
        raise UnsupportedProblemError(f"{problem_label(position, problem)}: {self.name} cannot solve it: {reason}")

    def _local_size(self, device: Device) -> int:
        return work_group_size(device.max_work_group_size, self.local_size)

    def _budget(self, device: Device) -> tuple[int, int]:
        """(bytes a chunk may use in all, bytes one buffer may hold)."""
        total = device.memory_budget
        if self.memory_limit is not None:
            total = min(total, int(self.memory_limit))
        return total, device.max_allocation

    @staticmethod
    def _dtype(reduced: PackedProblems, rows: np.ndarray) -> np.dtype:
        """One value type for the rows solved together: 64-bit when any instance's profits need it."""
        totals = np.add.reduceat(reduced.profits, reduced.item_offsets[:-1])[rows]
        return np.dtype(np.int64 if totals.size and int(totals.max()) > INT32_MAX else np.int32)

    def _dense_layout(self, reduced: PackedProblems, rows: np.ndarray, local_size: int) -> tuple[np.ndarray, ...]:
        """Per DP row: (state row bytes for both buffers, decision bytes, items, states)."""
        n = np.diff(reduced.item_offsets)[rows]
        states = np.rint(reduced.cells()[rows]).astype(np.int64)  # <= MAX_STATES: exact
        tiles = -(-states // (32 * local_size))
        return 2 * states * self._dtype(reduced, rows).itemsize, n * tiles * local_size * 4, n, states

    def _chunks(
        self, row_bytes: np.ndarray, decision_bytes: np.ndarray, device: Device, describe: Callable[[int], str]
    ) -> list[np.ndarray]:
        """Positions of each chunk, in order, each chunk within the memory budget (``describe``
        names the problem at a position, for the error when one alone is too large)."""
        total, per_buffer = self._budget(device)
        alone = (row_bytes + decision_bytes > total) | (row_bytes / 2 > per_buffer) | (decision_bytes > per_buffer)
        if alone.any():
            i = int(np.argmax(alone))
            raise DoesNotFitError(
                f"{describe(i)}: {self.name} needs {int(row_bytes[i])} B of state rows and {int(decision_bytes[i])} B "
                f"of decision bits for it alone; {device.label} allows {total} B in all and {per_buffer} B per buffer"
            )
        rows_all, decisions_all = int(row_bytes.sum()), int(decision_bytes.sum())
        if rows_all + decisions_all <= total and rows_all / 2 <= per_buffer and decisions_all <= per_buffer:
            return [np.arange(len(row_bytes))]
        chunks: list[np.ndarray] = []
        first = rows = decisions = 0
        for position, (r, d) in enumerate(zip(row_bytes.tolist(), decision_bytes.tolist())):
            if position > first and (
                rows + r + d + decisions > total or (rows + r) / 2 > per_buffer or decisions + d > per_buffer
            ):
                chunks.append(np.arange(first, position))
                first, rows, decisions = position, 0, 0
            rows += r
            decisions += d
        chunks.append(np.arange(first, len(row_bytes)))
        return chunks

    def _describer(self, packed: PackedProblems, reduced: PackedProblems, rows: np.ndarray) -> Callable[[int], str]:
        def describe(i: int) -> str:
            position = int(packed.knapsack_positions[int(reduced.positions[int(rows[i])])])
            return problem_label(position, packed.unpack_one(position))

        return describe

    def plan_packed(self, packed: PackedProblems, device: Device) -> Plan:
        """One plan for the whole batch; raises naming the first instance it cannot solve or that is
        too large alone."""
        work = self._work(packed, device)
        reduced = work.reduction.reduced
        n = np.diff(reduced.item_offsets)
        kind = "gpu" if device.is_gpu else "other"
        local_size = self._local_size(device)
        plan = Plan(
            solver=self.name,
            details={
                "instances": len(packed.knapsack_positions),
                "local_size": local_size,
                "presolved": int((work.reduction.note_index >= 0).sum()),
                "solved_by_presolve": len(packed.knapsack_positions) - len(reduced),
            },
        )
        if work.enumerated.size:
            rows = work.enumerated
            dtype = self._dtype(reduced, rows)
            subsets = int(np.left_shift(np.int64(1), n[rows]).sum())
            plan.device_buffers.update(_enumeration_buffers(n[rows], dtype.itemsize, local_size))
            plan.cell_updates += subsets
            plan.launches += 2
            plan.kernels += ENUMERATION_KERNELS
            plan.seconds += subsets / MODEL_SUBSETS_PER_SECOND[kind] + 2 * MODEL_LAUNCH_SECONDS[kind]
            plan.details["enumerated"] = int(rows.size)
        chunk_count = 0
        if work.dense:
            plan.kernels += DENSE_KERNELS
        for rows in work.dense.values():
            dtype = self._dtype(reduced, rows)
            row_bytes, decision_bytes, items, states = self._dense_layout(reduced, rows, local_size)
            chunks = self._chunks(row_bytes, decision_bytes, device, self._describer(packed, reduced, rows))
            stays = self._on_chip(states, device, dtype, local_size)
            updates = int((items * states).sum())
            chip_updates = int((items * states)[stays].sum())
            steps = sum(int(items[chunk][~stays[chunk]].max(initial=0)) for chunk in chunks)
            launches = steps + len(chunks) + sum(-(-int(stays[chunk].sum()) // chip.LAUNCH_GROUPS) for chunk in chunks)
            for chunk in chunks:
                for key, size in _dense_buffers(items[chunk], states[chunk], stays[chunk], dtype.itemsize, local_size).items():
                    plan.device_buffers[key] = max(plan.device_buffers.get(key, 0), size)
            plan.cell_updates += updates
            plan.launches += launches
            plan.seconds += (
                (updates - chip_updates) * (dtype.itemsize * 2 + 0.125) / MODEL_BANDWIDTH[kind]
                + chip.seconds(chip_updates, kind)
                + float(decision_bytes[stays].sum()) / MODEL_BANDWIDTH[kind]
                + launches * MODEL_LAUNCH_SECONDS[kind]
            )
            plan.details["value_type"] = opencl_type(dtype)
            plan.details["on_chip"] = plan.details.get("on_chip", 0) + int(stays.sum())
            chunk_count += len(chunks)
        plan.seconds += PLAN_SECONDS
        plan.details["chunks"] = chunk_count
        return plan

    # long: the batch's enumerated and dense parts and their answers in input order
    def solve_packed(self, packed: PackedProblems, device: Device, plan: Plan) -> PackedSolutions:
        """Solve a packed batch with its plan: values and items of every knapsack, in order."""
        watch = deadline.Stopwatch()
        work = self._work(packed, device)
        reduction = work.reduction
        reduced = reduction.reduced
        n = np.diff(reduced.item_offsets)
        values = np.zeros(len(reduced), dtype=np.int64)
        selected = np.zeros(reduced.profits.size, dtype=bool)
        timings = np.zeros((len(reduced), len(Timings().row())))
        batch_of = np.full(len(reduced), -1, dtype=np.int64)
        batch_notes: list[tuple[str, ...]] = []

        def put(rows: np.ndarray, answer: _Answer, extra: tuple[str, ...] = ()) -> None:
            values[rows] = answer.values
            selected[concatenated_ranges(reduced.item_offsets[rows], n[rows])] = answer.selected
            t = answer.timings
            timings[rows] = np.array(t.row()) / len(rows)
            batch_of[rows] = len(batch_notes)
            batch_notes.append((answer.note,) + extra)

        if work.enumerated.size:
            rows = work.enumerated
            put(rows, self._enumerate(self._rows(reduced, rows), device, self._dtype(reduced, rows)))
        local_size = self._local_size(device)
        for rows in work.dense.values():
            dtype = self._dtype(reduced, rows)
            row_bytes, decision_bytes, _, _ = self._dense_layout(reduced, rows, local_size)
            chunks = self._chunks(row_bytes, decision_bytes, device, self._describer(packed, reduced, rows))
            for number, chunk in enumerate(chunks):
                extra = (
                    (f"batch split into {len(chunks)} chunks to fit {device.label}; this was chunk {number + 1}",)
                    if len(chunks) > 1
                    else ()
                )
                put(rows[chunk], self._run(self._rows(reduced, rows[chunk]), device, dtype), extra)
        all_values, all_selected = reduction.expand(values, selected)
        k = len(packed.knapsack_positions)
        batch = np.full(k, -1, dtype=np.int64)
        batch[reduction.rows] = batch_of
        all_timings = np.zeros((k, timings.shape[1]))
        all_timings[reduction.rows] = timings
        notes = len(reduction.notes) + 1
        distinct, label_index = np.unique((batch + 1) * notes + reduction.note_index + 1, return_inverse=True)
        labels = []
        for code in distinct.tolist():
            b, note = divmod(code, notes)
            labels.append(
                (self.name, device.label, (batch_notes[b - 1] if b else ()) + ((reduction.notes[note - 1],) if note else ()))
            )
        return PackedSolutions(
            positions=packed.knapsack_positions,
            values=all_values,
            item_offsets=packed.item_offsets,
            selected=all_selected,
            optimal=np.ones(k, dtype=bool),
            timings=all_timings,
            labels=labels,
            label_index=label_index.ravel().astype(np.int32),
            extras={},
            failures={},
            seconds=watch.seconds,
        )

    @staticmethod
    def _rows(reduced: PackedProblems, rows: np.ndarray) -> PackedProblems:
        return reduced if rows.size == len(reduced) else reduced.take(rows)

    def costs_packed(self, packed: PackedProblems, device: Device | None) -> np.ndarray:
        """``costs`` of a packed batch of knapsacks, on its arrays."""
        kind = "gpu" if device is None or device.is_gpu else "other"
        n, m, _ = packed.segments()
        n = n.astype(np.float64)
        if not len(n):
            return np.zeros(0)
        wide = np.add.reduceat(packed.profits, packed.item_offsets[:-1]) > INT32_MAX
        cells = packed.cells()
        enumerated = self._enumerated(n, cells)
        dense = (m <= MAX_DIMS) & (cells <= MAX_STATES)
        if self.method == "enumerate":
            taken = ~_not_enumerable(packed)
        elif self.method == "dp":
            taken = dense
        else:  # what auto enumerates needs no DP row (as in ``_refuse``)
            taken = dense | (enumerated & ~_not_enumerable(packed))
        value_bytes = np.where(wide, 8.0, 4.0)
        streamed = n * cells * (2 * value_bytes + 0.125) / MODEL_BANDWIDTH[kind]
        if device is not None:
            local_size = self._local_size(device)
            stays = np.where(
                wide,
                self._on_chip(cells, device, np.dtype(np.int64), local_size),
                self._on_chip(cells, device, np.dtype(np.int32), local_size),
            )
            streamed = np.where(stays, n * cells / chip.MODEL_UPDATES_PER_SECOND[kind], streamed)
        cost = np.where(enumerated, np.exp2(np.minimum(n, 64)) / MODEL_SUBSETS_PER_SECOND[kind], streamed)
        return np.where(taken, cost, np.nan)

    # ---------------------------------------------------------------------------------- the device

    # long: one enumeration's layout, buffers and two launches share their arrays
    def _enumerate(self, batch_problems: PackedProblems, device: Device, dtype: np.dtype) -> _Answer:
        """Every subset of each instance, on the device (subset_enum.cl)."""
        timings = Timings()
        with timings.phase("host"):
            local_size = self._local_size(device)
            block_bits = ENUMERATION_BLOCK_BITS
            k = len(batch_problems)
            batch = Concatenated.of(batch_problems, dtype, clamp_capacities=True)
            largest_sum = int(np.add.reduceat(batch.weights.astype(np.int64), batch.first_item, axis=0).max())
            program = kernels.program(
                device,
                ENUMERATION_SOURCE,
                {
                    "VALUE_T": opencl_type(dtype),
                    "LOCAL_SIZE": local_size,
                    "BLOCK_BITS": block_bits,
                    "SUM_T": "uint" if largest_sum < 2**32 else "ulong",
                },
            )
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

        with timings.phase("upload"):
            queue = device.queue
            work = Workspace(
                device,
                Plan(self.name, _enumeration_buffers(batch.sizes, dtype.itemsize, local_size), kernels=ENUMERATION_KERNELS),
                poison=POISON_BYTE if self.poison else None,
            )
            buffers = [work.upload("enumeration", a) for a in (weights, profits, capacities, instances, group_instance)]
            group_value = work.empty("enumeration", groups * dtype.itemsize)
            group_mask = work.empty("enumeration", groups * 4)
            selected_buf = work.empty("enumeration", first_item)
            values_buf = work.empty("enumeration", k * dtype.itemsize)
            deadline.drain(queue, f"{self.name}: buffers set")

        with timings.phase("kernels"):
            weights_buf, profits_buf, capacities_buf, instances_buf, group_instance_buf = buffers
            work.kernel(program, "enum_blocks").set(
                weights=weights_buf,
                profits=profits_buf,
                capacities=capacities_buf,
                instances=instances_buf,
                group_instance=group_instance_buf,
                group_value=group_value,
                group_mask=group_mask,
            ).enqueue(queue, (groups * local_size,), (local_size,))
            group = min(64, device.max_work_group_size)
            work.kernel(program, "enum_finish").set(
                instances=instances_buf,
                group_value=group_value,
                group_mask=group_mask,
                count=np.uint32(k),
                groups=np.uint32(groups),
                selected=selected_buf,
                values=values_buf,
            ).enqueue(queue, (-(-k // group) * group,), (group,))
            deadline.drain(queue, f"{self.name}: the batch's last launch")
        return self._collect(queue, values_buf, selected_buf, dtype, k, first_item, timings, "subset enumeration")

    def _collect(self, queue, values_buf, selected_buf, dtype, k: int, items: int, timings: Timings, method: str) -> _Answer:
        """Read back the values and item flags of a batch."""
        with timings.phase("download"):
            values, selected = np.empty(k, dtype=dtype), np.empty(items, dtype=np.uint8)
            pending: list[cl.Event] = []
            copy_later(queue, values, values_buf, pending)
            copy_later(queue, selected, selected_buf, pending)
            deadline.drain(queue, f"{self.name}: the answers' download", pending)
        if selected.max(initial=0) > 1:
            raise RuntimeError(f"{self.name}: unwritten item flags")
        return _Answer(
            values.astype(np.int64),
            selected.view(bool),
            timings,
            f"{method} in a batch of {k}; timings are the batch's divided by {k}",
        )

    # long: one chunk's layout, upload, item steps and backtracking share its buffers
    def _run(self, batch_problems: PackedProblems, device: Device, dtype: np.dtype) -> _Answer:
        timings = Timings()
        with timings.phase("host"):
            local_size = self._local_size(device)
            m = int(batch_problems.capacity_offsets[1] - batch_problems.capacity_offsets[0])
            k = len(batch_problems)
            batch = Concatenated.of(batch_problems, dtype)
            stays = self._on_chip(batch.states, device, dtype, local_size)
            program = kernels.program(
                device,
                DP_SOURCE,
                {
                    "VALUE_T": opencl_type(dtype),
                    "DIMS": m,
                    "LOCAL_SIZE": local_size,
                    "CHIP_STATES": chip.row_room(batch.states[stays], local_size),
                },
                preamble=kernels.struct_declaration("instance_t", INSTANCE),
            )
            caps = batch.capacities.astype(np.int64)
            tiles = -(-batch.states // (32 * local_size))
            words_per_row = tiles * local_size
            table = np.zeros(k, dtype=INSTANCE)
            table["state_offset"] = np.cumsum(batch.states) - batch.states
            table["decision_offset"] = np.cumsum(batch.sizes * words_per_row) - batch.sizes * words_per_row
            table["states"] = batch.states
            # the flattening of dp_states.h: state = c1 * span1 + c2 * span2 + c3 (spans of unused dimensions unused)
            table["span1"] = np.where(m == 1, 1, (caps[:, 1] + 1) * np.where(m == 3, caps[:, 2] + 1, 1))
            table["span2"] = np.where(m == 2, 1, np.where(m == 3, caps[:, 2] + 1, 0))
            stepped = np.where(stays, 0, tiles)  # the item steps' work-groups: rows that do not stay on chip
            table["first_tile"] = np.cumsum(stepped) - stepped
            table["first_item"] = batch.first_item
            table["items"] = batch.sizes
            table["words_per_row"] = words_per_row
            tile_instance = np.repeat(np.arange(k, dtype=np.uint32), stepped)
            chip_instance = np.flatnonzero(stays).astype(np.uint32)
            weights, profits, capacities = batch.weights, batch.profits, batch.capacities
            state_offset = int(batch.states.sum())
            decision_offset = int((batch.sizes * words_per_row).sum())
            first_item = int(batch.sizes.sum())
            steps = int(batch.sizes[~stays].max(initial=0))

        with timings.phase("upload"):
            queue = device.queue
            counted = _dense_buffers(batch.sizes, batch.states, stays, dtype.itemsize, local_size)
            work = Workspace(device, Plan(self.name, counted, kernels=DENSE_KERNELS), poison=POISON_BYTE if self.poison else None)
            weights_buf, profits_buf = work.upload("items", weights), work.upload("items", profits)
            caps_buf = work.upload("items", capacities)
            table_buf = work.upload("tables", table)
            tiles_buf, chip_buf = (work.upload("tables", np.append(a, np.uint32(0))) for a in (tile_instance, chip_instance))
            rows = [work.empty(key, state_offset * dtype.itemsize) for key in ("row_a", "row_b")]
            decisions = work.empty("decisions", max(4, decision_offset * 4))
            selected_buf = work.empty("answers", first_item)
            for buf in rows:  # both: an instance's row is zero until its first item (right alignment)
                fill(queue, buf, POISON_BYTE if self.poison and not tile_instance.size else 0)
            deadline.drain(queue, f"{self.name}: buffers set")

        with timings.phase("kernels"):
            chip_launches = range(0, chip_instance.size, chip.LAUNCH_GROUPS)
            pacer = Pacer(queue, f"{self.name} item steps", len(chip_launches) + steps)
            chip_kernel = work.kernel(program, "dp_batch_chip").set(  # final rows where the backtracking reads the steps'
                decisions=decisions,
                weights=weights_buf,
                profits=profits_buf,
                instances=table_buf,
                chip_instance=chip_buf,
                final_row=rows[steps & 1],
            )
            for first in chip_launches:
                groups = min(chip.LAUNCH_GROUPS, chip_instance.size - first)
                chip_kernel.set(first_chip=np.uint32(first)).enqueue(queue, (groups * local_size,), (local_size,))
                pacer.launch()
            step_kernels = [
                work.kernel(program, "dp_batch_step").set(
                    prev=rows[parity],
                    next=rows[1 - parity],
                    decisions=decisions,
                    weights=weights_buf,
                    profits=profits_buf,
                    instances=table_buf,
                    tile_instance=tiles_buf,
                    steps=np.uint32(steps),
                )
                for parity in range(2)
            ]
            global_size = (len(tile_instance) * local_size,)
            for step in range(steps):
                step_kernels[step & 1].set(step=np.uint32(step)).enqueue(queue, global_size, (local_size,))
                pacer.launch()
            values_buf = work.empty("answers", k * dtype.itemsize)
            group = min(64, device.max_work_group_size)
            work.kernel(program, "dp_batch_backtrack").set(
                decisions=decisions,
                weights=weights_buf,
                instances=table_buf,
                capacities=caps_buf,
                final_row=rows[steps & 1],
                count=np.uint32(k),
                selected=selected_buf,
                values=values_buf,
            ).enqueue(queue, (-(-k // group) * group,), (group,))
            deadline.drain(queue, f"{self.name}: the batch's last launch")
        method = "dynamic programming" + (f", {chip_instance.size} of {k} rows on chip" if chip_instance.size else "")
        return self._collect(queue, values_buf, selected_buf, dtype, k, first_item, timings, method)

    def _on_chip(self, states: np.ndarray, device: Device, dtype: np.dtype, local_size: int) -> np.ndarray:
        """Which DP rows (by their states) take all their items on chip."""
        if self.on_chip is False or (self.on_chip is None and not chip.pays(device)):
            return np.zeros(np.shape(states), dtype=bool)
        return chip.on_chip(states, device, dtype.itemsize, local_size)


def _not_enumerable(packed: PackedProblems) -> np.ndarray:
    """Per knapsack: whether subset enumeration cannot take it (m > 3, n > 30, or a capacity and its
    dimension's total weight both beyond 32 bits)."""
    n, m, _ = packed.segments()
    if not len(n):
        return np.zeros(0, dtype=bool)
    _, _, entries = packed.weight_entries()
    totals = np.bincount(entries, weights=packed.weights.astype(np.float64), minlength=packed.capacities.size)
    wide = (packed.capacities > ENUMERATION_MAX_CAPACITY) & (totals > ENUMERATION_MAX_CAPACITY)
    return (m > 3) | (n > ENUMERATION_MAX_ITEMS) | (np.add.reduceat(wide, packed.capacity_offsets[:-1]) > 0)


def _enumeration_buffers(sizes: np.ndarray, value_bytes: int, local_size: int) -> dict[str, int]:
    """Device bytes of a batch's subset enumeration (``subset_enum.cl``): per item its weights (three
    words), profit and flag; per instance its capacities, table row and value; per work-group (a block
    of 2^ENUMERATION_BLOCK_BITS subsets) its instance, best value and mask."""
    items, k = int(sizes.sum()), int(sizes.size)
    groups = int((-(-(2 ** np.maximum(sizes - ENUMERATION_BLOCK_BITS, 0)) // local_size)).sum())
    return {"enumeration": items * (12 + value_bytes + 1) + k * (12 + 16 + value_bytes) + groups * (8 + value_bytes)}


def _dense_buffers(sizes: np.ndarray, states: np.ndarray, stays: np.ndarray, value_bytes: int, local_size: int) -> dict[str, int]:
    """Device bytes of one chunk of the batched DP (``_run``): items (weights in three words, profits)
    and capacities; the instance table and the work-groups' instances; both rows; the decisions; the
    answers (item flags, values)."""
    items, k = int(sizes.sum()), int(sizes.size)
    tiles = -(-states // (32 * local_size))
    return {
        "items": items * (12 + value_bytes) + 12 * k,
        "tables": INSTANCE.itemsize * k + 4 * (int(tiles[~stays].sum()) + 1) + 4 * (int(stays.sum()) + 1),
        "row_a": int(states.sum()) * value_bytes,
        "row_b": int(states.sum()) * value_bytes,
        "decisions": max(4, int((sizes * tiles * local_size).sum()) * 4),
        "answers": items + k * value_bytes,
    }
