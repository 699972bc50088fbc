"""The trace-back of ``dp-rows`` ([LLMF], Algorithm 2.1, steps 8-12): from the capacities, item by
item from the last, whether the item was taken at the capacity left (its decision bit), on one
work-item over the decision rows kept on the device, or on the host over the rows streamed there."""

from __future__ import annotations

import numpy as np

from clsolve.sdk import BACK_DEPTH, DecisionLayout, Device, Knapsack, clamped_weights, kernels, spans

from .held import Held


def on_device(problem: Knapsack, device: Device, program: kernels.Program, layout: DecisionLayout, held: Held) -> None:
    """Algorithm 2.1, steps 8-12, on one work-group (BACK_DEPTH items a round), chunk by chunk from the last
    item."""
    span1, span2 = spans(problem)
    backtrack = held.work.kernel(program, "dp_rows_backtrack").set(
        weights=held.weights,
        words_per_row=np.uint64(layout.words_per_row),
        span1=np.uint32(span1),
        span2=np.uint32(span2),
        remaining=held.remaining,
        selected=held.selected,
    )
    for k in reversed(range(len(held.chunks))):
        first, count = held.chunks[k]
        buffer, offset = held.store.readable(k)
        backtrack.set(
            decisions=buffer, decisions_offset=np.uint64(offset // 4), chunk_first=np.uint32(first), chunk_items=np.uint32(count)
        )
        backtrack.enqueue(device.queue, (1 << BACK_DEPTH,), (1 << BACK_DEPTH,))


def on_host(problem: Knapsack, layout: DecisionLayout, held: Held) -> np.ndarray:
    """Algorithm 2.1, steps 8-12, on the host over the streamed rows, from the last item."""
    span1, span2 = spans(problem)
    weights = clamped_weights(problem).tolist()
    rest = problem.capacities.tolist() + [0] * (3 - problem.m)
    selected = np.zeros(problem.n, dtype=np.uint8)
    for item, row in held.store.backward(held.chunks, np.uint32, layout.words_per_row):
        if layout.taken(row, rest[0] * span1 + rest[1] * span2 + rest[2]):
            selected[item] = 1
            rest = [r - w for r, w in zip(rest, weights[item])]
    return selected
