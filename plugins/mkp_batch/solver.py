"""``mkp-batch``: branch and bound for many small multidimensional 0-1 knapsacks at once, a work-group
per problem (``mkp_batch.cl``): each group picks its surrogate multipliers ([GP85]), sorts its
items by that ratio and walks its tree depth first ([HS74]) with Dantzig's bound of the surrogate
problem at every node, the work-items sharing the problem's incumbent.

A batch is one launch while every tree is small (class A's plates: one launch for all 43); a launch
walks at most a budget of nodes per work-item and keeps every walk's place, so the next launch, for
the problems not finished, goes on where it stopped, with a budget four times as large. Under a
time limit the problems not finished return their best items with ``optimal = False`` and the
bound of their root. Presolve (``clsolve.dp.presolve``) runs first, on the packed arrays.
"""

# long module: the plan, the launches and the answers share the batch's layout
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyopencl as cl

from clsolve.sdk import (
    INT32_MAX,
    POISON_BYTE,
    Device,
    PackedBatchSolver,
    PackedProblems,
    PackedReduction,
    PackedSolutions,
    Plan,
    Suffix,
    TimeLimitError,
    Timings,
    UnsupportedProblemError,
    Workspace,
    cheap_bounds,
    deadline,
    identity_packed,
    kernels,
    mkp_greedy,
    options,
    problem_label,
    reduce_packed,
    refusal,
)

from . import directions

SOURCE = kernels.KernelSource.resource("clsolve_plugins.mkp_batch", "mkp_batch.cl")
#: A launch: the walks of the active members, then the collection of their answers.
KERNELS = ("mkp_batch_walk", "mkp_batch_collect")
#: Items per problem at most (the work-group's order and prefix sums live in local memory).
MAX_ITEMS = 256
#: Dimensions at most (a work-item keeps a residual capacity per dimension).
MAX_DIMS = 30
#: Work-items per problem, and levels enumerated into subtrees by default (2^SPLIT subtrees a
#: problem) and at most.
LOCAL_SIZE, SPLIT, MAX_SPLIT = 64, 8, 16
#: Nodes a work-item walks in the first launch; each later launch up to four times as many as the last.
FIRST_BUDGET = 1 << 14
GROWTH = 4
#: A launch's budget at most: what the measured rate walks in LAUNCH_SECONDS_MOST (so that a long
#: search stays a series of short launches), and BUDGET_MOST (a 32-bit count).
LAUNCH_SECONDS_MOST, BUDGET_MOST = 0.2, 1 << 30
#: Problems the first launch leaves unfinished are walked again by up to WIDE_PARTS work-groups each
#: (WIDE_GROUPS_PER_UNIT per compute unit in all), WIDE_SPLIT levels enumerated.
WIDE_PARTS, WIDE_GROUPS_PER_UNIT, WIDE_SPLIT = 256, 8, 16
#: The model of a plan, seconds: per launch; per problem (presolve, the answer and its check on the
#: host); per problem and direction-item^2 (choosing the multipliers); per node. The tree's size is
#: not known before the walk: a plan counts NODES_PER_ITEM nodes per item, and for batches of at
#: most PROBED problems (one problem, where ``auto`` weighs every solver) GAP_ITEM_SECONDS per item
#: of each problem whose greedy value is below its root bound (``clsolve.mkp.surrogate.cheap_bounds``):
#: a tree that needs a search is the one-problem solvers' work.
LAUNCH_SECONDS = {"gpu": 1e-4, "other": 3e-4}
PROBLEM_SECONDS = 3e-6
SETUP_SECONDS = {"gpu": 2e-11, "other": 1e-9}
NODE_SECONDS = {"gpu": 2e-10, "other": 2e-8}
NODES_PER_ITEM = 64
PROBED, GAP_ITEM_SECONDS = 16, 1e-3
#: What a solve costs beside its problems and launches: its buffers and reads (a33 alone: 1.8 ms end to
#: end on the H100 host, 2.0 ms with PoCL on a 2-core CPU).
HOST_SECONDS = 1.8e-3


#: A problem's place in the batch's arrays: ``layout_t`` of mkp_batch.cl, declared to it from this dtype.
LAYOUT = np.dtype(
    [
        ("first_item", np.uint32),
        ("items", np.uint32),
        ("first_weight", np.uint32),
        ("first_capacity", np.uint32),
        ("dims", np.uint32),
    ],
    align=True,
)
#: A walker's place in its walk between launches (its subtree, level, best value, whether done): ``walker_t``.
WALKER = np.dtype([("subtree", np.int32), ("level", np.int32), ("best", np.int32), ("done", np.int32)], align=True)


@dataclass
class _Batch:
    """The reduced batch as the kernel reads it."""

    reduction: PackedReduction
    layout: np.ndarray  # (k,) LAYOUT
    profits: np.ndarray  # int32
    weights: np.ndarray  # int32
    capacities: np.ndarray  # int32
    widest: int  # the largest m (MAX_DIMS of the build)
    longest: int  # the largest n, rounded up to 32 (MAX_ITEMS of the build)

    @property
    def count(self) -> int:
        return len(self.layout)


class ManySmallBranchAndBound(PackedBatchSolver):
    name = "mkp-batch"
    anytime = True
    summary = (
        "branch and bound for many small multidimensional 0-1 knapsacks (m >= 2, n <= 256) at once, "
        "a work-group per problem, surrogate bounds, with items"
    )

    def __init__(self, presolve: bool = True, budget: int = FIRST_BUDGET, split: int = SPLIT, poison: bool = False):
        """``presolve`` applies ``clsolve.dp.presolve`` first; ``budget``: nodes a work-item walks in
        the first launch (each later launch walks four times as many); ``split``: the levels
        enumerated into 2^split subtrees per problem, shared by its work-items (0: one walk, by
        work-item 0); ``poison`` fills the buffers the kernel writes with a garbage pattern first
        (for tests)."""
        self.presolve = options.flag("presolve", presolve)
        self.budget = options.integer("budget", budget, minimum=1)
        self.split = options.integer("split", split, minimum=0, maximum=MAX_SPLIT)
        self.poison = options.flag("poison", poison)

    def accepts(self, problem) -> str | None:
        reason = refusal(self.name, problem)
        if reason is not None or _fits_as_given(problem):
            return reason
        try:
            self._batch(self.pack([problem]))
        except UnsupportedProblemError as exc:
            return str(exc)
        return None

    def least_seconds(self, problem, device: Device) -> float:
        """The plan's fixed HOST_SECONDS: ``auto`` plans mkp-batch for one problem only where no solver
        planned before it promises less."""
        return HOST_SECONDS

    # ------------------------------------------------------------------------------------ the batch

    def _batch(self, packed: PackedProblems) -> _Batch:
        """The reduced batch in the kernel's types; refuses, naming the problem, what does not fit
        them. Made once per batch and presolve (the batch's ``memo``), for the plan and the solve."""
        key = (self.name, self.presolve)
        if key not in packed.memo:
            packed.memo[key] = self._reduced(packed)
        return packed.memo[key]

    def _buffers(self, packed: PackedProblems, device: Device) -> dict[str, int]:
        """The plan's device buffers of the batch on ``device`` (``_device_buffers``), counted once per
        batch and device (the batch's ``memo``) for the plan and the solve."""
        key = (self.name, self.presolve, "buffers", device.label)
        if key not in packed.memo:
            packed.memo[key] = _device_buffers(self._batch(packed), device)
        return packed.memo[key]

    def _reduced(self, packed: PackedProblems) -> _Batch:
        self.refuse_others(packed)
        n, m, _ = packed.segments()
        if (m < 2).any():
            self._refuse(packed, int(np.argmax(m < 2)), "it has m = 1 (for m = 1: bnb or dp-states)")
        # the item rules only: the dimension rules cost host time and leave a search's tree as it is
        reduction = reduce_packed(packed, np.ones(len(n), bool)) if self.presolve else identity_packed(packed)
        reduced = reduction.reduced
        rn, rm, wstarts = reduced.segments()
        owner = np.repeat(np.arange(len(rn)), rn)
        totals = np.bincount(owner, weights=reduced.profits, minlength=len(rn))  # exact where it matters, < 2^53
        tops = np.zeros(len(rn), np.int64)
        for array, sizes in ((reduced.capacities, rm), (reduced.weights, rn * rm)):
            if array.size:
                np.maximum.at(tops, np.repeat(np.arange(len(rn)), sizes), array)
        for bad, why in (
            (rn > MAX_ITEMS, f"more than {MAX_ITEMS} items after presolve"),
            (rm > MAX_DIMS, f"more than {MAX_DIMS} dimensions after presolve"),
            (totals > INT32_MAX, "profits that sum past 2^31 - 1"),
            (tops > INT32_MAX, "a weight or capacity past 2^31 - 1"),
        ):
            if bad.any():
                row = int(reduction.rows[int(np.argmax(bad))])
                self._refuse(packed, row, why)
        layout = np.zeros(len(rn), LAYOUT)
        layout["first_item"], layout["items"], layout["first_weight"] = reduced.item_offsets[:-1], rn, wstarts
        layout["first_capacity"], layout["dims"] = reduced.capacity_offsets[:-1], rm
        return _Batch(
            reduction,
            layout,
            reduced.profits.astype(np.int32),
            reduced.weights.astype(np.int32),
            reduced.capacities.astype(np.int32),
            int(rm.max(initial=1)),
            32 * max(1, -(-int(rn.max(initial=1)) // 32)),
        )

    def _refuse(self, packed: PackedProblems, row: int, why: str) -> None:
        position = int(packed.knapsack_positions[row])
        raise UnsupportedProblemError(
            f"{problem_label(position, packed.unpack_one(position))}: {self.name} cannot solve it: {why}"
        )

    # ------------------------------------------------------------------------------------- the plan

    def plan_packed(self, packed: PackedProblems, device: Device) -> Plan:
        batch = self._batch(packed)
        kind = "gpu" if device.is_gpu else "other"
        n = batch.layout["items"].astype(np.float64)
        seconds = (
            HOST_SECONDS
            + (LAUNCH_SECONDS[kind] if batch.count else 0.0)
            + float(_each(n, kind).sum())
            + (len(packed) - batch.count) * PROBLEM_SECONDS
            + GAP_ITEM_SECONDS * self._searched(packed)
        )
        return Plan(
            solver=self.name,
            device_buffers=self._buffers(packed, device),
            host_buffers={"answers": batch.count * 16 + batch.profits.size},
            kernels=KERNELS,
            cell_updates=int((NODES_PER_ITEM * n).sum()),
            launches=2 if batch.count else 0,
            seconds=seconds,
            details={
                "instances": len(packed),
                "searched": batch.count,
                "solved_by_presolve": len(packed) - batch.count,
                "local_size": LOCAL_SIZE,
                "note": f"seconds: the launches and {NODES_PER_ITEM} nodes per item (the trees' sizes "
                f"are known only once walked); for batches of at most {PROBED}, "
                f"{GAP_ITEM_SECONDS:g} s per item where greedy does not meet the root's bound",
            },
        )

    def _searched(self, packed: PackedProblems) -> int:
        """Items of the problems whose greedy value is below their root bound, for batches of at most
        PROBED problems (0 for larger batches); the problems packed by ``pack`` are used as given, so
        their bounds are computed once."""
        if len(packed) > PROBED:
            return 0
        return sum(p.n for p in packed.objects() if cheap_bounds(p)[2] > 0)

    def costs_packed(self, packed: PackedProblems, device: Device | None) -> np.ndarray:
        kind = "gpu" if device is None or device.is_gpu else "other"
        n, m, _ = packed.segments()
        return np.where((m >= 2) & (m <= MAX_DIMS) & (n <= MAX_ITEMS), _each(n.astype(np.float64), kind), np.nan)

    # ----------------------------------------------------------------------------------- the solve

    # long: the walk or the host's answers, and every answer expanded in input order
    def solve_packed(self, packed: PackedProblems, device: Device, plan: Plan) -> PackedSolutions:
        watch = deadline.Stopwatch()
        batch = self._batch(packed)
        k = batch.count
        values = np.zeros(k, np.int64)
        selected = np.zeros(batch.profits.size, bool)
        finished = np.ones(k, bool)
        bounds = np.zeros(k, np.int64)
        walked, launches, phases = np.zeros(k, np.int64), 0, Timings()
        if k:
            try:
                deadline.check(f"{self.name}: before the walk")  # no time for buffers and a launch
                work = Workspace(
                    device,
                    Plan(self.name, self._buffers(packed, device), kernels=KERNELS),  # the plan's own count
                    poison=POISON_BYTE if self.poison else None,
                )
                walk = _Walk(self, batch, work)
                values, selected, finished, bounds, walked, launches = walk.run()
                phases = walk.timings
            except TimeLimitError:  # the limit passed before, or while the kernels were built or first ran: the host's answers
                values, selected, bounds = _greedy(batch)
                finished = values >= bounds
        reduction = batch.reduction
        all_values, all_selected = reduction.expand(values, selected)
        count = len(packed.knapsack_positions)
        optimal = np.ones(count, bool)
        optimal[reduction.rows] = finished
        extras = {}
        for row in np.flatnonzero(~finished).tolist():
            whole = int(reduction.rows[row])
            extras[whole] = (
                int(reduction.forced_profit[whole] + max(bounds[row], values[row])),
                {"nodes": int(walked[row])},
                None,
                None,
            )
        seconds = watch.seconds
        device_seconds = phases.upload + phases.kernels + phases.download
        batch_timings = Timings(
            phases.upload, phases.kernels, phases.download, max(seconds - device_seconds - phases.build, 0.0), phases.build
        )
        timings = np.tile(batch_timings.row(), (count, 1)) / max(count, 1)
        note = (
            f"branch and bound in a batch of {count}; {k} searched, {int(walked.sum())} nodes, {launches} "
            f"launch(es); timings are the batch's divided by {count}"
        )
        labels = [
            (self.name, device.label, (note,) + ((reduction.notes[i],) if i >= 0 else ()))
            for i in range(-1, len(reduction.notes))
        ]
        return PackedSolutions(
            positions=packed.knapsack_positions,
            values=all_values,
            item_offsets=packed.item_offsets,
            selected=all_selected,
            optimal=optimal,
            timings=timings,
            labels=labels,
            label_index=(reduction.note_index + 1).astype(np.int32),
            extras=extras,
            failures={},
            seconds=seconds,
        )


def _device_buffers(batch: _Batch, device: Device) -> dict[str, int]:
    """The device buffers of a batch's ``_Walk`` (a plan's): its inputs; the answers; the walkers of
    the larger of its two phases (``_Walk.run``), with the members and the active ones."""
    k, items = batch.count, max(batch.profits.size, 1)
    table, rows = directions.table(batch.widest)
    inputs = (batch.layout, batch.profits, batch.weights, batch.capacities, table, rows)
    walkers = max(k, device.compute_units * WIDE_GROUPS_PER_UNIT) * LOCAL_SIZE
    return {
        "items": sum(max(a.nbytes, a.itemsize) for a in inputs),
        "answers": 4 * k + 4 * max(k, 1) + items + 4 * max(k, 1) + 8 * max(k, 1) + 4 * items + 4 * max(k, 1),
        "walks": walkers * (WALKER.itemsize + 8 * (batch.longest // 32) + 4) + 8 * max(k, 1),
    }


def _greedy(batch: _Batch) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each reduced problem's greedy answer (items by p_j / (u . w_j), u the inverse capacities) and
    its surrogate LP bound with those multipliers (values, item flags, bounds): the answers where the
    walk never ran."""
    values, bounds = np.zeros(batch.count, np.int64), np.zeros(batch.count, np.int64)
    selected = np.zeros(batch.profits.size, bool)
    places = zip(*(batch.layout[name].astype(np.int64).tolist() for name in LAYOUT.fields or ()))
    for row, (first, n, weights_at, capacities_at, m) in enumerate(places):
        p = batch.profits[first : first + n].astype(np.int64)
        w = batch.weights[weights_at : weights_at + n * m].astype(np.int64).reshape(n, m)
        c = batch.capacities[capacities_at : capacities_at + m].astype(np.int64)
        u = 1.0 / np.maximum(c, 1).astype(np.float64)
        u /= u.max()
        taken = mkp_greedy.fill(w, c, mkp_greedy.ratio_order(p, w, u))
        selected[first + taken] = True
        values[row] = int(p[taken].sum())
        bounds[row] = max(int(Suffix.of(p, w, u).bounds(np.zeros(1, np.int64), c[None, :])[0]), values[row])
    return values, selected, bounds


def _fits_as_given(problem) -> bool:
    """Whether ``problem`` fits the kernel's limits before presolve, which never adds items, dimensions
    or profit, nor makes a weight or capacity larger (so ``accepts`` need not reduce it)."""
    return (
        problem.n <= MAX_ITEMS
        and problem.m <= MAX_DIMS
        and problem.total_profit <= INT32_MAX
        and int(problem.weights.max(initial=0)) <= INT32_MAX
        and int(problem.capacities.max(initial=0)) <= INT32_MAX
    )


def _each(n: np.ndarray, kind: str) -> np.ndarray:
    """The model's seconds of each problem of n items: its host share, choosing its multipliers, and
    NODES_PER_ITEM nodes per item."""
    return PROBLEM_SECONDS + directions.COUNT * n * n * SETUP_SECONDS[kind] + NODES_PER_ITEM * n * NODE_SECONDS[kind]


class _Walk:
    """The device side of one batch: the items uploaded once, then two phases of launches. The first
    walks every problem with a work-group each; problems it leaves unfinished are walked again from
    their root by several work-groups each (``WIDE_SPLIT`` levels enumerated), with the first
    phase's best value as their incumbent, until done or the time limit."""

    def __init__(self, solver: ManySmallBranchAndBound, batch: _Batch, work: Workspace):
        self.solver, self.batch, self.device, self.work = solver, batch, work.device, work
        device = work.device
        #: upload: the buffers made and filled; kernels: the launches and the status read after each
        #: (which waits for them); download: the answers read back
        self.timings = Timings()
        table, rows = directions.table(batch.widest)
        structs = kernels.struct_declaration("layout_t", LAYOUT) + kernels.struct_declaration("walker_t", WALKER)
        self.program = kernels.program(
            device, SOURCE, {"LOCAL_SIZE": LOCAL_SIZE, "MAX_ITEMS": batch.longest, "MAX_DIMS": batch.widest}, preamble=structs
        )
        k, items = batch.count, max(batch.profits.size, 1)
        with self.timings.phase("upload"):
            self._make(batch, table, rows, k, items)

    def _make(self, batch: _Batch, table: np.ndarray, rows: np.ndarray, k: int, items: int) -> None:
        work = self.work
        self.inputs = {
            name: work.upload("items", array if array.size else np.zeros(1, array.dtype))
            for name, array in (
                ("layout", batch.layout.ravel()),
                ("profits", batch.profits),
                ("weights", batch.weights),
                ("capacities", batch.capacities),
                ("directions", table.ravel()),
                ("direction_rows", rows),
            )
        }
        self.incumbent = work.upload("answers", np.zeros(k, np.int32), writable=True)
        self.answers = {
            name: work.empty("answers", size)
            for name, size in (
                ("values", 4 * max(k, 1)),
                ("selected", items),
                ("status", 4 * max(k, 1)),
                ("bounds", 8 * max(k, 1)),
                ("order_of", 4 * items),
                ("chosen_of", 4 * max(k, 1)),
            )
        }

    def _read(self, buffer: cl.Buffer, dtype, count: int) -> np.ndarray:
        out = np.empty(count, dtype)
        cl.enqueue_copy(self.device.queue, out, buffer)
        return out

    def run(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
        """(values, item flags, finished, root bounds, nodes walked, launches) of the reduced batch.
        Raises TimeLimitError where the limit passes before the first launch ends (the caller answers
        from the host); where it passes during the second phase, the first phase's answers stand."""
        k = self.batch.count
        kind = "gpu" if self.device.is_gpu else "other"
        rate = deadline.Rate(LAUNCH_SECONDS[kind], NODE_SECONDS[kind])
        walked = np.zeros(k, np.int64)
        members = np.arange(k, dtype=np.int64)
        left, launches = self._phase(members, 1, self.solver.split, True, rate, walked)
        answers = None
        if left.size and not deadline.expired():
            slots = self.device.compute_units * WIDE_GROUPS_PER_UNIT
            parts = int(np.clip(slots // left.size, 1, WIDE_PARTS))
            if deadline.limited():
                answers = self._answers()  # they stand where the second phase does not end in time
            try:
                left, extra = self._phase(left, parts, max(self.solver.split, WIDE_SPLIT), False, rate, walked)
                launches += extra
                answers = None
            except TimeLimitError:
                pass
        finished = np.ones(k, bool)
        finished[left] = False
        values, flags, roots = answers if answers is not None else self._answers()
        if flags.max(initial=0) > 1:
            raise RuntimeError(f"{self.solver.name}: unwritten item flags")
        bounds = np.floor(roots + 1e-3).astype(np.int64)
        return values, flags.view(bool), finished, bounds, walked, launches

    def _answers(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The answers so far: values, item flags (uint8) and root bounds."""
        k, count = self.batch.count, self.batch.profits.size
        with self.timings.phase("download"):
            values = self._read(self.answers["values"], np.int32, k).astype(np.int64)
            flags = self._read(self.answers["selected"], np.uint8, max(count, 1))[:count]
            roots = self._read(self.answers["bounds"], np.float64, k)
        return values, flags, roots

    # long: one phase's buffers, launches, collection and pacing
    def _phase(
        self, members: np.ndarray, parts: int, split: int, first: bool, rate: deadline.Rate, walked: np.ndarray
    ) -> tuple[np.ndarray, int]:
        """Walk ``members`` with ``parts`` work-groups each: the ``first`` phase one launch (whose
        answers are the first), the other until done or the time limit; the members left unfinished
        and the launches made."""
        words, walkers = self.batch.longest // 32, parts * LOCAL_SIZE
        slots = members.size * walkers
        with self.timings.phase("upload"):
            state = {
                name: self.work.empty("walks", size)
                for name, size in (
                    ("walker", WALKER.itemsize * slots),
                    ("path", 4 * words * slots),
                    ("kept", 4 * words * slots),
                    ("nodes", 4 * slots),
                )
            }
            member_buf = self.work.upload("walks", members.astype(np.uint32))
        active, budget, launches = np.arange(members.size, dtype=np.int64), self.solver.budget, 0
        while active.size and not (first and launches):
            if deadline.limited():  # half the time left, once the reads after it are counted
                fits = int(rate.units_within((deadline.remaining() + deadline.grace(1 / 4)) / 2) / (active.size * walkers))
                budget = max(min(budget, fits), 1) if first else min(budget, fits)
                if budget < 1:
                    break
            watch = deadline.Stopwatch()
            with self.timings.phase("upload"):
                active_buf = self.work.upload("walks", active.astype(np.uint32))
            with self.timings.phase("kernels"):
                self._walk(
                    state,
                    member_buf,
                    active_buf,
                    active.size,
                    parts,
                    split,
                    budget,
                    launches == 0,
                    first and launches == 0,
                    first,
                )
                if not deadline.finished(self.device.queue, cl.enqueue_marker(self.device.queue)):
                    deadline.stop(f"{self.solver.name}: launch {launches + 1} of a phase")
                status = self._read(self.answers["status"], np.int32, self.batch.count)
            self.work.release("walks", active_buf)
            rate.observe(budget * active.size * walkers, watch.seconds)
            launches += 1
            active = active[status[members[active]] != 0]
            longest = rate.units_within(LAUNCH_SECONDS_MOST) / max(active.size * walkers, 1)
            budget = int(min(budget * GROWTH, max(longest, self.solver.budget), BUDGET_MOST))
        if launches:
            nodes = self._read(state["nodes"], np.uint32, slots).reshape(members.size, walkers)
            walked[members] += nodes.sum(axis=1, dtype=np.int64)
        self.work.release("walks", member_buf, *state.values())
        return members[active], launches

    def _walk(
        self,
        state: dict,
        member_buf: cl.Buffer,
        active_buf: cl.Buffer,
        active: int,
        parts: int,
        split: int,
        budget: int,
        first_launch: bool,
        choose: bool,
        replace: bool,
    ) -> None:
        """Enqueue one launch of the walks of ``active`` members (``first_launch``: from their roots;
        ``choose``: the multipliers and order chosen, else read back) and the collection of their
        answers."""
        queue, walkers = self.device.queue, parts * LOCAL_SIZE
        self.work.kernel(self.program, "mkp_batch_walk").set(
            **{
                name: self.inputs[name] for name in ("layout", "profits", "weights", "capacities", "directions", "direction_rows")
            },
            members=member_buf,
            active=active_buf,
            walker=state["walker"],
            path=state["path"],
            kept=state["kept"],
            nodes=state["nodes"],
            incumbent=self.incumbent,
            bounds=self.answers["bounds"],
            order_of=self.answers["order_of"],
            chosen_of=self.answers["chosen_of"],
            parts=np.uint32(parts),
            split=np.uint32(split),
            budget=np.uint32(budget),
            first_launch=np.uint32(first_launch),
            choose=np.uint32(choose),
        ).enqueue(queue, (active * walkers,), (LOCAL_SIZE,))
        self.work.kernel(self.program, "mkp_batch_collect").set(
            layout=self.inputs["layout"],
            members=member_buf,
            active=active_buf,
            walker=state["walker"],
            kept=state["kept"],
            values=self.answers["values"],
            selected=self.answers["selected"],
            status=self.answers["status"],
            order_of=self.answers["order_of"],
            parts=np.uint32(parts),
            replace=np.uint32(replace),
        ).enqueue(queue, (active * LOCAL_SIZE,), (LOCAL_SIZE,))
