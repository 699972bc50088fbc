"""``solve_many(problems, client=...)``: one batch over a Dask cluster of GPU workers.

Dask (``dask.distributed``, the ``dask`` extra) does the scheduling; clsolve only cuts the batch
into chunks of equal planned cost (:mod:`clsolve.scaleout.chunks`), packs each chunk's problems as a few
NumPy arrays (pickled once, as bytes), submits one task per chunk to workers that each own one
OpenCL device (asking for the worker resource ``GPU=1`` when the workers declare it, so one chunk
runs per GPU at a time), and gathers the checked answers in input order. The leading waves' chunks,
small and urgent, are scattered straight to a worker first (:class:`_Placement`); the rest travel
inside their tasks, so this thread never waits on a round trip while workers have work. Answers
are fetched in the background from the first wave on, and taken (checked, put in place) as soon as
this thread is free: between the waves, then between sends.

A worker that dies while it holds chunks: a task that carries its problems is run again by Dask
itself (or given up, ``KilledWorker``, after ``distributed.scheduler.allowed-failures`` deaths); a
scattered chunk's problems are lost with the worker and its task cancelled. Either way such a chunk
is sent again under a new key, up to ``MAX_ATTEMPTS`` times. Each chunk is taken once, by its
index, so nothing is returned twice. The task raises glibc's malloc thresholds in its worker
process once (:mod:`clsolve.scaleout.malloc`).

Start a cluster with Dask's own commands, one worker per GPU (see the README)::

    dask scheduler
    CLSOLVE_DEVICE=gpu:0 dask worker tcp://HOST:8786 --nworkers 1 --nthreads 1 --resources GPU=1
    CLSOLVE_DEVICE=gpu:1 dask worker tcp://HOST:8786 --nworkers 1 --nthreads 1 --resources GPU=1
"""

from __future__ import annotations

import asyncio
import pickle
import time
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from ..batch.arrays import SolutionArrays
from ..errors import DeviceNotFoundError, InvalidOptionError
from ..solution import Solution
from . import chunks
from .malloc import keep_large_blocks_on_heap

#: Times clsolve sends a chunk again after its worker was lost (its task cancelled, or KilledWorker).
MAX_ATTEMPTS = 2
#: Full chunks' worth per GPU slot when the caller does not size them: fewer than ``device="all"``
#: cuts (``clsolve.scaleout.chunks.CHUNKS_PER_WORKER``), as each Dask task costs milliseconds of scheduler,
#: worker and client time (2 x H200, MSB-630 x 100: 3 a little faster than 4, and both than 2 or 6).
CHUNKS_PER_WORKER = 3
#: Tries to scatter a group of chunks (a worker may die while it receives them).
PLACE_ATTEMPTS = 3
#: The leading waves' shares (see :class:`clsolve.scaleout.chunks.Chunking`): larger than for
#: ``device="all"``, as each wave reaches Dask's workers later (a scatter and two batched messages,
#: ~10 ms); with a third of 0.3 the workers still hold that wave when the rest comes. 2 x H200,
#: MSB-630 x 100: 1/32, 1/8, 0.3 took 0.165 s against 0.172 s for 1/64, 1/16, 0.3 (medians of 7);
#: once answers were taken between the waves, a first wave of 1/16 was faster in 12 of 15 paired
#: runs (median 10 ms: the workers had waited ~10 ms for the second wave after a first of 1/32).
WAVES = (1 / 16, 1 / 8, 0.3)
#: The worker resource a chunk asks for when the workers declare it (``--resources GPU=1``).
RESOURCE = "GPU"


def _distributed():
    try:
        import distributed
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise InvalidOptionError("client=... needs Dask's distributed scheduler: pip install 'clsolve[dask]'") from exc
    return distributed


def connect(address: str):
    """A ``distributed.Client`` for a scheduler address (``tcp://host:8786``)."""
    distributed = _distributed()
    try:
        return distributed.Client(address, timeout=30)
    except (OSError, TimeoutError) as exc:
        raise DeviceNotFoundError(f"no Dask scheduler answers at {address!r}: {exc}") from exc


def solve_on_worker(packed: chunks.PackedProblems | bytes, solver: str, options: dict, device) -> chunks.PackedSolutions:
    """The task each chunk runs: :func:`clsolve.scaleout.chunks.solve_chunk` on the worker's own device
    (after :func:`clsolve.scaleout.malloc.keep_large_blocks_on_heap`, once per worker process). ``packed``
    may come pickled (as :func:`solve_many` sends it): unpickled here, in the task's thread."""
    keep_large_blocks_on_heap()
    problems = pickle.loads(packed) if isinstance(packed, bytes) else packed
    try:
        from distributed import get_worker

        worker = get_worker().address
    except (ImportError, ValueError):  # pragma: no cover - called outside a worker
        worker = ""
    return chunks.solve_chunk(problems, solver, options, device, worker)


class _Placement:
    """A wave's chunks put on workers with ``client.scatter``, before their tasks are submitted.

    Scattered straight to the workers (unless the client was made with ``direct_to_workers=False``,
    or cannot reach them: then through the scheduler), a chunk travels once and starts soon after;
    inside its task it goes through the scheduler, whose batched messages made a wave of two 9,450-
    problem chunks start ~24 ms after it was sent (2 x H200), while a scatter waits ~4 ms. The rest,
    sent while the workers are busy, goes inside the tasks (this thread then waits on nothing).
    Chunks go to the workers in turn; a task runs where its problems are. Problems
    scattered to a worker that dies are lost with it: the scheduler then cancels their tasks, and
    ``solve_many`` sends those chunks again; a scatter that fails (a worker left while receiving) is
    tried again on the workers left."""

    def __init__(self, client, gpus: bool, workers: dict):
        self.client, self.gpus = client, gpus
        self.direct = True if client.direct_to_workers is None else bool(client.direct_to_workers)
        self.held: dict[int, Any] = {}  # chunk -> its Dask future
        self.workers = self._workers(workers)

    def _workers(self, found: dict | None = None) -> list[str] | None:
        """The workers that run chunks (of ``found``, the scheduler's list, else asked for again):
        those with a GPU resource where some have one, else all (None)."""
        if not self.gpus:
            return None
        if found is None:
            found = self.client.scheduler_info().get("workers", {})
        return sorted(a for a, w in found.items() if w.get("resources", {}).get(RESOURCE, 0)) or None

    def place(self, pickled: dict[int, bytes]) -> list:
        """Futures of the pickled chunks ``pickled`` (by chunk index), in its order, each held by one worker."""
        values = list(pickled.values())
        for attempt in range(PLACE_ATTEMPTS):
            try:
                placed = self.client.scatter(values, workers=self.workers, direct=self.direct, hash=False)
                break
            except Exception:  # a worker left meanwhile, or the workers cannot be reached from here
                if attempt == PLACE_ATTEMPTS - 1:
                    raise
                time.sleep(0.1 * (attempt + 1))  # time for the scheduler to see a worker gone
                self.workers = self._workers()
                self.direct = self.direct and attempt == 0  # failed twice straight: through the scheduler
        for chunk, future in zip(pickled, placed):
            self.release(chunk)
            self.held[chunk] = future
        return placed

    def release(self, chunk: int | None = None) -> None:
        """Let Dask forget a chunk's problems (every chunk's, with None)."""
        for key in list(self.held) if chunk is None else [chunk]:
            future = self.held.pop(key, None)
            if future is not None:
                future.release()


def _planning_device(device):
    """The client's own device of the kind the workers use, to plan chunk costs; None if it has none."""
    from ..runtime.devices import get_device

    try:
        return get_device(None if device in (None, "all") else device)
    except DeviceNotFoundError:
        return None


# long: the sending and receiving closures share one batch's state (sent, owners, attempts)
def solve_many(
    problems: Sequence,
    solver: str,
    device,
    options: dict,
    client,
    progress: Callable[[chunks.Progress], None] | None = None,
    chunk_count: int | None = None,
    arrays: bool = False,
) -> list[Solution] | SolutionArrays:
    """Solve ``problems`` on ``client``'s workers; solutions in input order (see the module doc;
    with ``arrays``, as one :class:`SolutionArrays`).

    ``device`` is passed to every worker (None or ``all``: each worker's ``CLSOLVE_DEVICE``, else auto).
    """
    distributed = _distributed()
    workers = client.scheduler_info().get("workers", {})
    if not workers:
        client.wait_for_workers(1, timeout=60)
        workers = client.scheduler_info().get("workers", {})
    gpus = sum(int(w.get("resources", {}).get(RESOURCE, 0)) for w in workers.values())
    resources = {RESOURCE: 1} if gpus else None
    slots = gpus or sum(int(w.get("nthreads", 1)) for w in workers.values()) or 1
    began = time.perf_counter()
    plan = chunks.Chunking(problems, slots, chunk_count, CHUNKS_PER_WORKER, WAVES)
    worker_device = None if device == "all" else device
    batch_id = uuid.uuid4().hex[:12]
    attempts: Counter[int] = Counter()  # sends after the first, by chunk
    owner: dict[str, int] = {}
    sent: dict[int, chunks.PackedProblems] = {}  # chunks packed and not yet answered
    placement = _Placement(client, bool(gpus), workers)

    def send(first: int, stop: int, wave: bool = False) -> list:
        """Chunks first..stop-1 packed and handed to Dask as one graph of one task per chunk, each
        under a key of its own (a wave's placed on workers first, :class:`_Placement`)."""
        for chunk in range(first, stop):
            if chunk not in sent:
                sent[chunk] = plan.chunk(plan.ranges[chunk])
        # pickled here, on the calling thread: the client's event loop then only writes bytes, and
        # the worker's only stores them (the task unpickles them, not the event loop that a running
        # chunk competes with for the GIL)
        placed = [pickle.dumps(sent[chunk], protocol=pickle.HIGHEST_PROTOCOL) for chunk in range(first, stop)]
        if wave:  # scattered to a worker first (~4 ms), so that it starts as soon as it can
            placed = placement.place(dict(zip(range(first, stop), placed)))
        # else inside the tasks: no round trip; the workers hold earlier chunks meanwhile
        keys = [f"clsolve-chunk-{batch_id}-{chunk:05d}-{attempts[chunk]}" for chunk in range(first, stop)]
        owner.update(zip(keys, range(first, stop)))
        # earlier chunks first (the tapered shares end with small chunks): a graph's tasks run in the
        # order given, and a higher priority runs before a lower one
        return client.map(
            solve_on_worker,
            placed,
            solver=solver,
            options=options,
            device=worker_device,
            key=keys,
            pure=False,
            resources=resources,
            priority=-first,
        )

    collector = chunks.Collector(problems, plan.ranges, progress, arrays)
    collector.start = began
    pending = None  # as_completed over every chunk sent, made with the first: answers are fetched as they come
    groups: list[tuple[int, int]] = []

    def sending(futures: list) -> None:
        nonlocal pending
        if pending is None:
            # with_results: each answer is fetched in the background as its chunk finishes, not by
            # a round trip of this thread
            pending = distributed.as_completed(futures, with_results=True, raise_errors=False)
        else:
            pending.update(futures)

    def handle(future, result) -> None:
        chunk = owner[future.key]
        if future.status == "finished":
            collector.take(chunk, result, sent.get(chunk))  # a second answer is ignored
            sent.pop(chunk, None)
            placement.release(chunk)
        else:
            exc = result if isinstance(result, BaseException) else future.exception()
            # a worker lost: KilledWorker where the scheduler gave up on the task, a cancelled
            # task where the worker held the chunk's problems (placed data cannot be recomputed)
            if not isinstance(exc, (distributed.KilledWorker, distributed.CancelledError, asyncio.CancelledError)):
                raise exc  # the same on any worker (a bad option, a bug): re-running cannot help
            attempts[chunk] += 1
            if attempts[chunk] > MAX_ATTEMPTS:
                collector.fail_chunk(chunk, exc)
                placement.release(chunk)
            elif chunk not in collector.done:
                collector.resubmitted += 1
                sending(send(chunk, chunk + 1))
        future.release()
        if groups:
            sending(send(*groups.pop(0)))

    def take_ready() -> None:
        """The answers fetched so far, taken now (while the workers solve the next wave): left for
        later, they lengthened the end of the batch, when the client is the one that works (2 x H200,
        MSB-630 x 100, medians of 21 interleaved: 0.170 s against 0.179 s)."""
        while pending is not None and pending.has_ready():
            handle(*next(pending))

    # each wave (one chunk per GPU slot) goes out before the next is packed (the answers back by then
    # are taken after that); then the rest is packed and planned, and goes out a group at a time,
    # always ahead of the answers, so that each worker holds its next chunk (a chunk sent only when
    # its worker's last came back would wait for a round trip through the scheduler)
    try:
        in_waves = plan.send_waves(lambda first, stop: sending(send(first, stop, wave=True)), take_ready)
        ranges = plan.plan_rest(solver, _planning_device(device))
        # the rest a chunk per slot at a time: the first group now, then one more after each answer
        # taken (so that the first of the rest reaches the workers before the last is sent, and
        # this loop takes answers in between)
        groups = [(k, min(k + slots, len(ranges))) for k in range(in_waves, len(ranges), slots)]
        if groups:
            sending(send(*groups.pop(0)))
    except BaseException:
        if pending is not None:
            client.cancel(list(pending.futures))
        placement.release()
        raise
    collector.client_seconds = time.perf_counter() - began
    if pending is None:  # no chunk was sent: an empty batch
        placement.release()
        return collector.result()
    try:
        for future, result in pending:
            handle(future, result)
    except BaseException:
        client.cancel([f for f in pending.futures])
        raise
    finally:
        placement.release()
    return collector.result()


__all__ = ["connect", "solve_many", "solve_on_worker"]
