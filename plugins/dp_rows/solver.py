"""Host side of ``dp-rows`` (kernels in ``dp_rows.cl``).

Per item i (or per 2, 3 or 4 items: ``items_per_launch``) one pass computes the next row of the DP
over every state, writing one row of decision bits per item (n x states bits in total). Either each
pass is a launch, the two value rows swapping roles between launches (kernel objects with fixed
arguments, so each launch sets only the item index), or ``chain`` passes run in one launch
(``dp_rows_chain``: each work-group owns a tile of the row for all of them, the rows of the passes in
a ring of slots, tiles waiting for the tiles to their left through progress counters), so a short
row is no longer a launch per pass. The decision rows are kept for the
trace-back in a ``RowStore`` (``clsolve.dp.rowstore``), in chunks of whole rows: on the device when
they fit (each chunk within the device's largest allocation), a single work-item then walking them
back (Algorithm 2.1, steps 8-12) so only the value and the item vector are read back; otherwise
streamed to host memory while the sweep goes on, and walked back on the host.
"""

# long module: the plan and the passes it launches (one by one, chained, in blocks) share the layout, the
# decision chunks and the buffers held on the device
from __future__ import annotations

import numpy as np
import pyopencl as cl

from clsolve.sdk import (
    BACK_DEPTH,
    MODEL_BANDWIDTH,
    MODEL_COPY_BANDWIDTH,
    MODEL_LAUNCH_SECONDS,
    POISON_BYTE,
    DecisionLayout,
    Device,
    DeviceSolver,
    Knapsack,
    Pacer,
    Plan,
    Pruning,
    RowStore,
    Solution,
    StorePlan,
    Timings,
    UnsupportedProblemError,
    Workspace,
    clamped_weights,
    copy_later,
    deadline,
    device_budget,
    dp_accepts,
    fill,
    kernels,
    least,
    opencl_type,
    options,
    plan_rows,
    planned,
    presolved,
    reachable_floors,
    reduction,
    spans,
    value_bound,
    value_dtype,
    work_group_size,
)

from . import backtrack
from . import blocks as blocking
from . import chain as chaining
from . import pipeline as pipelining
from . import pruned as pruned_passes
from .blocks import NONE as NO_BLOCKS
from .chain import Chain
from .held import Held
from .pipeline import Pipeline

#: The kernels ([LLMF], Algorithms 2.1-2.2).
SOURCE = kernels.KernelSource.resource("clsolve_plugins.dp_rows", "dp_rows.cl")
#: Rows of at most this many states take 4 items per pass by default (m = 1; see ``items_per_pass``).
SMALL_ROW = 2**18
STORES = ("auto", "device", "host")


class RowParallelSolver(DeviceSolver):
    name = "dp-rows"
    summary = "row-parallel DP on an OpenCL device, 1 to 4 items per launch, m = 1..3, rows streamed to host past device memory"

    def __init__(
        self,
        value_bits: int | None = None,
        local_size: int | None = None,
        poison: bool = False,
        items_per_launch: int | None = None,
        presolve: bool = True,
        store: str = "auto",
        device_memory_limit: int | None = None,
        chain: int | None = None,
        dominance: bool = True,
        fixing: bool = True,
        pruning: bool = True,
        block: int | None = None,
        pipeline: int | None = None,
    ):
        """``value_bits`` forces 32- or 64-bit values (default: 32 when the total profit fits).
        ``local_size`` overrides the work-group size. ``items_per_launch``: 1 (the paper's one launch
        per item), 2 (two items fused per pass, so each row is read and written once per two items),
        3 or 4 (the row read at 2^k offsets, written once per k items), or None (default: the
        measured best, see ``items_per_pass``). ``chain``: passes per launch; 1 launches each pass
        on its own, more run that many passes in one launch (the rows in a ring of chain + 1 slots),
        None (default) chains short rows on a GPU (see ``chain.choose``).
        ``store``: where the decision rows are kept for the trace-back, ``device``, ``host``
        (streamed during the sweep) or ``auto`` (the device when they fit).
        ``device_memory_limit`` (bytes) caps what the solve may use on the device, so that rows
        stream to host memory. ``poison`` fills every device buffer with a garbage pattern before
        solving, so that a state the kernels fail to write shows up as a wrong answer (used by the
        tests). ``presolve`` applies the exact reductions of ``clsolve.dp.presolve`` first; with it,
        ``dominance`` (m = 1) leaves out the items fixed at 0 by dominance (``clsolve.dp.dominance``) and
        ``fixing`` (m = 2, 3) the items fixed by reduced costs against a greedy incumbent
        (``clsolve.mkp.fixing``), both on tables of at least ``LARGE_TABLE_UPDATES`` cell updates.
        ``pruning``: where fixing by reduced costs left an incumbent to beat, the passes leave out the
        states that cannot lead past it (``clsolve.dp.pruning``; passes of 1 or 2 items launched one by
        one: not with ``chain`` > 1, ``items_per_launch`` > 2, or where short rows chain by default; on
        tables of at least ``pruned.PRUNED_UPDATES`` cell updates). ``block``: runs of light items
        applied on chip, at most that many (2 to ``blocks.MAX_BLOCK``) a pass, for m = 1, the passes
        launched one by one (the items of a block weigh at most the halo local memory holds, see
        ``blocks.choose``); 0: none; None (default): ``blocks.MAX_BLOCK`` on a GPU where they pay
        (``blocks.pays``), else none. ``pipeline``: items a stage of the pipeline (m = 1: each work-group
        applies that many items to the whole row, tile by tile, the row flowing from stage to stage;
        see ``pipeline.py``), 0: none, None (default): ``pipeline.STAGE_ITEMS`` on a GPU for rows of at
        most ``pipeline.PIPELINE_ROW`` states unless ``chain``, ``items_per_launch`` or ``block`` is
        asked for or light items go in blocks; asked for, it takes the place of passes."""
        self.value_bits = options.choice("value_bits", value_bits, (None, 32, 64))
        self.items_per_launch = options.choice("items_per_launch", items_per_launch, (None, 1, 2, 3, 4))
        self.local_size = options.power_of_two("local_size", local_size)
        self.poison = options.flag("poison", poison)
        self.presolve = options.flag("presolve", presolve)
        self.dominance = options.flag("dominance", dominance)
        self.fixing = options.flag("fixing", fixing)
        self.pruning = options.flag("pruning", pruning)
        self.store = options.choice("store", store, STORES)
        self.device_memory_limit = options.integer("device_memory_limit", device_memory_limit, minimum=1, none=True)
        self.chain = options.integer("chain", chain, minimum=1, maximum=chaining.MAX_CHAIN, none=True)
        self.block = options.choice("block", block, (None, 0, *range(2, blocking.MAX_BLOCK + 1)))
        self.pipeline = options.integer("pipeline", pipeline, minimum=0, maximum=pipelining.MAX_STAGE, none=True)

    # -- planning ----------------------------------------------------------------------------
    def accepts(self, problem) -> str | None:
        if not isinstance(problem, Knapsack):
            return f"{self.name} solves knapsack problems only"
        reduced = reduction(problem, self.presolve).problem  # dominance drops items only: the same answer
        return None if reduced is None else dp_accepts(reduced, self.name, problem)

    def items_per_pass(self, problem: Knapsack, chained: bool = False) -> int:
        """``items_per_launch``, or by default (``bench dp-rows`` and class A on the H100): pairs where
        passes are chained (a pass waits on its neighbours, and pairs read the fewest points); else
        for m = 1, 4 items per pass on rows of at most SMALL_ROW states (launches dominate there),
        3 on longer ones (the row's 8 reads mostly hit the cache); for m = 2, 3 pairs (the group's
        states cost divisions)."""
        if self.items_per_launch is not None:
            return int(self.items_per_launch)
        if problem.m > 1 or chained:
            return 2
        return 4 if problem.cells() <= SMALL_ROW else 3

    def _pruning(self, problem: Knapsack) -> Pruning | None:
        """The test by which the passes over ``problem``'s reduction leave out states (None: the option is
        off, no incumbent was left to beat, or the passes are chained or take more than two items)."""
        if not (self.pruning and self.presolve and self.fixing) or (self.chain or 1) > 1 or (self.items_per_launch or 2) > 2:
            return None
        return reduction(problem, True, self.dominance, heavy_first=True, fixing=True).pruning()

    def _blocks(self, problem: Knapsack, device: Device, dtype: np.dtype, chain: int | None) -> blocking.Blocks:
        """The blocks of light items: ``block`` as asked (passes launched one by one unless ``chain`` asks
        for more), or by default on a GPU where they pay (``blocks.pays``); else none."""
        local_size = work_group_size(device.max_work_group_size, self.local_size)
        if self.block is not None or not device.is_gpu or chain not in (None, 1):
            return blocking.choose(self.block, problem.m, (chain or 1) > 1, local_size, dtype.itemsize, device.local_memory)
        found = blocking.choose(blocking.MAX_BLOCK, problem.m, False, local_size, dtype.itemsize, device.local_memory)
        return found if blocking.pays(problem, found) else NO_BLOCKS

    def _store(
        self,
        problem: Knapsack,
        layout: DecisionLayout,
        dtype: np.dtype,
        device: Device,
        mode: str,
        per_pass: int,
        chain: Chain | Pipeline,
        pruned: bool,
    ) -> tuple[StorePlan, list[tuple[int, int]], int]:
        """Where the decision rows live, their chunks (first item, items), and the other device bytes
        (``chain``: the passes' rows and counters, or the pipeline's)."""
        if isinstance(chain, Pipeline):
            rows = sum(chain.buffers(dtype, problem.n).values())
        else:
            rows = chain.rows_bytes(layout.states, dtype) + (4 * layout.tiles if chain.passes > 1 else 0)
        other = rows + problem.n * (12 + dtype.itemsize + 1) + 16 + (pruned_passes.kept_bytes(layout, problem.n) if pruned else 0)
        store, chunks = plan_rows(
            f"{problem.describe()}: decision rows",
            problem.n,
            layout.row_bytes,
            device,
            other,
            self.device_memory_limit,
            mode,
            multiple=max(2, per_pass),
        )
        return store, chunks, other

    def plan(self, problem: Knapsack, device: Device) -> Plan:
        pruned = self._pruning(problem) is not None
        return planned(
            self.name,
            problem,
            self.presolve,
            lambda reduced: self._plan(reduced, device, pruned),
            self.dominance,
            heavy_first=True,
            fixing=self.fixing,
        )

    def least_seconds(self, problem: Knapsack, device: Device) -> float:
        """The plan's decision bits alone (a bit per item and state from the row's reachable floor on,
        written once) at the model's bandwidth."""
        kind = "gpu" if device.is_gpu else "other"

        def bits(reduced: Knapsack) -> float:
            states = reduced.n * reduced.cells() - int(reachable_floors(reduced).sum())
            return states / 8 / MODEL_BANDWIDTH[kind] + 0.002

        return least(problem, self.presolve, bits, self.dominance, heavy_first=True, fixing=self.fixing)

    # long: the passes' layout, store, chain, blocks and estimate are planned together
    def _plan(self, problem: Knapsack, device: Device, pruned: bool = False, chained: int | None = None) -> Plan:
        """The plan of the DP over ``problem`` (presolve done); ``pruned``: with states left out by the
        reduction's bound where the passes are launched one by one (not where short rows chain them)
        and the table is large enough; the estimate is that of the whole table."""
        dtype = value_dtype(problem, self.value_bits, value_bound(problem))
        states = problem.cells()
        asked = chained if chained is not None else self.chain
        blocks = NO_BLOCKS if pruned else self._blocks(problem, device, dtype, asked)
        pipeline = None if pruned or blocks.most else self._pipeline(problem, device, dtype, chained)
        if pipeline is not None:
            return self._pipeline_plan(problem, device, dtype, pipeline)
        chain = chaining.choose(
            1 if blocks.most else asked,
            self.local_size,
            states,
            dtype,
            device,
            device_budget(device, 0, self.device_memory_limit) // 4,
        )
        pruned = pruned and pruned_passes.pays(problem, chain.passes, device)
        layout = DecisionLayout(states, chain.local_size)
        per_pass = self.items_per_pass(problem, chain.passes > 1)
        store, chunks, _ = self._store(problem, layout, dtype, device, self.store, per_pass, chain, pruned)
        if chain.passes == 1:
            buffers = {"row_a": states * dtype.itemsize, "row_b": states * dtype.itemsize}
        else:
            buffers = {"rows": chain.rows_bytes(layout.states, dtype), "progress": 4 * layout.tiles}
        buffers.update(store.device_buffers("decisions", device))
        buffers["items"] = _item_bytes(problem, dtype)
        if pruned:
            buffers["kept states"] = pruned_passes.kept_bytes(layout, problem.n)
        kind = "gpu" if device.is_gpu else "other"
        planned = blocking.passes(problem, chunks, per_pass, blocks)
        items, widths, blocked = np.array(planned, dtype=np.int64).reshape(-1, 3).T
        # a pass sweeps from its first item's floor on (a block writes the decision bits of every item)
        swept = layout.states - self._first_tiles(problem, layout, chain)[items] * layout.tile_states
        passes = len(swept)
        read = np.where(blocked, 1 + blocks.halo / layout.tile_states, 1.0)  # rows read per row written
        moved = float(np.sum(swept * ((read + 1) * dtype.itemsize + widths / 8)))
        launches = (
            (len(chaining.launches(chunks, per_pass, chain.passes)) if chain.passes > 1 else passes)
            + (len(chunks) if store.mode == "device" else 0)
            + int(pruned)
        )  # and the states kept before the first pass
        return Plan(
            solver=self.name,
            device_buffers=buffers,
            host_buffers={"decisions": store.host_bytes} if store.host_bytes else {},
            kernels=_kernels(per_pass, chain.passes > 1, bool(blocks.most), pruned),
            cell_updates=int(np.sum(widths * swept)),
            launches=launches,
            seconds=(
                moved / MODEL_BANDWIDTH[kind]
                + launches * MODEL_LAUNCH_SECONDS[kind]
                + (passes * chaining.PASS_SECONDS[kind] if chain.passes > 1 else 0.0)
                + store.host_bytes / MODEL_COPY_BANDWIDTH
                + 0.002
            ),
            details={
                "value_type": opencl_type(dtype),
                "local_size": layout.local_size,
                "store": store.mode,
                "decision_chunks": len(chunks),
                "items_per_chunk": chunks[0][1] if chunks else 0,
                "states_per_row": states,
                "items_per_launch": per_pass,
                "chain": chain.passes,
                "split": chain.split,
                "pruning": pruned,
                "block": blocks.most,
                "halo_rows": blocks.halo_rows,
                "pipeline": 0,
            },
        )

    def _pipeline(self, problem: Knapsack, device: Device, dtype: np.dtype, chained: int | None) -> Pipeline | None:
        """The pipeline: ``pipeline`` as asked, or by default (``pipeline.choose``) unless passes are asked
        for (``chain``, ``items_per_launch``, ``block``, or ``chained`` by the caller)."""
        if self.pipeline is None and (
            chained is not None or self.chain is not None or self.items_per_launch is not None or self.block
        ):
            return None
        return pipelining.choose(
            self.pipeline, problem, dtype, device, self.local_size, device_budget(device, 0, self.device_memory_limit)
        )

    def _pipeline_plan(self, problem: Knapsack, device: Device, dtype: np.dtype, pipeline: Pipeline) -> Plan:
        """The plan of the DP over ``problem`` as a pipeline of stages (every state of every row)."""
        layout = DecisionLayout(problem.cells(), pipeline.local_size)
        store, chunks, _ = self._store(problem, layout, dtype, device, self.store, pipeline.stage, pipeline, False)
        buffers = pipeline.buffers(dtype, problem.n)
        buffers.update(store.device_buffers("decisions", device))
        buffers["items"] = _item_bytes(problem, dtype)
        kind = "gpu" if device.is_gpu else "other"
        launches = len(pipelining.launches(chunks)) + (len(chunks) if store.mode == "device" else 0)
        return Plan(
            solver=self.name,
            device_buffers=buffers,
            host_buffers={"decisions": store.host_bytes} if store.host_bytes else {},
            kernels=("dp_rows_pipeline", "dp_rows_backtrack"),
            cell_updates=problem.n * layout.states,
            launches=launches,
            seconds=(
                pipelining.seconds(problem, pipeline, dtype, MODEL_BANDWIDTH[kind], kind)
                + launches * MODEL_LAUNCH_SECONDS[kind]
                + store.host_bytes / MODEL_COPY_BANDWIDTH
                + 0.002
            ),
            details={
                "value_type": opencl_type(dtype),
                "local_size": layout.local_size,
                "store": store.mode,
                "decision_chunks": len(chunks),
                "items_per_chunk": chunks[0][1] if chunks else 0,
                "states_per_row": layout.states,
                "items_per_launch": 1,
                "chain": 1,
                "split": pipeline.split,
                "pruning": False,
                "block": 0,
                "halo_rows": 0,
                "pipeline": pipeline.stage,
                "groups": pipeline.groups,
                "ring": pipeline.ring,
            },
        )

    @staticmethod
    def _pipeline_of(plan: Plan, layout: DecisionLayout) -> Pipeline | None:
        """The plan's pipeline (None: passes)."""
        if not plan.details.get("pipeline"):
            return None
        return Pipeline(
            int(plan.details["pipeline"]),
            layout.local_size,
            int(plan.details["split"]),
            int(plan.details["groups"]),
            int(plan.details["ring"]),
            layout.tiles * layout.tile_states,
        )

    @staticmethod
    def _first_tiles(problem: Knapsack, layout: DecisionLayout, chain: Chain | None) -> np.ndarray:
        """Per item, the first tile a pass from it on computes: that of the row's reachable floor (m = 1,
        passes launched one by one), else 0."""
        if problem.m != 1 or (chain is not None and chain.passes > 1):
            return np.zeros(problem.n, dtype=np.int64)
        return reachable_floors(problem) // layout.tile_states

    # -- solving -----------------------------------------------------------------------------
    def _run(self, problem: Knapsack, device: Device, plan: Plan, keep_decisions: bool, pruning: Pruning | None = None):
        """The DP on the device: value, and the item flags (or, with ``keep_decisions``, the decision
        bits of every row), with the time of each phase. With ``pruning``, states that cannot lead past
        its floor are left out; where the state of the capacities is one of them, the value is 0 and no
        item is taken (the floor is the answer)."""
        timings = Timings()
        with timings.phase("host"):
            dtype = value_dtype(problem, self.value_bits, value_bound(problem))
            layout = DecisionLayout(problem.cells(), int(plan.details["local_size"]))
            program, chain = self._program(problem, device, plan, layout, dtype, pruning)
            pipeline = self._pipeline_of(plan, layout)
        with timings.phase("upload"):
            held = self._upload(
                problem,
                Workspace(device, plan),
                layout,
                dtype,
                str(plan.details["store"]),
                int(plan.details["items_per_launch"]),
                chain,
                pruning is not None,
                pipeline,
            )
            bounded = None if pruning is None else pruned_passes.prepare(problem, device, plan, program, layout, held, pruning)
        try:
            with timings.phase("kernels"):
                kept_at, kept_bit = None, 0  # with pruning: where it says whether C's state was kept
                if pipeline is not None:
                    row, start = pipelining.sweep(device, plan, program, layout, held, pipeline, f"{self.name} stages")
                elif chain.passes > 1:
                    row, start = self._chain(problem, device, plan, program, layout, held, chain)
                elif bounded is not None:
                    row, start, kept_at, kept_bit = pruned_passes.sweep(device, plan, layout, held, bounded, f"{self.name} rows")
                else:  # the whole table where it is kept, else each row from its reachable floor's tile
                    row, start = self._sweep(problem, device, plan, program, layout, held, not keep_decisions)
                if not keep_decisions and held.store.plan.mode == "device":  # bits trace back even where
                    backtrack.on_device(problem, device, program, layout, held)  # C was not kept: never garbage
                value, kept_word = np.zeros(1, dtype=dtype), np.zeros(1, dtype=np.uint32)
                pending: list[cl.Event] = []
                copy_later(device.queue, value, row, pending, (start + layout.states - 1) * dtype.itemsize)
                if kept_at is not None and held.kept is not None:
                    copy_later(device.queue, kept_word, held.kept, pending, kept_at)
                deadline.drain(device.queue, f"{self.name}: the last row", pending)
                held.store.drain()
                reached = kept_at is None or bool((int(kept_word[0]) >> kept_bit) & 1)
            with timings.phase("download"):
                found = self._found(problem, device, layout, held, keep_decisions, reached)
        finally:
            held.store.release()
        return (int(value[0]) if reached else 0), found, timings

    def _program(
        self, problem: Knapsack, device: Device, plan: Plan, layout: DecisionLayout, dtype: np.dtype, pruning: Pruning | None
    ) -> tuple[kernels.Program, Chain]:
        """The kernels the plan's passes need, built for this problem's types and sizes, and the chain."""
        defines: dict[str, object] = {
            "VALUE_T": opencl_type(dtype),
            "DIMS": problem.m,
            "LOCAL_SIZE": layout.local_size,
            "BACK_DEPTH": BACK_DEPTH,
        }
        per_pass = int(plan.details["items_per_launch"])
        chain = Chain(
            int(plan.details["chain"]), int(plan.details["split"]), layout.tiles * layout.tile_states, layout.local_size
        )
        if per_pass > 2 or chain.passes > 1:
            defines["GROUP"] = per_pass
        if plan.details["block"]:
            defines["HALO_ROWS"] = int(plan.details["halo_rows"])
            defines["MAX_BLOCK"] = int(plan.details["block"])
        if chain.passes > 1 or plan.details.get("pipeline"):
            defines["SPLIT"] = int(plan.details["split"])
        if plan.details.get("pipeline"):
            defines["STAGE"] = int(plan.details["pipeline"])
            if device.is_gpu:
                defines["UNROLL_STAGE"] = 1
        if pruning is not None:
            defines["BOUNDED"] = 1
            if self.poison:  # larger than any solution's value, and + a profit still fits
                defines["DROPPED_VALUE"] = int(np.iinfo(dtype).max) - int(problem.profits.sum())
        return kernels.program(device, SOURCE, defines), chain

    def _found(
        self, problem: Knapsack, device: Device, layout: DecisionLayout, held: Held, keep_decisions: bool, reached: bool
    ) -> np.ndarray:
        """The decision table (``keep_decisions``), else the item flags of the trace-back (none where
        the capacities' state was not reached)."""
        if keep_decisions:
            return layout.unpack(
                np.concatenate(
                    [
                        held.store.host(k).view(np.uint32).reshape(count, layout.words_per_row)
                        for k, (_, count) in enumerate(held.chunks)
                    ]
                )
            )
        if not reached:
            return np.zeros(problem.n, dtype=np.uint8)
        if held.store.plan.mode == "device":
            found = np.empty(problem.n, dtype=np.uint8)
            cl.enqueue_copy(device.queue, found, held.selected, is_blocking=True)
            return found
        return backtrack.on_host(problem, layout, held)

    def _upload(
        self,
        problem: Knapsack,
        work: Workspace,
        layout: DecisionLayout,
        dtype: np.dtype,
        mode: str,
        per_pass: int,
        chain: Chain,
        pruned: bool,
        pipeline: Pipeline | None = None,
    ) -> Held:
        """The items, the value rows (two, the chain's ring or the pipeline's two slots, the first
        zero), the store of decision rows, the answer's buffers (and the chain's progress counters, zero,
        or the pipeline's rings and counters; with ``pruned``, the two rows of kept-state bits)."""
        device = work.device
        queue = device.queue
        store, chunks, _ = self._store(problem, layout, dtype, device, mode, per_pass, pipeline or chain, pruned)
        chained = chain.passes > 1
        if pipeline is not None:
            row_bytes = pipeline.pitch * dtype.itemsize
            rows = [work.empty("rows", pipeline.rows_bytes(dtype))]
            progress: cl.Buffer | None = work.empty("progress", pipeline.progress_bytes(problem.n))
        else:
            row_bytes = (chain.pitch if chained else layout.states) * dtype.itemsize
            rows = (
                [work.empty("rows", chain.slots * row_bytes)]
                if chained
                else [work.empty(key, row_bytes) for key in ("row_a", "row_b")]
            )
            progress = work.empty("progress", 4 * layout.tiles) if chained else None
        held = Held(
            weights=work.upload("items", clamped_weights(problem)),
            profits=work.upload("items", problem.profits.astype(dtype)),
            rows=rows,
            store=RowStore(device, store, poison=POISON_BYTE if self.poison else None),
            chunks=chunks,
            selected=work.empty("items", problem.n),
            remaining=work.upload("items", np.pad(problem.capacities.astype(np.uint32), (0, 3 - problem.m)), writable=True),
            progress=progress,
            kept=work.empty("kept states", pruned_passes.kept_bytes(layout, problem.n)) if pruned else None,
            rings=work.empty("rings", pipeline.rings_bytes(dtype)) if pipeline is not None else None,
            work=work,
        )
        if self.poison:
            for buf in held.rows[-1:] + [held.selected] + [b for b in (held.kept, held.rings) if b is not None]:
                fill(queue, buf, POISON_BYTE)
        fill(queue, held.rows[0], 0, row_bytes)  # with pruning, _pruned_kernels sets held.kept[0]
        if held.progress is not None and pipeline is None:  # the pipeline's counters: before each launch
            fill(queue, held.progress, 0)
        deadline.drain(queue, f"{self.name}: buffers set")
        return held

    # long: one launch per pass with its kernels by width and parity, each chunk handed to the store
    def _sweep(
        self,
        problem: Knapsack,
        device: Device,
        plan: Plan,
        program: kernels.Program,
        layout: DecisionLayout,
        held: Held,
        floored: bool = True,
    ) -> tuple[cl.Buffer, int]:
        """One launch per pass, rows ping-ponging, each chunk of decision rows handed to the store when
        written; with ``floored``, a pass launches the tiles from its item's ``_first_tiles`` entry on. Returns the
        buffer holding the last pass's row and the row's first state there."""
        span1, span2 = spans(problem)
        # by_width[width][parity]: parity p reads rows[p], writes rows[1 - p]; only the item varies
        names = {1: "dp_rows_item", 2: "dp_rows_pair"}
        per_pass = int(plan.details["items_per_launch"])
        if per_pass > 2:
            names[per_pass] = "dp_rows_group"
        by_width = {
            width: [
                held.work.kernel(program, name).set(
                    prev=held.rows[parity],
                    next=held.rows[1 - parity],
                    weights=held.weights,
                    profits=held.profits,
                    states=np.uint32(layout.states),
                    span1=np.uint32(span1),
                    span2=np.uint32(span2),
                    words_per_row=np.uint64(layout.words_per_row),
                )
                for parity in range(2)
            ]
            for width, name in names.items()
        }
        blocks = blocking.Blocks(int(plan.details["block"]), int(plan.details["halo_rows"]), layout.local_size)
        if blocks.most:
            by_width[0] = [
                held.work.kernel(program, "dp_rows_block").set(
                    prev=held.rows[parity],
                    next=held.rows[1 - parity],
                    weights=held.weights,
                    profits=held.profits,
                    states=np.uint32(layout.states),
                    words_per_row=np.uint64(layout.words_per_row),
                )
                for parity in range(2)
            ]
        group = (layout.local_size,)
        first_tiles = self._first_tiles(problem, layout, None).tolist() if floored else [0] * problem.n
        passes = 0
        pacer = Pacer(device.queue, f"{self.name} rows", plan.launches, plan.launch_seconds)
        planned = iter(blocking.passes(problem, held.chunks, per_pass, blocks))  # chunk by chunk, in order
        for k, (first, count) in enumerate(held.chunks):
            buffer, offset, wait = held.store.slot(k)
            for pair in by_width.values():
                for kernel in pair:
                    kernel.set(decisions=buffer, decisions_offset=np.uint64(offset // 4), chunk_first=np.uint32(first))
            event, item = None, first
            while item < first + count:
                item, width, blocked = next(planned)
                tile = first_tiles[item]
                kernel = by_width[0][passes & 1].set(count=np.uint32(width)) if blocked else by_width[width][passes & 1]
                event = kernel.set(item=np.uint32(item), first_tile=np.uint32(tile)).enqueue(
                    device.queue, ((layout.tiles - tile) * layout.local_size,), group, wait_for=wait if item == first else None
                )
                passes += 1
                item += width
                pacer.launch()
            held.store.finished(k, event)
        return held.rows[passes & 1], 0

    def _chain(
        self,
        problem: Knapsack,
        device: Device,
        plan: Plan,
        program: kernels.Program,
        layout: DecisionLayout,
        held: Held,
        chain: Chain,
    ) -> tuple[cl.Buffer, int]:
        """``chain.passes`` passes per launch over the ring, each chunk of decision rows handed to the
        store when written; returns the ring and the first state of the slot holding the last pass."""
        span1, span2 = spans(problem)
        per_pass = int(plan.details["items_per_launch"])
        kernel = held.work.kernel(program, "dp_rows_chain").set(
            ring=held.rows[0],
            pitch=np.uint64(chain.pitch),
            slots=np.uint32(chain.slots),
            weights=held.weights,
            profits=held.profits,
            states=np.uint32(layout.states),
            span1=np.uint32(span1),
            span2=np.uint32(span2),
            words_per_row=np.uint64(layout.words_per_row),
            progress=held.progress,
        )
        group = layout.local_size * chain.split
        slot = done = 0
        pacer = Pacer(device.queue, f"{self.name} rows", plan.launches, plan.launch_seconds)
        for k, (first, count) in enumerate(held.chunks):
            buffer, offset, wait = held.store.slot(k)
            kernel.set(decisions=buffer, decisions_offset=np.uint64(offset // 4), chunk_first=np.uint32(first))
            event = None
            for item, items in chaining.launches([(first, count)], per_pass, chain.passes):
                event = kernel.set(
                    base=np.uint32(slot), first=np.uint32(item), count=np.uint32(items), done=np.uint32(done)
                ).enqueue(device.queue, (layout.tiles * group,), (group,), wait_for=wait if item == first else None)
                passes = -(-items // per_pass)
                slot, done = (slot + passes) % chain.slots, done + passes
                pacer.launch()
            held.store.finished(k, event)
        return held.rows[0], slot * chain.pitch

    def solve(self, problem: Knapsack, device: Device, plan: Plan) -> Solution:
        pruning = self._pruning(problem) if plan.details.get("pruning") else None
        return presolved(
            self.name,
            problem,
            self.presolve,
            device.label,
            lambda core: self._solve(core, device, plan, pruning),
            self.dominance,
            heavy_first=True,
            fixing=self.fixing,
        )

    def _solve(self, problem: Knapsack, device: Device, plan: Plan, pruning: Pruning | None = None) -> Solution:
        value, selected, timings = self._run(problem, device, plan, keep_decisions=False, pruning=pruning)
        if selected.max(initial=0) > 1:
            raise RuntimeError(f"{self.name}: backtracking left unwritten item flags")
        store = plan.details["store"]
        return Solution(
            value=value,
            selected=selected.astype(bool),
            optimal=True,
            solver=self.name,
            device=device.label,
            timings=timings,
            stats={
                "store": store,
                "items_per_launch": int(plan.details["items_per_launch"]),
                "value_type": plan.details["value_type"],
                "chain": int(plan.details["chain"]),
                "pruning": pruning is not None,
                "block": int(plan.details["block"]),
                "pipeline": int(plan.details.get("pipeline", 0)),
            },
            notes=[
                f"{plan.details['value_type']} values, {plan.launches} launches, "
                + (
                    f"a pipeline of stages of {plan.details['pipeline']} items"
                    if plan.details.get("pipeline")
                    else f"{plan.details['items_per_launch']} item(s) per pass"
                )
                + (f", {plan.details['chain']} passes chained per launch" if plan.details["chain"] > 1 else "")
                + (f", light items in blocks of up to {plan.details['block']} on chip" if plan.details["block"] else "")
                + f", decision rows kept on the {store}"
                + (
                    f"; states that cannot lead past the incumbent left out (the core's best must beat {pruning.floor})"
                    if pruning is not None
                    else ""
                )
            ],
        )

    def decisions(self, problem: Knapsack, device: Device, pruning: Pruning | None = None) -> tuple[int, np.ndarray]:
        """The value and the whole decision table of ``problem`` as given (no presolve), shape
        (n, states), read back (for tests); with ``pruning`` (a test for ``problem``), the passes leave
        out the states it excludes (the value is 0 where it excludes the capacities' state)."""
        reason = dp_accepts(problem, self.name)
        if reason is not None:
            raise UnsupportedProblemError(reason)
        plan = self._plan(problem, device, pruned=pruning is not None, chained=1 if pruning is not None else None)
        value, table, _ = self._run(problem, device, plan, keep_decisions=True, pruning=pruning)
        return value, table


def _kernels(per_pass: int, chained: bool, blocked: bool, pruned: bool) -> tuple[str, ...]:
    """The kernels of a plan's passes (dp_rows.cl): one item or a pair per launch (and a group of
    ``per_pass``), blocks, the chain, the pruned passes; and the trace-back."""
    if chained:
        sweep: tuple[str, ...] = ("dp_rows_chain",)
    else:
        sweep = (
            ("dp_rows_item", "dp_rows_pair")
            + (("dp_rows_group",) if per_pass > 2 else ())
            + (("dp_rows_block",) if blocked else ())
        )
    if pruned:
        sweep += ("dp_rows_bounded_first", "dp_rows_bounded")
    return sweep + ("dp_rows_backtrack",)


def _item_bytes(problem: Knapsack, dtype: np.dtype) -> int:
    """Device bytes of the items (weights in three words, profits, a flag each) and the capacities left
    (three words) of the trace-back."""
    return problem.n * (12 + dtype.itemsize + 1) + 12
