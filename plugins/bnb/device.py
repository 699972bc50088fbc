"""bnb's device list: node buffers sized once per search, the two kernels of a step
(``bnb.cl``), the transfers, and what each uninterruptible part costs."""

from __future__ import annotations

import numpy as np
import pyopencl as cl

from clsolve.sdk import Device, Plan, TimeLimitError, Workspace, deadline, kernels

from .nodes import Items, undominated
from .tuning import FIRST_RATES, HOST_NODE_BYTES, HOST_TOUCH_SECONDS, MIN_NODES, NODE_BYTES, U32_MASK, WIRE_NODE_BYTES

#: The kernels ([LE12]: labelling by bounds, then compaction).
SOURCE = kernels.KernelSource.resource("clsolve_plugins.bnb", "bnb.cl")
#: A step's kernels: branch every node of the list, then compact the sons kept.
KERNELS = ("bnb_branch", "bnb_compact")


def _named(buffers: list, suffix: str = "") -> dict[str, object]:
    """A node list's five buffers (W, P, S, U, L of [LE12]) as kernel arguments."""
    return {f"{field}{suffix}": buffer for field, buffer in zip("WPSUL", buffers)}


#: A node's fields and their bytes.
FIELDS = (("W", 8), ("P", 8), ("s", 4), ("U", 8), ("L", 8))
FIELD_BYTES = tuple(size for _, size in FIELDS)
#: Nodes of the first device list (it grows by doubling from there).
FIRST_NODES = 4096


def list_nodes(n: int, node_limit: int) -> int:
    """The most nodes a device list for ``n`` items holds: the first list's size or the tree's widest
    level (2^n), up to the node limit (at least MIN_NODES)."""
    return min(max(MIN_NODES, node_limit), max(2 ** min(n, 40), FIRST_NODES))


def device_buffers(n: int, nodes: int, local_size: int) -> dict[str, int]:
    """The device buffers of :class:`DeviceSteps` (a plan's) for ``n`` items and lists of ``nodes``:
    the items (weights, profits, suffix minima with a sentinel), each field of the two lists (``W_a``
    .. ``L_b``, room for a step's sons), the step's flags and origins, and each work-group's results and
    offsets."""
    buffers = {"items": 8 * (3 * n + 1)}
    buffers.update((f"{field}_{copy}", 2 * nodes * size) for copy in "ab" for field, size in FIELDS)
    buffers.update(keep=2 * nodes, origin=8 * nodes, groups=28 * -(-nodes // local_size))
    return buffers


class DeviceSteps:
    """The list on the device: buffers sized once per search, two kernels per step; and what the
    uninterruptible parts of a step cost (``rates``), learnt as the search runs."""

    keep: cl.Buffer
    origin: cl.Buffer
    results: cl.Buffer
    offsets: cl.Buffer

    def __init__(self, items: Items, device: Device, budget: int, node_limit: int, local_size: int):
        """``node_limit``: the most nodes the device list may hold; ``local_size``: the work-group size."""
        self.device, self.items, self.budget = device, items, budget
        self.counted, self.count_every = deadline.Stopwatch(), 0.0  # when the held bytes were last counted, and how often
        # a list downloaded to be split must fit the host budget as well
        self.node_limit = max(MIN_NODES, min(node_limit, budget // (2 * HOST_NODE_BYTES)))
        self.limit = self.node_limit
        self.local_size = local_size
        self.most = list_nodes(items.n, node_limit)
        self.work = Workspace(device, Plan("bnb", device_buffers(items.n, self.most, local_size), kernels=KERNELS))
        self.count = 0
        self.top = 0  # an upper bound on the U of every node of the device list
        self.capacity = 0
        self.upload_seconds = self.kernel_seconds = self.download_seconds = 0.0
        self._ready = False
        self.sets: list = [[], []]
        self.labels = ["a", "b"]  # the plan's names of each list's buffers (they swap at each step)
        step = "device step" if device.is_gpu else "device step (cpu)"
        self.rates = {
            name: deadline.Rate(*FIRST_RATES[first])
            for name, first in (("device step", step), ("host step", "host step"), ("filter", "filter"), ("transfer", "transfer"))
        }

    # -- time ------------------------------------------------------------------------------------
    def fit_limit(self) -> None:
        """Under a time limit, keep the list short enough that downloading a step's sons into fresh
        host memory (to split them) takes at most a quarter of the margin; on a CPU device, whose
        buffers are host memory first touched by the kernels, grown buffers as well."""
        if not deadline.limited():
            return
        share = deadline.grace(1 / 4)
        per_node = 2 * WIRE_NODE_BYTES * (self.rates["transfer"].per_unit + HOST_TOUCH_SECONDS)
        nodes = share / per_node
        if self.device.is_cpu:
            nodes = min(nodes, share / (NODE_BYTES * HOST_TOUCH_SECONDS))
        self.limit = max(MIN_NODES, min(self.node_limit, int(nodes)))

    def predict(self, count: int, on_device: bool, device_path: bool) -> float:
        """Seconds the next step on ``count`` nodes is predicted to take, with the upload before it
        and the download after it that cannot be skipped (the dominance filter is optional)."""
        if not device_path:
            return self.rates["host step"].predict(count)
        seconds = self.rates["device step"].predict(count)
        if not on_device:
            seconds += self.rates["transfer"].predict(WIRE_NODE_BYTES * count)
        if 2 * count > self.limit:
            seconds += self.rates["transfer"].predict(2 * WIRE_NODE_BYTES * count)
        return seconds

    def filter_seconds(self, count: int) -> float:
        return self.rates["filter"].predict(count) + self.rates["transfer"].predict(2 * WIRE_NODE_BYTES * count)

    # -- buffers ---------------------------------------------------------------------------------
    def _setup(self, need: int, keep_list: bool = False) -> None:
        """Item buffers once; node buffers for ``need`` nodes (grown by doubling, up to the limit),
        copying the current list into the new buffers when ``keep_list``."""
        work = self.work
        if not self._ready:
            self.program = kernels.program(self.device, SOURCE, {"LOCAL_SIZE": self.local_size})
            items = self.items
            self.w, self.p, self.suffix = (work.upload("items", a) for a in (items.weights, items.profits, items.suffix_min))
            self._ready = True
        if need <= self.capacity:
            return
        self._kernels()  # fresh kernels: the old ones hold the buffers about to be replaced
        # a chunk split off under an earlier (longer) limit still fits
        capacity = min(max(need, min(self.limit, max(2 * self.capacity, FIRST_NODES))), max(need, self.most))
        slots = 2 * capacity
        old = self.sets[0] if keep_list and self.capacity else []
        current_label, other_label = self.labels[1], self.labels[0]  # the new list where the other one was
        if self.capacity:  # all but the list kept: given back before the larger ones are made
            self._release(self.labels[1], self.sets[1])
            if not old:
                self._release(self.labels[0], self.sets[0])
            for name in ("keep", "origin"):
                work.release(name, getattr(self, name))
            work.release("groups", self.results, self.offsets)
        current = self._list(current_label, slots)
        if old and self.count:
            for src, dst, size in zip(old, current, FIELD_BYTES):
                cl.enqueue_copy(self.device.queue, dst, src, byte_count=self.count * size)
        self._release(other_label, old)
        self.sets, self.labels = [current, self._list(other_label, slots)], [current_label, other_label]
        self.capacity = capacity
        self.keep = work.empty("keep", slots)
        self.origin = work.empty("origin", 4 * slots)
        groups = -(-capacity // self.local_size)
        self.results = work.empty("groups", 24 * groups)
        self.offsets = work.empty("groups", 4 * groups)

    def _list(self, label: str, slots: int) -> list[cl.Buffer]:
        return [self.work.empty(f"{field}_{label}", slots * size) for field, size in FIELDS]

    def _release(self, label: str, buffers: list[cl.Buffer]) -> None:
        for (field, _), buffer in zip(FIELDS, buffers):
            self.work.release(f"{field}_{label}", buffer)

    def _kernels(self) -> None:
        """The step's two kernels, the item arguments bound; node buffers are bound at each step."""
        items = self.items
        self.branch = self.work.kernel(self.program, "bnb_branch").set(
            w=self.w, p=self.p, suffix_min=self.suffix, n=np.uint32(items.n), c=np.uint64(items.capacity)
        )
        self.compact = self.work.kernel(self.program, "bnb_compact")

    def upload(self, nodes, branched: bool = True) -> None:
        """The list from host arrays; ``branched``: room for its sons too (the next step branches it),
        else where it fits the list's slots as they are (survivors of a filter, whose list of up to
        twice the node limit goes back to the host before the next step)."""
        watch = deadline.Stopwatch()
        count = nodes[0].size
        if branched or count > 2 * self.capacity:
            self._setup(count)
        queue = self.device.queue
        for buf, array, dtype in zip(self.sets[0], nodes, (np.int64, np.int64, np.uint32, np.int64, np.int64)):
            cl.enqueue_copy(queue, buf, np.ascontiguousarray(array, dtype=dtype))
        queue.finish()
        self.count = count
        self.top = int(nodes[3].max()) if count else 0
        elapsed = watch.seconds
        self.rates["transfer"].observe(WIRE_NODE_BYTES * count, elapsed)
        self.upload_seconds += elapsed

    def upload_within(self, nodes) -> str:
        """Upload the list; "" when done, or why not: the time limit passed while the kernels were
        built (the first build can take longer than a short limit)."""
        try:
            self.upload(nodes)
        except TimeLimitError:
            return "time limit reached while the device kernels were built"
        return ""

    def download(self) -> tuple[np.ndarray, ...]:
        """The current list (on the device) as host arrays."""
        count, queue = self.count, self.device.queue
        queue.finish()  # the last compaction: kernel time, not transfer time
        watch = deadline.Stopwatch()
        out = []
        for buf, dtype in zip(self.sets[0], (np.int64, np.int64, np.uint32, np.int64, np.int64)):
            array = np.empty(count, dtype=dtype)
            if count:
                cl.enqueue_copy(queue, array, buf)
            out.append(array)
        queue.finish()
        out[2] = out[2].astype(np.int64)
        elapsed = watch.seconds
        self.rates["transfer"].observe(WIRE_NODE_BYTES * count, elapsed)
        self.download_seconds += elapsed
        return tuple(out)

    def filter(self, items: Items, step: int) -> np.ndarray | None:
        """Drop the dominated nodes of the device list of step ``step``; the survivors' indices, or
        None where every node survives."""
        listed = self.download()
        watch = deadline.Stopwatch()
        survivors = undominated(items, listed, step)
        self.rates["filter"].observe(listed[0].size, watch.seconds)
        if survivors.size == listed[0].size:
            return None
        self.upload(tuple(a[survivors] for a in listed), branched=False)
        return survivors

    # -- one step --------------------------------------------------------------------------------
    def step(self, step: int, best: int):
        """Branch the list on item ``step``; returns (improvement or None, origin records)."""
        q, queue, size = self.count, self.device.queue, self.local_size
        self._setup(q, keep_list=True)
        groups = -(-q // size)
        watch = deadline.Stopwatch()
        current, other = self.sets
        self.branch.set(
            q=np.uint32(q), k=np.uint32(step), best=np.uint64(best), **_named(current), keep=self.keep, results=self.results
        ).enqueue(queue, (groups * size,), (size,))
        results = np.empty(3 * groups, dtype=np.uint64)
        cl.enqueue_copy(queue, results, self.results)  # blocking: waits for the kernel
        values, packed = results[0::3], results[1::3]
        counts = (packed & np.uint64(U32_MASK)).astype(np.int64)
        kept = int(counts.sum())
        improved = None
        g = int(np.argmax(values))
        if int(values[g]) > best:
            son = int(packed[g] >> np.uint64(32))
            node = np.empty(1, dtype=np.int64)
            slack = np.empty(1, dtype=np.uint32)
            cl.enqueue_copy(queue, node, current[0], src_offset=8 * (q + son))
            cl.enqueue_copy(queue, slack, current[2], src_offset=4 * (q + son))
            improved = (int(values[g]), son, int(node[0]), int(slack[0]))
        origin = np.empty(kept, dtype=np.uint32)
        if kept:
            offsets = np.zeros(groups, dtype=np.uint32)
            offsets[1:] = np.cumsum(counts[:-1])
            self._offsets = offsets  # kept alive until the copy is done
            cl.enqueue_copy(queue, self.offsets, offsets, is_blocking=False)
            self.compact.set(
                q=np.uint32(q), keep=self.keep, offsets=self.offsets, **_named(current), **_named(other, "2"), origin=self.origin
            ).enqueue(queue, (groups * size,), (size,))
            # waited for: the caller may filter these records at once
            cl.enqueue_copy(queue, origin, self.origin, is_blocking=True)
        self.sets, self.labels = [other, current], self.labels[::-1]
        self.count = kept
        self.top = int(results[2::3].max()) if kept else 0
        elapsed = watch.seconds
        self.rates["device step"].observe(q, elapsed)
        self.kernel_seconds += elapsed
        return improved, origin
