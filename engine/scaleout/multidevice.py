"""``device="all"``: one batch spread over several OpenCL devices of this host.

Each device gets its own worker process (its own context and queue, and its own Python, so the
host work of presolve, planning and checking runs in parallel too), kept for later batches. The
batch is cut into chunks of equal planned cost (:mod:`clsolve.scaleout.chunks`); a device takes the next
chunk when it has fewer than two in hand, so a faster device takes more. A worker process that
dies has its chunks re-run on a fresh one.
"""

from __future__ import annotations

import atexit
import multiprocessing
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent import futures
from concurrent.futures.process import BrokenProcessPool

from ..batch.arrays import SolutionArrays
from ..runtime.devices import Device, get_device, gpus
from ..solution import Solution
from . import chunks

#: Chunks a device holds at once: one running, one waiting, so it never idles between chunks.
IN_FLIGHT = 2
#: Times a chunk is sent again after the process holding it died.
MAX_ATTEMPTS = 3


def is_several(device) -> bool:
    """Whether a ``device`` argument asks for a batch spread over devices (``all`` or a list)."""
    if isinstance(device, str):
        return device.strip().lower() == "all"
    return isinstance(device, (list, tuple))


def resolve(device) -> tuple[list[Device], str | None]:
    """The devices ``all`` (every GPU) or a list of specs names, and a note when ``all`` finds fewer
    than two GPUs (the batch then runs on the one device ``auto`` picks)."""
    if isinstance(device, str):
        found = gpus()
        if len(found) >= 2:
            return found, None
        one = found[0] if found else get_device("auto")
        shows = "one GPU" if found else "no GPU"
        return [one], f"device=all: this host shows {shows}; solved on {one.label} alone"
    return [get_device(spec) for spec in device], None


def _start_worker(index: int) -> None:  # pragma: no cover - runs in the worker process
    get_device(f"#{index}").queue  # noqa: B018 - context and queue made before the first chunk


_pools: dict[tuple[int, int], futures.ProcessPoolExecutor] = {}


def _pool(slot: int, device: Device, broken: futures.ProcessPoolExecutor | None = None) -> futures.ProcessPoolExecutor:
    """The worker process of ``slot``; a new one when ``broken`` (whose process died) is still current."""
    key = (slot, device.index)
    if broken is not None and _pools.get(key) is broken:
        _pools.pop(key).shutdown(wait=False, cancel_futures=True)
    if key not in _pools:
        _pools[key] = futures.ProcessPoolExecutor(
            1, mp_context=multiprocessing.get_context("spawn"), initializer=_start_worker, initargs=(device.index,)
        )
    return _pools[key]


@atexit.register
def shutdown() -> None:
    """Stop the worker processes (they are kept between batches otherwise)."""
    while _pools:
        _pools.popitem()[1].shutdown(wait=False, cancel_futures=True)


def _handed_over(sent: list[futures.Future], timeout: float = 0.05) -> None:
    """Wait (``timeout`` at most) until the executors' threads have queued ``sent`` for their
    processes, then a millisecond for the queues' feeder threads to write them. Those threads need
    this process's GIL, which packing the rest of a batch holds for tens of milliseconds: without
    the wait, the first wave reached the devices only after the rest was packed (2 x H200: chunk 0
    started 25 ms into the call; with it, 4 to 6 ms)."""
    deadline = time.perf_counter() + timeout
    while not all(f.running() or f.done() for f in sent) and time.perf_counter() < deadline:
        time.sleep(0.0002)
    time.sleep(0.001)


# long: the sending and receiving closures share one batch's state (held, load, attempts)
def solve_many(
    problems: Sequence,
    solver: str,
    devices: Sequence[Device],
    options: dict,
    progress: Callable[[chunks.Progress], None] | None = None,
    chunk_count: int | None = None,
    arrays: bool = False,
) -> list[Solution] | SolutionArrays:
    """Solve ``problems`` over ``devices`` (several, or the same one twice); solutions in input order
    (with ``arrays``, as one :class:`SolutionArrays`)."""
    began = time.perf_counter()
    plan = chunks.Chunking(problems, len(devices), chunk_count)
    held: dict[futures.Future, tuple[int, int, futures.ProcessPoolExecutor, chunks.PackedProblems]] = {}
    load = [0] * len(devices)

    def send(slot: int, chunk: int) -> None:
        packed = plan.chunk(plan.ranges[chunk])
        pool = _pool(slot, devices[slot])
        spec, label = f"#{devices[slot].index}", f"#{devices[slot].index} {devices[slot].label}"
        try:
            future = pool.submit(chunks.solve_chunk, packed, solver, options, spec, label)
        except BrokenProcessPool:  # its process died since its last answer was taken
            pool = _pool(slot, devices[slot], broken=pool)
            future = pool.submit(chunks.solve_chunk, packed, solver, options, spec, label)
        held[future] = (chunk, slot, pool, packed)
        load[slot] += 1

    try:
        # each wave (one chunk per device, cut by count) goes out before the next is packed, the
        # rest last, planned and cut by cost; waves may exceed IN_FLIGHT (the executors queue them)
        def send_wave(first: int, stop: int) -> None:
            for slot in range(stop - first):
                send(slot, first + slot)
            _handed_over([f for f, (chunk, *_) in held.items() if chunk >= first])

        dispatched = plan.send_waves(send_wave)
        ranges = plan.plan_rest(solver, devices[0])
        attempts = [0] * len(ranges)
        collector = chunks.Collector(problems, ranges, progress, arrays)
        collector.start = began
        collector.client_seconds = time.perf_counter() - began
        waiting = deque(range(dispatched, len(ranges)))

        def refill() -> None:
            for slot in range(len(devices)):
                while waiting and load[slot] < IN_FLIGHT:
                    send(slot, waiting.popleft())

        while waiting or held:
            refill()
            finished, _ = futures.wait(held, return_when=futures.FIRST_COMPLETED)
            done = [(future, *held.pop(future)) for future in finished]
            for _, _, slot, _, _ in done:
                load[slot] -= 1
            # the next chunks go out before the answers are taken: when the rest has just been
            # planned, every wave may be done, and taking them first left the devices idle
            refill()
            for future, chunk, slot, pool, packed in done:
                try:
                    collector.take(chunk, future.result(), packed)
                except BrokenProcessPool as exc:
                    attempts[chunk] += 1
                    if attempts[chunk] >= MAX_ATTEMPTS:
                        collector.fail_chunk(chunk, exc)
                        continue
                    collector.resubmitted += 1
                    _pool(slot, devices[slot], broken=pool)
                    waiting.appendleft(chunk)
    except BaseException:
        for future in held:
            future.cancel()
        raise
    return collector.result()
