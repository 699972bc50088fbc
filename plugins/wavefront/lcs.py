"""LCS on the wavefront model (kernels in ``wavefront_lcs.cl``).

Two schedules of the same bit-parallel sweep:

* ``diagonals``: the grid is cut into blocks of ``words_per_block`` 64-bit words of ``a`` x
  ``rows_per_block`` rows (symbols of ``b``); one launch per block diagonal, so 1e5 x 1e5 takes about
  a hundred launches, not 2e5. The finished blocks of diagonal d form chunk d of a ``RowStore``:
  kept on the device when the bit rows fit, else streamed to host memory while later diagonals
  compute.
* ``stripes``: one launch; work-group wb owns word block wb for all n rows and passes its carries
  to the stripe on its right through flagged edges in global memory, so the critical path is about
  n / rows_per_step + words steps, not a block's height per block diagonal. Every bit row stays on
  the device (chunk wb = stripe wb).

The trace-back walks the chunks from the last one down, on the device.
"""

# long module: the LCS sweep's schedules (diagonals, stripes, the mirrored sweep) share its buffers
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyopencl as cl

from clsolve.sdk import (
    LCS,
    Device,
    DoesNotFitError,
    InvalidOptionError,
    Pacer,
    Plan,
    RowStore,
    Solution,
    TimeLimitError,
    Timings,
    Workspace,
    cache,
    deadline,
    fill,
    format_bytes,
    kernels,
    plan_store,
)

from . import lcs_trace
from .lcs_tiling import MIN_DEFAULT_ROWS, Geometry, Grid, choose_schedule, geometry, mask_rows

#: The kernels: bit-parallel LCS by block diagonals ([OM]).
LCS_SOURCE = kernels.KernelSource.resource("clsolve_plugins.wavefront", "wavefront_lcs.cl")

#: Work-group of the trace-back (rows of bit words prefetched per window): at most this many (at
#: least lcs_tiling.TRACE_MIN_LOCAL_SIZE); and the words of a window.
TRACE_LOCAL_SIZE = 256
TRACE_WORDS = 4
#: Mask tables larger than this make ``method="auto"`` take the cell sweep (no masks).
MASKS_AUTO_LIMIT = 2**30
#: Planning rates (cell updates per second) and the cost of one launch.
RATES = {("bits", True): 7e11, ("bits", False): 5e9, ("cells", True): 3e10, ("cells", False): 3e8}
LAUNCH_SECONDS = {True: 1.2e-5, False: 4e-5}
METHODS = ("auto", "bits", "cells")
#: The stripes' time model on a GPU (``stripes_seconds``): an inner step of r rows takes
#: STEP_BASE + r x STEP_PER_ROW seconds, and no sweep beats the peak rate; with margin over
#: ``clsolve bench wavefront`` on the H100 (20 rows: about 520 ns a step; 26 T cell updates/s at 1e6).
STEP_BASE_SECONDS = 1.5e-7
STEP_ROW_SECONDS = 5e-8
STRIPE_PEAK_RATE = 1.5e13


#: Every kernel an LCS solve launches (wavefront_lcs.cl).
LCS_KERNELS = ("lcs_start", "lcs_masks", "lcs_sweep", "lcs_stripes", "lcs_trace", "lcs_crossings")


def symbol_codes(problem: LCS) -> tuple[np.ndarray, np.ndarray, int]:
    """``problem.codes()``, computed once per problem (its plan and its solve both need them)."""
    return cache.per_problem(problem, "symbol codes", problem.codes)


def choose_method(problem: LCS, method: str, sigma: int) -> str:
    """``method``, or for ``auto`` bits unless the masks of the ``sigma`` common symbols pass the limit."""
    if method not in METHODS:
        raise InvalidOptionError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    if method != "auto":
        return method
    return "bits" if (sigma + 2) * -(-problem.m // 64) * 8 <= MASKS_AUTO_LIMIT else "cells"


def plan_lcs(name: str, problem: LCS, device: Device, options) -> Plan:
    if problem.m == 0 or problem.n == 0:
        return Plan(solver=name, details={"method": "empty"})
    sigma = symbol_codes(problem)[2]
    method = choose_method(problem, options.method, sigma)
    schedule = _in_time(problem, device, options, choose_schedule(problem, device, method, sigma, options, bit_rows=True), sigma)
    if schedule == "stripes":
        try:
            geo, buffers, store = _plan_stripes(problem, device, method, sigma, options)
        except DoesNotFitError:
            if options.schedule == "stripes":
                raise
            schedule = "diagonals"
    if schedule == "diagonals":
        geo, buffers, store = _plan_diagonals(problem, device, method, sigma, options)
    other = sum(buffers.values())
    buffers.update(store.device_buffers("bit_rows", device))
    rate = RATES[(method, device.is_gpu)]
    sweep = stripes_seconds(geo, device) if geo.schedule == "stripes" else problem.cells() / rate
    launches = geo.diagonals * 2 + 3
    return Plan(
        solver=name,
        device_buffers=buffers,
        host_buffers={"bit_rows": store.host_bytes} if store.host_bytes else {},
        kernels=LCS_KERNELS,
        cell_updates=problem.cells(),
        launches=launches,
        seconds=sweep + launches * LAUNCH_SECONDS[device.is_gpu] + 0.001,
        details={
            "method": method,
            "schedule": geo.schedule,
            "sigma": sigma,
            "store": store.mode,
            "trace": "stripes" if "reverse_edges" in buffers else "serial",
            "words_per_block": geo.words_per_block,
            "rows_per_block": geo.rows,
            "rows_per_step": geo.step_rows,
            "diagonals": geo.diagonals,
            "steps": geo.steps,
            "bit_row_bytes": store.total_bytes,
            "other_device_bytes": other,
        },
    )


def stripes_seconds(geo: Geometry, device: Device) -> float:
    """The predicted time of the stripes' one launch: on a GPU its critical path (``geo.steps`` inner
    steps) or its cell updates at the peak rate, whichever is longer; elsewhere the planning rate."""
    if device.is_gpu:
        step = STEP_BASE_SECONDS + geo.step_rows * STEP_ROW_SECONDS
        return max(geo.steps * step, geo.m * geo.n / STRIPE_PEAK_RATE)
    return geo.m * geo.n / RATES[("bits", False)]


def _in_time(problem: LCS, device: Device, options, schedule: str, sigma: int) -> str:
    """Under a time limit, ``auto`` keeps the stripes only where their one launch, which nothing can
    interrupt, is predicted to end in time; else the block diagonals, stopped between launches."""
    if schedule != "stripes" or options.schedule != "auto" or not deadline.limited():
        return schedule
    geo = geometry(problem, device, "bits", options.words_per_block, None, options.rows_per_step, "stripes", sigma)
    return schedule if deadline.allows(stripes_seconds(geo, device)) else "diagonals"


def _buffers(problem: LCS, geo: Geometry, sigma: int) -> dict[str, int]:
    """The sweep's device buffers besides the bit rows."""
    return {
        "a_codes": problem.m * 4,
        "b_codes": problem.n * 4,
        "v_row": geo.words * 8,
        "edges": geo.edge_words * 4,
        "masks": mask_rows(sigma) * geo.words * 8 if geo.method == "bits" else 8,
        "scratch": 8,
        "pairs": max(min(problem.m, problem.n), 1) * 8,
        "trace_state": 16,
    }


def _plan_diagonals(problem: LCS, device: Device, method: str, sigma: int, options):
    """Geometry, buffers and store of the diagonal schedule; default blocks shrink until the store fits."""
    rows = options.rows_per_block
    while True:
        geo = geometry(problem, device, method, options.words_per_block, rows, options.rows_per_step)
        buffers = _buffers(problem, geo, sigma)
        try:
            store = plan_store(
                f"LCS {problem.m} x {problem.n}: bit rows",
                geo.chunk_bytes(),
                device,
                sum(buffers.values()),
                options.device_memory_limit,
                options.store,
            )
            return geo, buffers, store
        except DoesNotFitError as exc:
            if options.rows_per_block is None and geo.rows > MIN_DEFAULT_ROWS:
                rows = geo.rows // 2  # shorter default blocks: smaller chunks, a smaller ring of slots
                continue
            raise DoesNotFitError(f"{exc}; the bit rows take m x n / 8 bytes") from None


def _plan_stripes(problem: LCS, device: Device, method: str, sigma: int, options):
    """Geometry, buffers and store of the stripes: every bit row on the device, in one allocation."""
    geo = geometry(
        problem, device, method, options.words_per_block, options.rows_per_block, options.rows_per_step, "stripes", sigma
    )
    buffers = _buffers(problem, geo, sigma)
    if geo.word_blocks > 1:  # the trace-back by stripes: the reversed sweep beside it (``_reverse``)
        m_reversed = geo.word_blocks * 64 * geo.words_per_block
        buffers.update(
            reverse_a_codes=m_reversed * 4,
            reverse_b_codes=problem.n * 4,
            reverse_v_row=m_reversed // 8,
            reverse_edges=geo.edge_words * 4,
            reverse_masks=mask_rows(sigma) * m_reversed // 8 if geo.method == "bits" else 8,
            crossings=8 * (geo.word_blocks + 1),
            trace_states=16 * geo.word_blocks,
        )
    what = f"LCS {problem.m} x {problem.n}: bit rows (schedule='stripes' keeps them on the device in one allocation)"
    if options.store == "host":
        raise DoesNotFitError(f"{what}: store='host' streams block diagonals; use schedule='diagonals'")
    store = plan_store(what, geo.chunk_bytes(), device, sum(buffers.values()), options.device_memory_limit, "device")
    if geo.tile_stride * geo.word_blocks > device.max_allocation:
        raise DoesNotFitError(
            f"{what}: {format_bytes(geo.tile_stride * geo.word_blocks)} pass {device.label}'s "
            f"largest allocation ({format_bytes(device.max_allocation)})"
        )
    return geo, buffers, store


class _Sweep:
    """Device state of one LCS sweep: codes, masks, the carried row and edges, and the program."""

    def __init__(
        self,
        problem: Grid,
        work: Workspace,
        geo: Geometry,
        timings: Timings,
        codes: tuple[np.ndarray, np.ndarray, int] | None = None,
        prefix: str = "",
    ):
        """The sweep's buffers are made under the plan's names, behind ``prefix`` (``reverse_``)."""
        device = work.device
        self.problem, self.device, self.geo, self.method, self.work = problem, device, geo, geo.method, work
        self.trace_size = min(TRACE_LOCAL_SIZE, device.max_work_group_size)
        method = geo.method
        if geo.schedule == "stripes":
            self._refuse_if_late()  # before the build and the buffers, which a refused sweep never needs
        with timings.phase("upload"):
            if codes is None:
                assert isinstance(problem, LCS)  # a grid without its own codes is a problem's
                codes = symbol_codes(problem)
            a_codes, b_codes, sigma = codes
            # stripes run lcs_stripes alone: lcs_sweep's block height is then one step (its local
            # arrays stay small, and one program serves every n)
            stripes = geo.schedule == "stripes"
            defines: dict[str, object] = {
                "ROWS": geo.step_rows if stripes else geo.rows,
                "STEP_ROWS": geo.step_rows,
                "GROUPS": 1 if stripes else geo.groups,
                "STAGE": geo.stage,
                "WORDS_PER_BLOCK": geo.words_per_block,
                "LOCAL_SIZE": self.trace_size,
                "TRACE_WORDS": TRACE_WORDS,
            }
            if stripes:
                defines.update(geo.stripe_defines())
            if method == "cells":
                defines["CELLS"] = 1
            self.program = kernels.program(device, LCS_SOURCE, defines)
            queue = device.queue
            self.a_codes = work.upload(prefix + "a_codes", a_codes)
            self.b_codes = work.upload(prefix + "b_codes", b_codes)
            self.v_row = work.empty(prefix + "v_row", geo.words * 8)
            self.edges = work.empty(prefix + "edges", geo.edge_words * 4)
            fill(queue, self.edges, 0)  # stripes: no edge is ready; diagonals: zeros enter the first word block
            words = np.uint32(geo.words)
            self.work.kernel(self.program, "lcs_start").set(v_row=self.v_row, words=words).enqueue(
                queue, (_round(geo.words, 64),), None
            )
            self.masks = work.empty(prefix + "masks", mask_rows(sigma) * geo.words * 8 if method == "bits" else 8)
            if method == "bits":
                self.work.kernel(self.program, "lcs_masks").set(
                    a_codes=self.a_codes, masks=self.masks, m=np.uint32(problem.m), words=words, sigma=np.uint32(sigma)
                ).enqueue(queue, (_round(geo.words, 64),), None)
            # no wait here: the queue is in order, so the sweep's phase also counts these two short kernels

    def run(self, store: RowStore | None, mirror: _Sweep | None = None) -> cl.Event | None:
        """Enqueue the sweep; with ``store``, each block diagonal's blocks (each stripe) go to its chunk.
        Stripes run ``mirror``'s sweep in the same launch (its stripes after these)."""
        if self.geo.schedule == "stripes":
            return self._run_stripes(store, mirror)
        geo, queue = self.geo, self.device.queue
        kernel = self.work.kernel(self.program, "lcs_sweep").set(
            masks=self.masks,
            a_codes=self.a_codes,
            b_codes=self.b_codes,
            v_row=self.v_row,
            edges=self.edges,
            store=np.int32(store is not None),
            m=np.uint32(geo.m),
            words=np.uint32(geo.words),
            n=np.uint32(geo.n),
        )
        scratch = self.work.empty("scratch", 8) if store is None else None  # the chunk argument when nothing is kept
        event = None
        pacer = Pacer(queue, "wavefront LCS block diagonals", geo.diagonals)
        for d in range(geo.diagonals):
            first, count = geo.blocks_of(d)
            if store is not None:
                buffer, offset, wait = store.slot(d)
            else:
                assert scratch is not None
                buffer, offset, wait = scratch, 0, []
            kernel.set(chunk=buffer, chunk_offset=np.uint64(offset // 8), first_block=np.uint32(first), diagonal=np.uint32(d))
            event = kernel.enqueue(queue, (count * geo.words_per_block,), (geo.words_per_block,), wait_for=wait or None)
            if store is not None:
                store.finished(d, event)
            pacer.launch()
        return event

    def _refuse_if_late(self) -> None:
        """TimeLimitError unless the stripes' one launch is predicted to end within the time limit."""
        predicted = stripes_seconds(self.geo, self.device)
        if not deadline.allows(predicted):
            deadline.check("before the sweep")  # past the limit already: say so
            raise TimeLimitError(
                f"time limit of {deadline.seconds():g} s: the stripes' sweep is one launch, predicted "
                f"to take {predicted:.3g} s, and {max(deadline.remaining(), 0):.3g} s are left; "
                "schedule='diagonals' can be stopped between launches; no answer was found in time"
            )

    def _run_stripes(self, store: RowStore | None, mirror: _Sweep | None) -> cl.Event:
        """One launch of lcs_stripes (with ``mirror``'s stripes after these); its chunks are the store's
        first buffer, one stripe apart. Under a time limit the launch starts only if it is predicted
        to end in time."""
        geo = self.geo
        self._refuse_if_late()
        if store is not None:
            bits, offset, _ = store.slot(0)
            assert offset == 0 and all(store.slot(k)[:2] == (bits, k * geo.tile_stride) for k in range(geo.word_blocks))
        else:
            bits = self.work.empty("scratch", 8)
        other = self if mirror is None else mirror
        blocks = geo.word_blocks + (0 if mirror is None else mirror.geo.word_blocks)
        return (
            self.work.kernel(self.program, "lcs_stripes")
            .set(
                masks=self.masks,
                b_codes=self.b_codes,
                v_row=self.v_row,
                edges=self.edges,
                bits=bits,
                tile_words=np.uint64(geo.tile_stride // 8),
                store=np.int32(store is not None),
                words=np.uint32(geo.words),
                n=np.uint32(geo.n),
                mirror_masks=other.masks,
                mirror_codes=other.b_codes,
                mirror_v_row=other.v_row,
                mirror_edges=other.edges,
                mirror_words=np.uint32(other.geo.words),
                blocks=np.uint32(geo.word_blocks),
            )
            .enqueue(self.device.queue, (blocks * geo.words_per_block,), (geo.words_per_block,))
        )

    def length(self) -> int:
        row = np.empty(self.geo.words, dtype=np.uint64)
        cl.enqueue_copy(self.device.queue, row, self.v_row, is_blocking=True)
        bits = int.from_bytes(row.astype("<u8", copy=False).tobytes(), "little") & ((1 << self.problem.m) - 1)
        return self.problem.m - bits.bit_count()


def lcs_length(problem: LCS, device: Device, options) -> tuple[int, Timings, dict]:
    """The LCS length alone (no bit rows kept): the sweep at full speed, for benchmarks.
    Returns (length, timings, the sweep's method and block geometry)."""
    timings = Timings()
    if problem.m == 0 or problem.n == 0:
        return 0, timings, {"method": "empty"}
    with timings.phase("upload"):
        codes = symbol_codes(problem)
    method = choose_method(problem, options.method, codes[2])
    schedule = _in_time(
        problem, device, options, choose_schedule(problem, device, method, codes[2], options, bit_rows=False), codes[2]
    )
    geo = geometry(
        problem, device, method, options.words_per_block, options.rows_per_block, options.rows_per_step, schedule, codes[2]
    )
    sweep = _Sweep(
        problem,
        Workspace(device, Plan("wavefront", device_buffers=_buffers(problem, geo, codes[2]), kernels=LCS_KERNELS)),
        geo,
        timings,
        codes,
    )
    with timings.phase("kernels"):
        sweep.run(None)
        deadline.drain(device.queue, "wavefront LCS: the last diagonals")
    details = {
        "method": sweep.method,
        "schedule": geo.schedule,
        "words_per_block": geo.words_per_block,
        "rows_per_block": geo.rows,
        "rows_per_step": geo.step_rows,
        "diagonals": geo.diagonals,
        "steps": geo.steps,
    }
    return sweep.length(), timings, details


# long: the sweep, its mirror, the store of bit rows and the trace-back share one plan
def solve_lcs(problem: LCS, device: Device, plan: Plan, options) -> Solution:
    timings = Timings()
    if problem.m == 0 or problem.n == 0:
        return Solution(0, np.zeros(0, bool), True, "", "", timings, positions=np.zeros((0, 2), np.int64))
    details = plan.details
    stripes = details["schedule"] == "stripes"
    geo = geometry(
        problem,
        device,
        str(details["method"]),
        details["words_per_block"],
        None if stripes else details["rows_per_block"],
        details["rows_per_step"],
        str(details["schedule"]),
        int(details["sigma"]),
    )
    work = Workspace(device, plan, poison=None)
    sweep = _Sweep(problem, work, geo, timings)
    reverse = _reverse(problem, work, geo, timings) if details.get("trace") == "stripes" else None
    store_plan = plan_store(
        "LCS bit rows",
        geo.chunk_bytes(),
        device,
        int(details["other_device_bytes"]),
        options.device_memory_limit,
        str(details["store"]),
    )
    with timings.phase("upload"):  # page-locked host memory takes a while to allocate
        store = RowStore(device, store_plan, poison=0xA5 if options.poison else None)
    try:
        with timings.phase("kernels"):
            sweep.run(store, mirror=reverse)  # the reversed sweep in the same launch
            deadline.drain(device.queue, "wavefront LCS: the last diagonals")
            store.drain(exposed=True)
        length = sweep.length()
        with timings.phase("download"):
            positions = (
                lcs_trace.serial(sweep, store, length, options.poison)
                if reverse is None
                else lcs_trace.by_stripes(sweep, reverse, store, length, options.poison)
            )
    finally:
        store.release()
    stats = {
        "method": sweep.method,
        "schedule": geo.schedule,
        "store": store_plan.mode,
        "diagonals": geo.diagonals,
        "trace": "stripes" if reverse is not None else "serial",
        "steps": geo.steps,
        "words_per_block": geo.words_per_block,
        "rows_per_block": geo.rows,
        "rows_per_step": geo.step_rows,
        "bit_row_bytes": store_plan.total_bytes,
    }
    if store_plan.mode == "host":
        stats.update(
            copied_bytes=store.stats.bytes,
            copy_seconds=store.stats.copy_seconds,
            copy_exposed_seconds=store.stats.exposed_seconds,
            copies_hidden_share=store.stats.hidden_share,
        )
    return Solution(length, np.zeros(0, bool), True, "", "", timings, stats=stats, positions=positions)


@dataclass(frozen=True)
class Reversed:
    """The grid of the sweep over both strings reversed (a padded to whole stripes): its sizes only,
    since that sweep gets its codes ready-made."""

    m: int
    n: int


def _reverse(problem: LCS, work: Workspace, geo: Geometry, timings: Timings) -> _Sweep:
    """The sweep over both strings reversed (``lcs_trace.reversed_codes``), same tiling, run in the
    sweep's launch: its edges give the suffix LCS at every stripe boundary."""
    codes = lcs_trace.reversed_codes(symbol_codes(problem), 64 * geo.words_per_block)
    mirror = Reversed(len(codes[0]), len(codes[1]))
    mirrored = geometry(mirror, work.device, geo.method, geo.words_per_block, None, geo.step_rows, "stripes", codes[2])
    return _Sweep(mirror, work, mirrored, timings, codes, prefix="reverse_")


def _round(count: int, multiple: int) -> int:
    return -(-count // multiple) * multiple
