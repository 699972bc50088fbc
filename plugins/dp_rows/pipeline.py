"""How ``dp-rows`` runs its items as a pipeline of stages (``dp_rows_pipeline`` in ``dp_rows.cl``,
m = 1): each work-group is a stage of ``stage`` items and sweeps the whole row tile by tile, the row
flowing from stage to stage, so a tile waits on another work-group once per stage rather than once per
pass; the rows a stage's items read further back than the tile live in the work-group's own rings.
A launch applies up to LAUNCH_ITEMS items; the trace-back and the store of decision rows are those of
the other passes."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyopencl as cl

from clsolve.sdk import DecisionLayout, Device, Knapsack, Pacer, Plan, clamped_weights, fill, kernels

from .held import Held

#: By default (a GPU, m = 1) rows of at most PIPELINE_ROW states run as a pipeline, STAGE_ITEMS items a
#: stage by the values' bytes (each work-item holds a value per item and state of its tile read from
#: the rings), tiles of SHAPE[0] decision words, SHAPE[1] work-items sharing each word (a state a
#: work-item: a short row has few states to go round). On the H100 (n = 10,000 uncorrelated items,
#: weights up to C / 10) the pipeline takes 6.6 ms at C = 1e5 where chained pairs take 10.5 ms, but
#: 41 ms at C = 1e6 where they take 32 ms: the rings' reads and writes (8 bytes an update through the
#: L2) set its pace there. A pipeline fills in about as many steps as it has tiles and stages, so by
#: default it also needs stages for at least STAGES_PER_TILE of the tiles: at C = 1e5, 1,000 items (63
#: stages over 196 tiles) take 1.5 ms as a pipeline and 1.2 ms as chained pairs, 2,000 items 2.0
#: and 2.2 ms (``bench dp-rows``).
PIPELINE_ROW = 2**17
STAGES_PER_TILE = 0.5
STAGE_ITEMS = {4: 16, 8: 8}
SHAPE = (16, 32)
#: The most items a stage the option takes (a work-item holds a value per item of its stage).
MAX_STAGE = 32
#: Items one launch applies at most, so the host checks the time limit between launches.
LAUNCH_ITEMS = 2**14
#: Work-groups per compute unit at most on a GPU (more only wait), and the rings' share of the device
#: memory the solve may use.
GROUPS_PER_UNIT = 4
RINGS_SHARE = 0.25
#: Local memory left to the kernel's other variables and the compiler, bytes.
LOCAL_SPARE = 256
#: Seconds a stage takes over one tile however short (the wait on the stage before it, the reads of
#: the rings, a barrier an item), with margin, for the plan's estimate.
STEP_SECONDS = {"gpu": 4e-6, "other": 1e-4}


@dataclass(frozen=True)
class Pipeline:
    """``stage`` items a stage; work-groups of ``local_size`` (the decision layout's) x ``split``
    work-items, ``groups`` of them, each with ``stage`` rings of ``ring`` states; the two rows between
    stages ``pitch`` states apart."""

    stage: int
    local_size: int
    split: int
    groups: int
    ring: int
    pitch: int

    def rows_bytes(self, dtype: np.dtype) -> int:
        return 2 * self.pitch * dtype.itemsize

    def rings_bytes(self, dtype: np.dtype) -> int:
        return self.groups * self.stage * self.ring * dtype.itemsize

    def progress_bytes(self, n: int) -> int:
        """The ticket and each stage's tiles finished, for the longest launch."""
        return 4 * (1 + -(-min(max(n, 1), LAUNCH_ITEMS) // self.stage))

    def buffers(self, dtype: np.dtype, n: int) -> dict[str, int]:
        """The plan's device buffers: the rows between stages, the rings, the progress counters."""
        return {"rows": self.rows_bytes(dtype), "rings": self.rings_bytes(dtype), "progress": self.progress_bytes(n)}


def choose(
    asked: int | None, problem: Knapsack, dtype: np.dtype, device: Device, local_size: int | None, budget: int
) -> Pipeline | None:
    """``asked`` items a stage (0: no pipeline), or by default STAGE_ITEMS on a GPU for rows of at
    most PIPELINE_ROW states and at least STAGES_PER_TILE stages a tile; m = 1 only, where local
    memory holds a work-group's tile (two rows of values and a byte per item and state). The rings
    take at most RINGS_SHARE of ``budget`` bytes (fewer work-groups where they would pass it; none
    fitting: no pipeline)."""
    states = problem.cells()
    if asked == 0 or problem.m != 1 or (asked is None and not (device.is_gpu and states <= PIPELINE_ROW)):
        return None
    stage = asked or STAGE_ITEMS[dtype.itemsize]
    words, split = (local_size, 1) if local_size is not None else SHAPE
    while split < SHAPE[1] and words * split * 2 <= device.max_work_group_size:
        split *= 2
    while words * split > device.max_work_group_size and split > 1:
        split //= 2
    tile = 32 * words
    if tile * (2 * dtype.itemsize + stage) + stage * (4 + dtype.itemsize) + LOCAL_SPARE > device.local_memory:
        return None
    tiles = -(-states // tile)
    pitch = tiles * tile
    weights = clamped_weights(problem)[:, 0].astype(np.int64)
    heaviest = int(weights[weights < states].max(initial=0))
    ring = min(pitch, -(-(heaviest + tile) // tile) * tile)
    stages = -(-min(max(problem.n, 1), LAUNCH_ITEMS) // stage)
    if asked is None and stages < STAGES_PER_TILE * tiles:
        return None
    limit = GROUPS_PER_UNIT * device.compute_units if device.is_gpu else device.compute_units
    groups = min(stages, tiles + 1, limit, int(RINGS_SHARE * budget) // (stage * ring * dtype.itemsize))
    return Pipeline(stage, words, split, groups, ring, pitch) if groups >= 1 else None


def launches(chunks: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """(first item, items) of each launch: each chunk of decision rows in pieces of LAUNCH_ITEMS."""
    return [
        (item, min(LAUNCH_ITEMS, first + count - item))
        for first, count in chunks
        for item in range(first, first + count, LAUNCH_ITEMS)
    ]


def seconds(problem: Knapsack, pipeline: Pipeline, dtype: np.dtype, bandwidth: float, kind: str) -> float:
    """The plan's estimate: each stage reads and writes the row and writes and reads its rings once
    per item (mostly in the cache), and waits STEP_SECONDS a tile, the stages of a launch one after
    another only as the tiles flow."""
    tiles = pipeline.pitch // (32 * pipeline.local_size)
    stages = -(-problem.n // pipeline.stage)
    moved = problem.n * pipeline.pitch * (2 * dtype.itemsize + 1 / 8)
    steps = stages * tiles / max(1, min(pipeline.groups, tiles)) + tiles * len(launches([(0, problem.n)]))
    return moved / bandwidth + steps * STEP_SECONDS[kind]


def sweep(
    device: Device, plan: Plan, program: kernels.Program, layout: DecisionLayout, held: Held, pipeline: Pipeline, what: str
) -> tuple[cl.Buffer, int]:
    """Every launch of the pipeline, each chunk of decision rows handed to the store when written;
    returns the rows' buffer and the first state of the slot holding the last stage's row."""
    assert held.rings is not None and held.progress is not None
    kernel = held.work.kernel(program, "dp_rows_pipeline").set(
        between=held.rows[0],
        pitch=np.uint64(pipeline.pitch),
        rings=held.rings,
        ring=np.uint32(pipeline.ring),
        weights=held.weights,
        profits=held.profits,
        states=np.uint32(layout.states),
        words_per_row=np.uint64(layout.words_per_row),
        progress=held.progress,
    )
    group = pipeline.local_size * pipeline.split
    slot = 0
    pacer = Pacer(device.queue, what, plan.launches, plan.launch_seconds)
    for k, (first, count) in enumerate(held.chunks):
        buffer, offset, wait = held.store.slot(k)
        kernel.set(decisions=buffer, decisions_offset=np.uint64(offset // 4), chunk_first=np.uint32(first))
        event = None
        for item, items in launches([(first, count)]):
            stages = -(-items // pipeline.stage)
            fill(device.queue, held.progress, 0, 4 * (1 + stages))
            event = kernel.set(base=np.uint32(slot), first=np.uint32(item), count=np.uint32(items)).enqueue(
                device.queue, (min(pipeline.groups, stages) * group,), (group,), wait_for=wait if item == first else None
            )
            slot = (slot + stages) % 2
            pacer.launch()
        held.store.finished(k, event)
    return held.rows[0], slot * pipeline.pitch
