"""The tilings of the LCS sweep (``lcs.py``): block diagonals (blocks of words x rows, one launch
per block diagonal) or stripes (a work-group per block of words for all n rows, one launch), their
geometry checked against the device's limits, and the choice between them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from clsolve.sdk import LCS, Device, InvalidOptionError

#: Default block tiling by device kind (GPU: True), from the tiling sweep of ``clsolve bench wavefront``
#: on the H100 (ci/results/bench-wavefront-h100.json): 128 words x 4096 rows, 4 rows per barrier.
DEFAULT_WORDS_PER_BLOCK = {True: 128, False: 8}
DEFAULT_ROWS_PER_BLOCK = {True: 4096, False: 128}
DEFAULT_ROWS_PER_STEP = 4
#: Default blocks are halved down to this many rows when the plan's store does not fit otherwise.
MIN_DEFAULT_ROWS = 64
SCHEDULES = ("auto", "diagonals", "stripes")
#: Stripes: default words per work-group and rows per step (at most 31: an edge's top bit is its
#: ready flag), and the row groups whose edges a stripe fetches at once.
STRIPE_WORDS_PER_BLOCK = 64
STRIPE_ROWS_PER_STEP = 20
STRIPE_STAGE = 16
#: Stripes copy their words of every mask row to local memory when they take at most this many bytes
#: (``mask_rows(sigma)`` rows of words_per_block words: small alphabets).
STRIPE_MASK_BYTES = 16 * 1024
#: Row counts mask tables are padded to (the first one that holds sigma + 2 rows), so that alphabets of
#: nearby sizes (DNA's, a protein's) share one stripes program (its MASK_ROWS) instead of building one
#: each; larger alphabets keep sigma + 2 rows.
PADDED_MASK_ROWS = (8, 32, 64)


def mask_rows(sigma: int) -> int:
    """Rows of the mask table of ``sigma`` common symbols: one per code (0 to sigma + 1), padded to the
    first of PADDED_MASK_ROWS that holds them (the padding rows are never read by a code)."""
    rows = sigma + 2
    return next((padded for padded in PADDED_MASK_ROWS if rows <= padded), rows)


#: Bytes each chunk of a store starts on (``RowStore`` packs chunks at this alignment).
CHUNK_ALIGN = 256
#: The trace-back needs work-groups of at least this many work-items (rows of its window).
TRACE_MIN_LOCAL_SIZE = 64


class Grid(Protocol):
    """What a tiling reads of a problem: m symbols of a (the columns, 64 to a word) by n of b (the rows)."""

    @property
    def m(self) -> int: ...

    @property
    def n(self) -> int: ...


@dataclass(frozen=True)
class Geometry:
    """The block tiling of one LCS grid."""

    m: int
    n: int
    words: int
    words_per_block: int
    rows: int
    step_rows: int = 1
    method: str = "bits"
    schedule: str = "diagonals"
    stage: int = STRIPE_STAGE
    sigma: int = 0

    @property
    def code_type(self) -> tuple[str, int]:
        """The C type and bytes of a symbol code in the stripes' ring (codes go up to sigma + 1)."""
        return ("uchar", 1) if self.sigma + 2 <= 2**8 else ("ushort", 2) if self.sigma + 2 <= 2**16 else ("uint", 4)

    @property
    def ring_groups(self) -> int:
        """Row groups of symbol codes a stripe keeps: a power of two above words_per_block + stage."""
        return 1 << (self.words_per_block + self.stage).bit_length()

    @property
    def mask_bytes(self) -> int:
        """Local memory of a stripe's mask rows, 0 where they stay in global memory (too many symbols)."""
        size = mask_rows(self.sigma) * self.words_per_block * 8
        return size if size <= STRIPE_MASK_BYTES else 0

    def stripe_defines(self) -> dict[str, object]:
        defines: dict[str, object] = {"CODE_T": self.code_type[0], "RING_GROUPS": self.ring_groups, "SKEWED_ROWS": 1}
        if self.mask_bytes:
            defines["MASK_ROWS"] = mask_rows(self.sigma)  # masks read from local memory as each group starts
        else:
            defines["MASKS_AHEAD"] = 1  # masks read from global memory a group ahead
        return defines

    @property
    def groups(self) -> int:
        """Row groups of a block (a stripe: all n rows): one inner-wavefront step (and one barrier) each."""
        return -(-(self.n if self.schedule == "stripes" else self.rows) // self.step_rows)

    @property
    def word_blocks(self) -> int:
        return -(-self.words // self.words_per_block)

    @property
    def row_blocks(self) -> int:
        return -(-self.n // self.rows)

    @property
    def diagonals(self) -> int:
        return self.word_blocks + self.row_blocks - 1

    @property
    def tile_bytes(self) -> int:
        return self.words_per_block * self.rows * 8

    @property
    def steps(self) -> int:
        """The sweep's critical path in inner-wavefront steps: a block takes groups + words - 1; a
        stripe starts about words_per_block + stage steps after the one to its left."""
        if self.schedule == "stripes":
            return self.groups + self.word_blocks * (self.words_per_block + self.stage) - self.stage - 1
        return self.diagonals * (self.groups + self.words_per_block - 1)

    @property
    def tile_stride(self) -> int:
        """Bytes from one stripe's bit rows to the next (stripes: one buffer, chunks packed aligned)."""
        return -(-self.tile_bytes // CHUNK_ALIGN) * CHUNK_ALIGN

    @property
    def edge_words(self) -> int:
        """uints of the edges buffer: crossing bits of each row group into each word block (and past the last)."""
        return (self.word_blocks + 1) * 2 * self.groups if self.schedule == "diagonals" else (self.word_blocks + 1) * self.groups

    def blocks_of(self, diagonal: int) -> tuple[int, int]:
        """First word block and number of blocks on a block diagonal."""
        first = max(0, diagonal - self.row_blocks + 1)
        last = min(diagonal, self.word_blocks - 1)
        return first, last - first + 1

    def chunk_bytes(self) -> list[int]:
        return [self.blocks_of(d)[1] * self.tile_bytes for d in range(self.diagonals)]


def geometry(
    problem: Grid,
    device: Device,
    method: str,
    words_per_block: int | None,
    rows_per_block: int | None,
    rows_per_step: int | None = None,
    schedule: str = "diagonals",
    sigma: int = 0,
) -> Geometry:
    """The block tiling for ``method`` ("bits" or "cells") and ``schedule`` ("diagonals" or
    "stripes", whose kernel depends on the ``sigma`` common symbols), checked against the device's limits."""
    if schedule == "stripes":
        return _stripes(problem, device, method, words_per_block, rows_per_block, rows_per_step, sigma)
    words = -(-problem.m // 64)
    limit = device.max_work_group_size
    default_words, default_rows = words_per_block is None, rows_per_block is None
    words_per_block = min(DEFAULT_WORDS_PER_BLOCK[device.is_gpu], limit) if words_per_block is None else words_per_block
    rows_per_block = DEFAULT_ROWS_PER_BLOCK[device.is_gpu] if rows_per_block is None else rows_per_block
    rows_per_step = DEFAULT_ROWS_PER_STEP if rows_per_step is None else rows_per_step
    _check_step(device, words_per_block, rows_per_step, 32, "(the crossing bits of a step share a 32-bit word)")
    # defaults (never shapes asked for) shrink until a block fits the device's local memory
    while _local_bytes(method, words_per_block, rows_per_block, rows_per_step) > device.local_memory:
        if default_rows and rows_per_block > 512:
            rows_per_block //= 2
        elif default_words and words_per_block > 8:
            words_per_block //= 2
        elif default_rows and rows_per_block > 64:
            rows_per_block //= 2
        else:
            break
    if not 1 <= int(rows_per_block) <= 8192:
        raise InvalidOptionError(f"rows_per_block must be in 1..8192, got {rows_per_block}")
    local_bytes = _local_bytes(method, words_per_block, rows_per_block, rows_per_step)
    if local_bytes > device.local_memory:
        raise InvalidOptionError(
            f"blocks of {words_per_block} words x {rows_per_block} rows need {local_bytes} bytes "
            f"of local memory; {device.label} has {device.local_memory}"
        )
    return Geometry(problem.m, problem.n, words, int(words_per_block), int(rows_per_block), int(rows_per_step), method)


def _check_step(device: Device, words_per_block: int, rows_per_step: int, most_rows: int, why: str) -> None:
    """Words per work-group within the device's limit, rows per step in 1..most_rows, and work-groups
    large enough for the trace-back."""
    limit = device.max_work_group_size
    if not 1 <= int(words_per_block) <= limit:
        raise InvalidOptionError(f"words_per_block must be in 1..{limit} (the device's work-group limit), got {words_per_block}")
    if not 1 <= int(rows_per_step) <= most_rows:
        raise InvalidOptionError(f"rows_per_step must be in 1..{most_rows} {why}, got {rows_per_step}")
    if limit < TRACE_MIN_LOCAL_SIZE:
        raise InvalidOptionError(f"the trace-back needs work-groups of {TRACE_MIN_LOCAL_SIZE}; {device.label} allows {limit}")


def _stripes(
    problem: Grid,
    device: Device,
    method: str,
    words_per_block: int | None,
    rows_per_block: int | None,
    rows_per_step: int | None,
    sigma: int,
) -> Geometry:
    """The stripes of ``lcs_stripes``: words_per_block words for all n rows each."""
    if method != "bits":
        raise InvalidOptionError("schedule='stripes' runs the bit-parallel sweep only (method='bits' or 'auto')")
    if rows_per_block is not None:
        raise InvalidOptionError("rows_per_block applies to schedule='diagonals'; a stripe is all n rows high")
    limit = device.max_work_group_size
    words_per_block = min(STRIPE_WORDS_PER_BLOCK, limit) if words_per_block is None else words_per_block
    rows_per_step = STRIPE_ROWS_PER_STEP if rows_per_step is None else rows_per_step
    _check_step(device, words_per_block, rows_per_step, 31, "with schedule='stripes' (an edge's top bit is its ready flag)")
    # rows of a stripe's words, skewed by step (SKEWED in the kernels): a word's rows start as many
    # steps after the stripe's first word as its place in the stripe
    rows = (-(-problem.n // int(rows_per_step)) + int(words_per_block) - 1) * int(rows_per_step)
    geo = Geometry(
        problem.m,
        problem.n,
        -(-problem.m // 64),
        int(words_per_block),
        rows,
        int(rows_per_step),
        method,
        "stripes",
        STRIPE_STAGE,
        sigma,
    )
    local_bytes = geo.words_per_block * 8 + geo.stage * 4 + geo.ring_groups * geo.step_rows * geo.code_type[1] + geo.mask_bytes
    if local_bytes > device.local_memory:
        raise InvalidOptionError(
            f"stripes of {geo.words_per_block} words with {geo.step_rows} rows per step need "
            f"{local_bytes} bytes of local memory; {device.label} has {device.local_memory}"
        )
    return geo


def choose_schedule(problem: LCS, device: Device, method: str, sigma: int, options, bit_rows: bool) -> str:
    """``options.schedule``, or for ``auto``: stripes on a GPU for the bit-parallel sweep with the
    default blocks, when the bit rows (if kept, ``bit_rows``) fit in one device allocation beside
    the rest; else diagonals."""
    schedule = getattr(options, "schedule", "auto")
    if schedule not in SCHEDULES:
        raise InvalidOptionError(f"schedule must be one of {', '.join(SCHEDULES)}, got {schedule!r}")
    if schedule != "auto":
        return schedule
    if not device.is_gpu or method != "bits" or options.rows_per_block is not None or options.store == "host":
        return "diagonals"
    if options.rows_per_step is not None and not 1 <= options.rows_per_step <= 31:
        return "diagonals"  # the diagonals' checks name the limits of the default schedule
    if bit_rows:
        try:
            geo = _stripes(problem, device, method, options.words_per_block, None, options.rows_per_step, sigma)
        except InvalidOptionError:
            return "diagonals"
        if geo.tile_stride * geo.word_blocks > device.max_allocation:
            return "diagonals"
    return "stripes"


def _local_bytes(method: str, words_per_block: int, rows_per_block: int, rows_per_step: int) -> int:
    """The sweep's local memory: symbols, crossing bits in and out, carries, and for cells the
    block's symbols of a."""
    groups = -(-int(rows_per_block) // int(rows_per_step))
    local_bytes = int(rows_per_block) * 4 + groups * 8 + int(words_per_block) * 8 + 64
    if method == "cells":
        local_bytes += int(words_per_block) * 64 * 4
    return local_bytes
