"""The ascent kernel's host side: a batch of nodes in, their bounds, penalties and 1-trees out, one
launch (``onetree.cl``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyopencl as cl

from clsolve.sdk import Device, Workspace, kernels

SOURCE = kernels.KernelSource.resource("clsolve_plugins.tsp_bnb", "onetree.cl")
KERNELS = ("ascent",)

#: The kernel's outcomes per node.
ONGOING, PRUNED, TOUR, INFEASIBLE = 0, 1, 2, 3
#: The kernel's mark of an edge no tour takes (its cost).
INF = 2**31 - 1


@dataclass
class Evaluated:
    """One launch's answers, a row per node: ``bounds`` (scaled), ``status``, ``pi``, ``trees``."""

    bounds: np.ndarray
    status: np.ndarray
    pi: np.ndarray
    trees: np.ndarray


def group_size(device: Device, n: int) -> int:
    """Work-items per node: few, for Prim's steps wait on their reductions (one warp up to 128
    vertices on a GPU)."""
    size = capacity(n)
    if device.is_gpu:
        return 32 if size <= 128 else 64 if size <= 256 else 128
    return 32 if size <= 64 else 64


#: Vertices whose forbidden bits the kernel keeps in local memory (``onetree.cl``'s LOCAL_BITS).
LOCAL_BITS = 256


def capacity(n: int) -> int:
    """The kernel's vertex arrays: n rounded up to a power of two (at least 64), so that few builds
    serve every size."""
    size = 64
    while size < n:
        size *= 2
    return size


def buffers(n: int, batch: int, edges: int) -> dict[str, int]:
    """Device buffers of a batch of ``batch`` nodes fixing ``edges`` edges in all."""
    return {
        "cost": 4 * n * n,
        "bits": batch * capacity(n) ** 2 // 8 if capacity(n) > LOCAL_BITS else 4,
        "edges": 4 * edges,
        "first": 4 * (batch + 1),
        "pi": 4 * batch * n,
        "bounds": 8 * batch,
        "status": 4 * batch,
        "trees": 4 * batch * n,
    }


class Ascent:
    """The kernel bound to one problem's scaled costs, with buffers for ``batch`` nodes of ``edges``
    fixed edges in all."""

    def __init__(self, device: Device, work: Workspace, cost: np.ndarray, batch: int, edges: int, local: int | None = None):
        n = cost.shape[0]
        self.device, self.n, self.batch, self.edges = device, n, batch, edges
        local = local or group_size(device, n)
        self.local = local
        program = kernels.program(device, SOURCE, {"MAXN": capacity(n), "WG": local})
        self.kernel = work.kernel(program, "ascent")
        self.cost = work.upload("cost", cost.astype(np.int32))
        size = capacity(n)
        self.bits = work.empty("bits", batch * size * size // 8 if size > LOCAL_BITS else 4)
        self.fixed = work.empty("edges", 4 * edges)
        self.first = work.empty("first", 4 * (batch + 1))
        self.pi = work.empty("pi", 4 * batch * n)
        self.bounds = work.empty("bounds", 8 * batch)
        self.status = work.empty("status", 4 * batch)
        self.trees = work.empty("trees", 4 * batch * n)

    def set_cost(self, cost: np.ndarray) -> None:
        cl.enqueue_copy(self.device.queue, self.cost, np.ascontiguousarray(cost, dtype=np.int32))

    def run(
        self,
        codes: np.ndarray,
        first: np.ndarray,
        pi: np.ndarray,
        iterations: int,
        upper: int,
        target: int,
        lambda0: float,
        decay: float,
    ):
        """Nodes fixing ``codes[first[k] .. first[k+1])`` (2 code + 1 forbidden, + 0 required), from
        penalties ``pi`` (a row per node): ``iterations`` ascent steps each."""
        count, n, queue = first.size - 1, self.n, self.device.queue
        cl.enqueue_copy(queue, self.fixed, codes.astype(np.int32) if codes.size else np.zeros(1, np.int32))
        cl.enqueue_copy(queue, self.first, first.astype(np.int32))
        cl.enqueue_copy(queue, self.pi, np.ascontiguousarray(pi, dtype=np.int32))
        self.kernel.set(
            cost=self.cost,
            bits=self.bits,
            edges=self.fixed,
            first=self.first,
            pis=self.pi,
            bounds=self.bounds,
            status=self.status,
            trees=self.trees,
            n=n,
            iterations=iterations,
            upper=upper,
            target=target,
            lambda0=lambda0,
            decay=decay,
        ).enqueue(queue, (count * self.local,), (self.local,))
        out = Evaluated(
            np.empty(count, np.int64), np.empty(count, np.int32), np.empty((count, n), np.int32), np.empty((count, n), np.int32)
        )
        cl.enqueue_copy(queue, out.bounds, self.bounds)
        cl.enqueue_copy(queue, out.status, self.status)
        cl.enqueue_copy(queue, out.pi, self.pi)
        cl.enqueue_copy(queue, out.trees, self.trees, is_blocking=True)
        return out
