"""The subtrees a device search walks: one per work-item (a slot), their state on the host and the
device, a launch of ``mkp_dfs.cl``, and the split that gives idle slots work between launches.

A slot's state is its subtree's root level, the decision bits of the node it stands on and that
node's level (-1 once its subtree is done). Every decision above the root is fixed; in the walk's
order a 0 between the root and the node means that branch with the item is done, so the shallowest
1 there (at level l) splits the subtree: the slot keeps the nodes with that 1 (its root moves
below l) and an idle slot takes those with a 0 at l (root and node at level l + 1).
"""

from __future__ import annotations

import numpy as np
import pyopencl as cl

from clsolve.sdk import Device, Plan, Relaxation, Tables, Timings, Workspace, buffers, deadline, kernels

SOURCE = kernels.KernelSource.resource("clsolve_plugins.mkp_dfs", "mkp_dfs.cl")
#: The walk of the subtrees and the bounds of their roots.
KERNELS = ("mkp_dfs", "mkp_root_bounds")
#: Work-group size of the walk.
LOCAL_SIZE = 64
_NOT_FOUND = np.iinfo(np.int32).max
#: Splits wait until at least 1 / IDLE_SHARE of the slots (or half of them) are idle.
IDLE_SHARE = 16
#: Decision bits a split unpacks at once, at most.
MATRIX_BITS = 2**25


def slot_bytes(words: int) -> int:
    """Device bytes of one slot: path and best bits, root, level, best value, nodes made."""
    return 16 * words + 4 + 4 + 8 + 8


def device_buffers(n: int, m: int, slots: int) -> dict[str, int]:
    """The device buffers of :class:`Subtrees` (a plan's): the level tables, the slots (and the one
    shared best value), the items (profits, weights, capacities)."""
    return {
        "level bounds": Tables.bytes_for(n, m),
        "subtrees": slots * slot_bytes(max(1, -(-n // 64))) + 4,
        "items": 8 * n * (m + 1) + 8 * m,
    }


class Subtrees:
    """``slots`` subtrees of the search over items in branching order (profits (n,), weights (n, m),
    capacities (m,)), walked on ``device`` with the bounds of ``tables``."""

    def __init__(
        self,
        device: Device,
        profits: np.ndarray,
        weights: np.ndarray,
        capacities: np.ndarray,
        tables: Tables,
        slots: int,
        floor: int,
        poison: int | None = None,
    ):
        """``floor``: the value to beat; ``poison``: a byte the buffers the kernel writes are filled with
        first (so a value it failed to write shows)."""
        self.device, self.n, self.m = device, profits.size, weights.shape[1]
        self.words = max(1, -(-self.n // 64))
        self.slots = slots
        self.p, self.w, self.c = profits, weights, capacities
        self.best, self.best_bits, self.found = floor, np.zeros(self.words, np.uint64), False
        self.path = np.zeros((slots, self.words), np.uint64)
        self.root = np.zeros(slots, np.int32)
        self.depth = np.full(slots, -1, np.int32)
        self.depth[0] = 0  # one slot holds the whole tree
        total = int(profits.sum())
        self.shift = max(0, total.bit_length() - 31)  # profit >> shift fits the shared int32
        self.made = 0
        self.left_running = False  # a launch still runs in the queue: the open bound is made on the host
        self.timings = Timings()
        self._buffers(
            tables, Workspace(device, Plan("mkp-dfs", device_buffers=device_buffers(self.n, self.m, slots), kernels=KERNELS))
        )
        if poison is not None:
            for name in ("best_path", "made"):
                buffers.fill(device.queue, self.buffers[name], poison)

    def _buffers(self, tables: Tables, work: Workspace) -> None:
        self.work = work

        def state(nbytes: int) -> cl.Buffer:
            return work.empty("subtrees", nbytes)

        def table(array: np.ndarray) -> cl.Buffer:
            return work.upload("level bounds", array)

        self.program = kernels.program(self.device, SOURCE, {"M": self.m, "WORDS": self.words})
        s, words = self.slots, self.words
        self.buffers = {
            "p": work.upload("items", self.p.astype(np.int64)),
            "w": work.upload("items", self.w.astype(np.int64)),
            "c": work.upload("items", self.c.astype(np.int64)),
            "u": table(tables.u),
            "start": table(tables.start),
            "wsum": table(tables.weight_sums),
            "psum": table(tables.profit_sums),
            "surr": table(tables.surrogate),
            "path": state(8 * s * words),
            "root": state(4 * s),
            "depth": state(4 * s),
            "best": state(8 * s),
            "best_path": state(8 * s * words),
            "made": state(8 * s),
            "shared": state(4),
        }
        self.kernel = self.work.kernel(self.program, "mkp_dfs").set(
            n=np.int32(self.n), shift=np.int32(self.shift), **self.buffers
        )

    @property
    def busy(self) -> np.ndarray:
        return self.depth >= 0

    def launch(self, budget: int) -> float | None:
        """Walk at most ``budget`` nodes in every busy subtree; the seconds it took, transfers included
        (each phase also added to ``timings``); None where the time limit passed before the walk ended
        (the subtrees are then as they were before it)."""
        watch, queue, b = deadline.Stopwatch(), self.device.queue, self.buffers
        with self.timings.phase("upload"):
            for name, array in (
                ("path", self.path),
                ("root", self.root),
                ("depth", self.depth),
                ("best", np.full(self.slots, self.best, np.int64)),
                ("shared", np.array([self.best >> self.shift], np.int32)),
            ):
                cl.enqueue_copy(queue, b[name], array)
            queue.finish()
        with self.timings.phase("kernels"):
            self.kernel.set(budget=np.int64(budget)).enqueue(queue, (self.slots,), (LOCAL_SIZE,))
            # a launch allowed to start ends within a quarter of the margin
            if not deadline.finished(queue, cl.enqueue_marker(queue), deadline.grace(1 / 4)):
                self.left_running = True
                return None  # the limit passed first (PoCL compiles a kernel at its first launch): state as before
        best, made = np.empty(self.slots, np.int64), np.empty(self.slots, np.int64)
        with self.timings.phase("download"):
            for name, array in (("path", self.path), ("depth", self.depth), ("best", best), ("made", made)):
                cl.enqueue_copy(queue, array, b[name])
            queue.finish()
            self.made += int(made.sum())
            top = int(np.argmax(best))
            if int(best[top]) > self.best:
                bits = np.empty(self.words, np.uint64)
                cl.enqueue_copy(queue, bits, b["best_path"], src_offset=8 * self.words * top)
                queue.finish()
                self.best, self.best_bits, self.found = int(best[top]), bits, True
        return watch.seconds

    def split(self, most: int) -> int:
        """Give idle slots parts of the busy subtrees, the shallowest splits first, at most ``most`` from
        one subtree (at its shallowest 1s, in order); how many subtrees were made."""
        idle = np.flatnonzero(~self.busy)
        if idle.size * IDLE_SHARE < self.slots and idle.size < self.slots - idle.size:
            return 0  # too few idle to pay for a split
        level = self._shallowest_taken()
        donors = np.flatnonzero(level < _NOT_FOUND)
        if not idle.size or not donors.size:
            return 0
        # the idle.size shallowest splits lie among the idle.size subtrees with the shallowest first split
        rows = max(1, min(idle.size, MATRIX_BITS // self.n))
        donors = donors[np.argsort(level[donors], kind="stable")[:rows]]
        bits = np.unpackbits(self.path[donors].view(np.uint8), axis=1, bitorder="little")[:, : self.n].astype(bool)
        columns = np.arange(self.n)[None, :]
        bits &= (columns >= self.root[donors][:, None]) & (columns < self.depth[donors][:, None])
        most = min(most, -(-2 * idle.size // donors.size))  # about twice the splits needed, not more
        bits &= np.cumsum(bits, axis=1, dtype=np.int32) <= most
        row, at = np.nonzero(bits)  # by subtree, then by level
        pick = np.argsort(at, kind="stable")[: idle.size]  # a subtree's picks are its shallowest 1s
        row, at = row[pick], at[pick].astype(np.int32)
        takers, donor = idle[: row.size], donors[row]
        self.path[takers] = self.path[donor] & _below(at, self.words)
        self.root[takers] = self.depth[takers] = at + 1
        order = np.lexsort((at, row))  # by subtree, its deepest pick last
        ends = np.r_[row[order][1:] != row[order][:-1], True]
        self.root[donor[order][ends]] = at[order][ends] + 1
        return int(row.size)

    def _shallowest_taken(self) -> np.ndarray:
        """Per slot, the shallowest level at or below its root whose bit is 1 (busy slots only; the
        others and slots with no such level get _NOT_FOUND)."""
        out = np.full(self.slots, _NOT_FOUND, np.int32)
        for word in range(self.words):
            bits = self.path[:, word] & ~_below(self.root - 64 * word, 1)[:, 0]
            lowest = bits & (~bits + np.uint64(1))
            at = 64 * word + np.log2(np.maximum(lowest, 1).astype(np.float64)).astype(np.int32)
            out = np.where((out == _NOT_FOUND) & (bits != 0), at, out)
        return np.where(self.busy, out, _NOT_FOUND)

    def open_bound(self, relaxation: Relaxation) -> int:
        """The largest bound of the busy subtrees' roots (every node left is below one of them): from the
        device (``mkp_root_bounds``), or computed on the host with ``relaxation``'s levels (those the
        kernel bounds with) where a launch was left running at the time limit, or where the device's
        bounds do not come within half the margin past it (a quarter of it from now, where later)."""
        if not self.busy.any():
            return self.best
        if self.left_running:
            return self._host_open_bound(relaxation)
        queue, b = self.device.queue, self.buffers
        for name, array in (("path", self.path), ("root", self.root), ("depth", self.depth)):
            cl.enqueue_copy(queue, b[name], array)
        names = ("p", "w", "c", "u", "start", "wsum", "psum", "surr", "path", "root", "depth")
        kernel = self.work.kernel(self.program, "mkp_root_bounds")
        kernel.set(n=np.int32(self.n), bound=b["made"], **{name: b[name] for name in names})
        kernel.enqueue(queue, (self.slots,), (LOCAL_SIZE,))
        bounds = np.empty(self.slots, np.int64)
        pending: list[cl.Event] = []
        buffers.copy_later(queue, bounds, b["made"], pending)
        # half the margin past the limit, or a quarter from now where later
        grace = max(deadline.grace(1 / 2), deadline.grace(1 / 4) - deadline.remaining())
        if not deadline.finished(queue, cl.enqueue_marker(queue), grace, pending):
            self.left_running = True  # its first launch on PoCL compiles it: the host bounds meanwhile
            return self._host_open_bound(relaxation)
        return max(self.best, int(bounds.max()))

    def _host_open_bound(self, relaxation: Relaxation) -> int:
        busy = np.flatnonzero(self.busy)
        roots = self.root[busy]
        bits = np.unpackbits(self.path[busy].view(np.uint8), axis=1, bitorder="little")[:, : self.n]
        decided = bits.astype(bool) & (np.arange(self.n)[None, :] < roots[:, None])
        profit, residual = _sums(decided, self.p), self.c[None, :] - _sums(decided, self.w)
        best = self.best
        for level in np.unique(roots).tolist():
            at = roots == level
            best = max(best, int(relaxation.bounds(level, profit[at], residual[at]).max()))
        return best


def _sums(taken: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``taken @ values`` exactly, in int64: through float64 (BLAS) where no sum can reach 2^53 (for
    33,792 slots, n = 100 and m = 30, about a quarter of the time of int64's product)."""
    if taken.shape[1] * int(np.abs(values).max(initial=0)) < 2**53:
        return np.rint(taken.astype(np.float64) @ values.astype(np.float64)).astype(np.int64)
    return taken.astype(np.int64) @ values


def _below(levels: np.ndarray, words: int) -> np.ndarray:
    """Per row, the mask (``words`` uint64 words) of the bits below ``levels`` (clipped to 0..64 x words)."""
    bit = np.clip(np.asarray(levels, np.int64)[:, None] - 64 * np.arange(words)[None, :], 0, 64)
    full = bit >= 64
    ones = np.left_shift(np.uint64(1), np.minimum(bit, 63).astype(np.uint64)) - np.uint64(1)
    return np.where(full, np.uint64(0xFFFFFFFFFFFFFFFF), ones).astype(np.uint64)
