"""The LCS trace-back on the device (``lcs_trace`` in ``wavefront_lcs.cl``), from the bit rows a
sweep kept: ``serial`` walks from (m, n) down, one launch per block diagonal; ``by_stripes`` walks
every stripe at once, each from where the path enters it, found from the sweep's edges and those of
a second sweep over both strings reversed, run in the same launch (``lcs_crossings``).

Both walk the same path, the topmost optimal one (a step to i - 1 wherever D allows), so they return
the same pairs.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np
import pyopencl as cl

from clsolve.sdk import Device, RowStore, SolutionCheckError, Workspace, fill, kernels

from .lcs_tiling import Geometry, Grid


class Sweep(Protocol):
    """What the trace-back reads of a finished sweep (``lcs._Sweep``)."""

    problem: Grid
    device: Device
    geo: Geometry
    program: kernels.Program
    a_codes: cl.Buffer
    b_codes: cl.Buffer
    edges: cl.Buffer
    trace_size: int
    work: Workspace


def _pairs(work: Workspace, length: int, poison: bool) -> tuple[cl.Buffer, int]:
    """The buffer the walks write their pairs into, from the end (poisoned if asked), and its capacity."""
    capacity = max(length, 1)
    pairs = work.empty("pairs", capacity * 8)
    if poison:
        fill(work.device.queue, pairs, 0xA5)
    return pairs, capacity


def _positions(device: Device, pairs: cl.Buffer, capacity: int, length: int) -> np.ndarray:
    """The ``length`` pairs found, as (a-position, b-position) rows."""
    found = np.empty(capacity * 2, dtype=np.uint32)
    cl.enqueue_copy(device.queue, found, pairs, is_blocking=True)
    return found.reshape(capacity, 2)[capacity - length :].astype(np.int64)


def serial(sweep: Sweep, store: RowStore, length: int, poison: bool) -> np.ndarray:
    """Walk the stored blocks back from (m, n) on the device: one launch per block diagonal (the
    walk leaves a diagonal for a lower one and never returns). In host mode each step first copies
    the one block the walk is in back to the device."""
    problem, device, geo = sweep.problem, sweep.device, sweep.geo
    queue = device.queue
    pairs, capacity = _pairs(sweep.work, length, poison)
    state = np.array([problem.m, problem.n, 0, 0], dtype=np.uint32)
    state_buffer = sweep.work.upload("trace_state", state, writable=True)
    kernel = sweep.work.kernel(sweep.program, "lcs_trace").set(
        a_codes=sweep.a_codes,
        b_codes=sweep.b_codes,
        state=state_buffer,
        chunk_stride=np.uint64(0),
        pairs=pairs,
        capacity=np.uint32(capacity),
        m=np.uint32(problem.m),
        rows=np.uint32(geo.rows),
    )
    host_mode = store.plan.mode == "host"
    for d in range(geo.diagonals - 1, -1, -1):
        first, count = geo.blocks_of(d)
        if host_mode:
            cl.enqueue_copy(queue, state, state_buffer, is_blocking=True)
            i, j = int(state[0]), int(state[1])
            if i == 0 or j == 0:
                break
            wb, rb = (i - 1) // (64 * geo.words_per_block), (j - 1) // geo.rows
            if wb + rb != d:
                continue
            buffer, offset = store.readable(d, part=((wb - first) * geo.tile_bytes, geo.tile_bytes))
        else:
            buffer, offset = store.readable(d)
        kernel.set(
            chunk=buffer, chunk_offset=np.uint64(offset // 8), first_block=np.uint32(first), diagonal=np.uint32(d)
        ).enqueue(queue, (sweep.trace_size,), (sweep.trace_size,))
    cl.enqueue_copy(queue, state, state_buffer, is_blocking=True)
    if int(state[2]) != length:
        raise SolutionCheckError(f"wavefront LCS trace-back found {int(state[2])} pairs, the sweep's length is {length}")
    return _positions(device, pairs, capacity, length)


def reversed_codes(codes: tuple[np.ndarray, np.ndarray, int], stripe_width: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Symbol codes of the reversed strings, ``a`` behind symbols that match nothing (code sigma) so
    that its length is a multiple of ``stripe_width`` and the reversed sweep's stripe boundaries fall
    on the same columns of ``a`` as the sweep's."""
    a_codes, b_codes, sigma = codes
    pad = -len(a_codes) % stripe_width
    a_reversed = np.concatenate([np.full(pad, sigma, dtype=np.uint32), a_codes[::-1]])
    return a_reversed, np.ascontiguousarray(b_codes[::-1]), sigma


def by_stripes(sweep: Sweep, reverse: Sweep, store: RowStore, length: int, poison: bool) -> np.ndarray:
    """Every stripe's walk at once: lcs_crossings finds where the topmost optimal path enters each
    stripe (and the pairs to its left) from both sweeps' edges, then work-group k walks stripe k from
    its entry to the next one. Each walk must end exactly where the walk of the stripe on its left
    starts, which is checked."""
    problem, device, geo = sweep.problem, sweep.device, sweep.geo
    queue, stripes = device.queue, geo.word_blocks
    crossings = np.zeros(2 * (stripes + 1), dtype=np.uint32)
    found = sweep.work.empty("crossings", crossings.nbytes)
    sweep.work.kernel(sweep.program, "lcs_crossings").set(
        forward=sweep.edges,
        reverse=reverse.edges,
        groups=np.uint32(-(-problem.n // geo.step_rows)),  # as lcs_stripes
        n=np.uint32(problem.n),
        stripes=np.uint32(stripes),
        length=np.uint32(length),
        crossings=found,
    ).enqueue(queue, ((stripes - 1) * sweep.trace_size,), (sweep.trace_size,))
    cl.enqueue_copy(queue, crossings, found, is_blocking=True)
    crossings[0:2] = 0
    crossings[2 * stripes :] = problem.n, length
    rows, left = crossings[0::2].astype(np.int64), crossings[1::2].astype(np.int64)
    if (rows > problem.n).any() or (np.diff(rows) < 0).any() or (np.diff(left) < 0).any():
        raise SolutionCheckError(f"wavefront LCS: the path's stripe entries are not monotone: rows {rows.tolist()}")
    columns = np.minimum(np.arange(stripes + 1, dtype=np.int64) * 64 * geo.words_per_block, problem.m)
    starts = np.zeros((stripes, 4), dtype=np.uint32)  # walk k from the entry of stripe k (column k + 1)
    starts[:, 0], starts[:, 1], starts[:, 2] = columns[1:], rows[1:], length - left[1:]
    pairs, capacity = _pairs(sweep.work, length, poison)
    states = sweep.work.upload("trace_states", starts, writable=True)
    buffer, offset = store.readable(0)
    sweep.work.kernel(sweep.program, "lcs_trace").set(
        chunk=buffer,
        chunk_offset=np.uint64(offset // 8),
        chunk_stride=np.uint64(geo.tile_stride // 8),
        a_codes=sweep.a_codes,
        b_codes=sweep.b_codes,
        state=states,
        pairs=pairs,
        capacity=np.uint32(capacity),
        first_block=np.uint32(0),
        diagonal=np.uint32(0),
        m=np.uint32(problem.m),
        rows=np.uint32(geo.rows),
    ).enqueue(queue, (stripes * sweep.trace_size,), (sweep.trace_size,))
    ends = np.empty_like(starts)
    cl.enqueue_copy(queue, ends, states, is_blocking=True)
    expected = np.stack([columns[:-1], rows[:-1], length - left[:-1]], axis=1)
    # a walk that reaches row 0 (or stripe 0's walk, column 0) stops there: its column is any
    stopped = (rows[:-1] == 0) | (np.arange(stripes) == 0)
    expected[stopped, :2] = ends[stopped, :2]
    if not (ends[:, :3] == expected).all() or (np.minimum(ends[stopped, 0], ends[stopped, 1]) != 0).any():
        raise SolutionCheckError(
            f"wavefront LCS trace-back by stripes: walks ended at {ends[:, :3].tolist()}, "
            f"the next stripes' entries are {expected.tolist()}"
        )
    return _positions(device, pairs, capacity, length)
