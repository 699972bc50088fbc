"""The passes of ``dp-rows`` that leave out the states a bound against an incumbent excludes
(``dp_rows_bounded`` in ``dp_rows.cl``, the test of ``clsolve.dp.pruning``): a kernel keeps
the states of the empty row that pass the test, then one launch per pass of 1 or 2 items, the value
rows ping-ponging between two buffers and the bits of kept states between the two rows of one. The
passes' items and tests go to the device as a table after those rows, so that a launch sets one
argument, its index."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyopencl as cl

from clsolve.sdk import DecisionLayout, Device, Knapsack, Pacer, Plan, Pruning, copy_later, kernels, spans

from . import chain as chaining
from .held import Held

#: Tables of at least this many cell updates prune by default: below, setting the pruned passes up
#: (their table, the kept states' buffer, three kernels) costs about what they save (``bench dp-rows``'s
#: class A on the H100: a33's 3.1e8 updates take 0.89 ms of kernels pruned, 1.32 ms not, a32's 1.7e8
#: the same end to end either way); on a CPU the passes cost more than their setup much sooner.
PRUNED_UPDATES = {"gpu": 2**28, "other": 2**22}


def pays(problem: Knapsack, chained: int, device: Device) -> bool:
    """Whether pruning pays for the DP over ``problem`` with ``chained`` passes per launch: not where
    short rows chain their passes (faster than pruned launches), nor on small tables."""
    return chained == 1 and problem.n * problem.cells() >= PRUNED_UPDATES["gpu" if device.is_gpu else "other"]


def kept_bytes(layout: DecisionLayout, n: int) -> int:
    """The buffer of kept states: two rows of a bit per state, then three doubles per pass (n at most)."""
    return 2 * layout.row_bytes + 24 * n


@dataclass
class Passes:
    """The kernel of the states kept before the first item, the pass kernel by the pass's parity (every
    argument set but the decision chunk's and the pass's index), and the event of the passes' table on
    its way to the device (it holds the table; kept until the solve ends, see ``copy_later``)."""

    start: kernels.Kernel
    by_parity: list[kernels.Kernel]
    pending: list[cl.Event]


def prepare(
    problem: Knapsack, device: Device, plan: Plan, program: kernels.Program, layout: DecisionLayout, held: Held, pruning: Pruning
) -> Passes:
    """The kernels of a pruned sweep over ``problem`` with the buffers ``held`` (its ``kept`` set), and
    the passes' table (first item, width, threshold) copied after the two rows of kept states."""
    span1, span2 = spans(problem)
    assert held.kept is not None
    steps = np.array(chaining.launches(held.chunks, int(plan.details["items_per_launch"])), dtype=np.int64)
    tests = pruning.thresholds(np.r_[0, steps.sum(axis=1)])  # before the first item, then after each pass
    table = np.column_stack([steps, tests[1:]]).astype(np.float64)
    pending: list[cl.Event] = []
    copy_later(device.queue, held.kept, table, pending, 2 * layout.row_bytes)
    price1, price2, price3 = (np.float64(price) for price in pruning.prices3())
    shape = {
        "states": np.uint32(layout.states),
        "span1": np.uint32(span1),
        "span2": np.uint32(span2),
        "price1": price1,
        "price2": price2,
        "price3": price3,
    }
    start = held.work.kernel(program, "dp_rows_bounded_first").set(live=held.kept, threshold=np.float64(tests[0]), **shape)
    return Passes(
        start,
        [
            held.work.kernel(program, "dp_rows_bounded").set(
                prev=held.rows[parity],
                next=held.rows[1 - parity],
                live=held.kept,
                weights=held.weights,
                profits=held.profits,
                words_per_row=np.uint64(layout.words_per_row),
                table_word=np.uint64(2 * layout.words_per_row),
                **shape,
            )
            for parity in range(2)
        ],
        pending,
    )


def sweep(
    device: Device, plan: Plan, layout: DecisionLayout, held: Held, passes: Passes, what: str
) -> tuple[cl.Buffer, int, int, int]:
    """The states kept before the first item, then one launch per pass, each chunk of decision rows
    handed to the store when written. Returns the buffer holding the last pass's row, the row's first
    state there, and the byte offset in ``held.kept`` of the word and the bit that say whether the
    state of the capacities was kept (else no solution through it beats the floor)."""
    assert held.kept is not None
    grid, group = (layout.tiles * layout.local_size,), (layout.local_size,)
    passes.start.enqueue(device.queue, grid, group)
    done = 0
    pacer = Pacer(device.queue, what, plan.launches, plan.launch_seconds)
    for k, (first, count) in enumerate(held.chunks):
        buffer, offset, wait = held.store.slot(k)
        for kernel in passes.by_parity:
            kernel.set(decisions=buffer, decisions_offset=np.uint64(offset // 4), chunk_first=np.uint32(first))
        event = None
        for item, _ in chaining.launches([(first, count)], int(plan.details["items_per_launch"])):
            event = (
                passes.by_parity[done & 1]
                .set(pass_index=np.uint32(done))
                .enqueue(device.queue, grid, group, wait_for=wait if item == first else None)
            )
            done += 1
            pacer.launch()
        held.store.finished(k, event)
    last = layout.states - 1
    return held.rows[done & 1], 0, (done & 1) * layout.row_bytes + 4 * layout.word_of(last), layout.bit_of(last)
