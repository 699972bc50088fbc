"""The ascent kernel's host side: a batch of nodes in, their bounds, penalties and 1-trees out, one
launch (``onetree.cl``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyopencl as cl

from clsolve.sdk import Device, Workspace, deadline, kernels

SOURCE = kernels.KernelSource.resource("clsolve_plugins.tsp_bnb", "onetree.cl")
KERNELS = ("ascent",)

#: The kernel's outcomes per node.
ONGOING, PRUNED, TOUR, INFEASIBLE = 0, 1, 2, 3
#: The kernel's mark of an edge no tour takes (its cost).
INF = 2**31 - 1
#: Fixed edges per node the edge buffer holds on average (a batch whose nodes fix more is cut short).
EDGES_PER_NODE = 3


@dataclass
class Evaluated:
    """One launch's answers, a row per node: ``bounds`` (scaled), ``status``, ``pi``, ``trees``."""

    bounds: np.ndarray
    status: np.ndarray
    pi: np.ndarray
    trees: np.ndarray


def group_size(device: Device, n: int, root: bool = False) -> int:
    """Work-items per node: few for a batch, whose nodes fill the GPU (Prim's steps wait on their
    reductions), many for the root alone (its steps' latency is the whole wait)."""
    size = capacity(n)
    if not device.is_gpu:
        return 32 if size <= 64 else 64
    if root:
        return min(size, 256)
    return 32 if size <= 64 else 64 if size <= 128 else 128


#: Vertices whose forbidden bits the kernel keeps in local memory (``onetree.cl``'s LOCAL_BITS).
LOCAL_BITS = 256


def capacity(n: int) -> int:
    """The kernel's vertex arrays: n rounded up to a power of two (at least 64), so that few builds
    serve every size."""
    size = 64
    while size < n:
        size *= 2
    return size


def buffers(n: int, batch: int, edges: int, prefix: str = "") -> dict[str, int]:
    """Device buffers of a batch of ``batch`` nodes fixing ``edges`` edges in all (``prefix`` names
    another batch's set: the root's)."""
    size = capacity(n)
    return {
        prefix + "bits": batch * size * size // 8 if size > LOCAL_BITS else 4,
        prefix + "edges": 4 * edges,
        prefix + "first": 4 * (batch + 1),
        prefix + "pi": 4 * batch * n,
        prefix + "bounds": 8 * batch,
        prefix + "status": 4 * batch,
        prefix + "trees": 4 * batch * n,
    }


class Ascent:
    """The kernel over one problem's scaled costs (``cost``, a device buffer), with buffers (named
    with ``prefix``) for ``batch`` nodes of ``edges`` fixed edges in all, ``local`` work-items per node.
    ``launch`` starts a batch and returns at once; ``collect`` waits for its answers."""

    def __init__(
        self, device: Device, work: Workspace, cost: cl.Buffer, n: int, batch: int, edges: int, local: int, prefix: str = ""
    ):
        self.device, self.n, self.batch, self.edges, self.local = device, n, batch, edges, local
        program = kernels.program(device, SOURCE, {"MAXN": capacity(n), "WG": local})
        self.kernel = work.kernel(program, "ascent")
        self.cost = cost
        self.buffers = {name[len(prefix) :]: work.empty(name, size) for name, size in buffers(n, batch, edges, prefix).items()}
        self.count = 0
        self.event: cl.Event | None = None
        self.started = deadline.Stopwatch()

    def launch(
        self,
        codes: np.ndarray,
        first: np.ndarray,
        pi: np.ndarray,
        iterations: int,
        patience: int,
        upper: int,
        target: int,
        lambda0: float,
        decay: float,
    ) -> None:
        """Nodes fixing ``codes[first[k] .. first[k+1])`` (2 code + 1 forbidden, + 0 required), from
        penalties ``pi`` (a row per node): ``iterations`` ascent steps each, fewer where ``patience``
        steps raise no bound."""
        queue, b = self.device.queue, self.buffers
        self.count = first.size - 1
        cl.enqueue_copy(queue, b["edges"], codes.astype(np.int32) if codes.size else np.zeros(1, np.int32))
        cl.enqueue_copy(queue, b["first"], first.astype(np.int32))
        cl.enqueue_copy(queue, b["pi"], np.ascontiguousarray(pi, dtype=np.int32))
        self.event = self.kernel.set(
            cost=self.cost,
            bits=b["bits"],
            edges=b["edges"],
            first=b["first"],
            pis=b["pi"],
            bounds=b["bounds"],
            status=b["status"],
            trees=b["trees"],
            n=self.n,
            iterations=iterations,
            patience=patience,
            upper=upper,
            target=target,
            lambda0=lambda0,
            decay=decay,
        ).enqueue(queue, (self.count * self.local,), (self.local,))
        self.started = deadline.Stopwatch()
        queue.flush()

    def collect(self) -> Evaluated | None:
        """The answers of the batch ``launch`` started (waits for them), or None where the time limit
        passes first (the launch goes on; the next solve's clock starts after it)."""
        count, n, queue, b = self.count, self.n, self.device.queue, self.buffers
        if self.event is not None and not deadline.finished(queue, self.event):
            return None
        out = Evaluated(
            np.empty(count, np.int64), np.empty(count, np.int32), np.empty((count, n), np.int32), np.empty((count, n), np.int32)
        )
        cl.enqueue_copy(queue, out.bounds, b["bounds"])
        cl.enqueue_copy(queue, out.status, b["status"])
        cl.enqueue_copy(queue, out.pi, b["pi"])
        cl.enqueue_copy(queue, out.trees, b["trees"], is_blocking=True)
        return out


@dataclass
class Ascents:
    """The costs on the device and the two ascents over them: the root's (one node, many work-items)
    and the batches' (``batch`` nodes)."""

    device: Device
    cost: cl.Buffer
    root: Ascent
    batch: Ascent

    def set_cost(self, cost: np.ndarray) -> None:
        cl.enqueue_copy(self.device.queue, self.cost, np.ascontiguousarray(cost, dtype=np.int32))


def plan_buffers(n: int, batch: int) -> dict[str, int]:
    """Every device buffer of a search over n vertices with ``batch`` nodes per launch."""
    return {"cost": 4 * n * n, **buffers(n, batch, EDGES_PER_NODE * n * batch), **buffers(n, 1, n, "root ")}


def ascents(device: Device, work: Workspace, cost: np.ndarray, batch: int, local: int | None) -> Ascents:
    n = cost.shape[0]
    buffer = work.upload("cost", cost.astype(np.int32), writable=True)
    root = Ascent(device, work, buffer, n, 1, n, group_size(device, n, root=True), "root ")
    nodes = Ascent(device, work, buffer, n, batch, EDGES_PER_NODE * n * batch, local or group_size(device, n))
    return Ascents(device, buffer, root, nodes)
