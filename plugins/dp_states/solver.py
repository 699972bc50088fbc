"""Host side of ``dp-states`` (kernels in ``state_lists.cl``): dynamic programming over lists
of states for the 0-1 knapsack with one capacity, after Pisinger's minknap [Pisinger97].

The problem is presolved and its items fixed by bounds (``clsolve.dp.fixing``, as MT2 does); what is
left is searched. Items are sorted by decreasing p/w; the list starts with the break solution's state
and grows a core around the break item, one item a level, alternately added and removed. Each level
runs on the device: merge of the list with its shifted copy, dominance, upper bounds against the
incumbent, compaction; one small read tells the host how many states were kept, the best feasible
profit met (a new incumbent) and the largest bound left. The list empties (or the core covers every
item) when the incumbent is optimal.

Items: each state carries the bits of the levels of its block and an anchor into the list at the
block's start; the host keeps those of the list at each block's end (``records``) and walks the
incumbent's state back through them.

Memory: the list may use at most ``max_states`` slots (default: what the device's memory share holds;
the plan names the bytes); the block records live on the host within ``memory_limit``. Where either
would be passed, or the time limit would be (``clsolve.runtime.deadline``: each level's cost is
predicted from the ones before it), the search stops and returns the incumbent (its items checked
like every answer), ``optimal = False`` and the largest bound of any state still open.

Bounds beyond Dantzig's: the rounded relaxation's rows (``relaxed.py``) and the cluster bound
(``clusters.py``), each made once a problem and shared by its searches (``shared.py``).
"""

# long module: the level loop, its stops and the bounds' tables it shares with the descent read one solver's settings
from __future__ import annotations

from dataclasses import replace

import numpy as np

from clsolve.sdk import (
    Device,
    DeviceSolver,
    Knapsack,
    Plan,
    Solution,
    Stages,
    Timings,
    deadline,
    exact_sum,
    log,
    memory,
    options,
    progress,
    reduction,
    stages,
    work_group_size,
)

from . import incumbent
from .clusters import DENOMINATOR, ClusterLists, Clusters, fits
from .core import Core
from .descent import DESCENT_STATES, descend
from .device import FIRST_SLOTS, KERNELS, LIMIT_BYTES, SLOT_BYTES, DeviceLists, device_groups, list_buffers, program
from .host import HOST_STATES, HostLists
from .incumbent import Strengthened
from .places import Places
from .probe import probe
from .records import BLOCK, RECORD_BYTES, Records, bit, is_block_end
from .relaxed import CELLS, WIDTH, RelaxedRows, memory_share
from .shared import Shared
from .stops import FIRST_RECORD_RATES, record_place, stop_reason

#: Model of one level (six launches and one small read; measured 0.1 to 0.5 ms on the H100 while the
#: list is short) for ``auto``, seconds, multiplied by OPEN_GAP_MARGIN when the root's bounds do not
#: meet, unless the probe (``probe.py``: the first levels, run by ``plan``) saw only short lists: then
#: its own time per level counts. Dense DPs, whose estimates count cells, stay ahead where their table is small enough
#: (Jooken et al.'s c = 1e8, n = 800: 0.6 s row by row against 1.4 s here); bnb's margin is larger
#: (``clsolve_plugins.bnb.tuning.OPEN_GAP_MARGIN``).
LEVEL_SECONDS = {"gpu": 1e-4, "other": 3e-4}
OPEN_GAP_MARGIN = 10
#: Seconds per item of the strengthening (exchanges, bounds) that proves a subset sum or a split
#: strongly correlated bounded knapsack before its lists grow (``incumbent.early``): measured from
#: 2e-6 (subset sums) to 5e-5 (13,000 pieces of a bounded knapsack) on the hosts benchmarked.
STRENGTHEN_ITEM_SECONDS = 2e-5
#: First guesses of a level's cost (overhead s, s per merged state) on the host (NumPy), a GPU and
#: other devices, replaced by measurements as the search runs.
FIRST_RATES = {"host": (5e-5, 1e-7), "gpu": (1e-4, 2e-9), "other": (3e-4, 3e-8)}
#: Share of the device's memory budget (``Device.memory_budget``) the block records may take there by default (the rest go to host
#: memory). On the H100 a record copied to fresh host memory moves about 2 GB/s: Jooken et al.'s
#: hardest proved instances keep 4 to 5 GB of records.
RECORD_SHARE = 1 / 8
#: Lists of this many states make the search strengthen its incumbent and bound (once); where the
#: incumbent improves, the search starts again if fixing against it leaves at most AGAIN_SHARE of the
#: items, and goes on with it otherwise. Above the longest lists of the searches that end by
#: themselves in `clsolve bench hard-kp` (3.1e7 states), far below those that explode (5e8).
STRENGTHEN_STATES = 2**25
AGAIN_SHARE = 0.5
#: Sums of weights and of profits must stay below these (states are 64-bit; a bound adds up to 2^62
#: to a profit).
WEIGHT_LIMIT, PROFIT_LIMIT = 2**63 - 1, 2**62
#: Seconds per cell of the rounded relaxation's DP (``relaxed.py``), to leave it out where a time limit
#: would not allow it: a GPU and other devices.
RELAXED_CELL_SECONDS = {"gpu": 5e-12, "other": 2e-9}
#: Seconds per item of the rows' DP beside its cells (a launch, and a row kept): a GPU and other devices
#: (PoCL on 2 cores: 3,000 items of 22,000 entries in 1.8 s).
RELAXED_ITEM_SECONDS = {"gpu": 2e-5, "other": 5e-4}
#: Lists on the device of at least this many states make the rows: shorter searches end before the
#: rows (0.02 to 0.25 s on the H100) would pay, and rows made later cover fewer items.
RELAXATION_STATES = 2**16
#: Share of the device's memory budget the cluster bound (``clusters.py``) may take: half for its kept lists,
#: half for the lists of the dynamic programme that makes them.
CLUSTER_SHARE = 1 / 8
#: Lists on the device of at least this many states make the cluster lists: on the H100 making them
#: takes 0.4 to 2.5 s on Jooken et al.'s c = 1e10 instances (`clsolve bench hard-kp`), more than the
#: searches whose lists stay shorter take in all.
CLUSTER_STATES = 2**24
#: Seconds the cluster lists may take to make (a GPU, other devices; on the H100 0.4 to 2.5 s in
#: `clsolve bench hard-kp`): they are made only where the time limit leaves that much, and their
#: making stops (leaving the bound out) once the limit is reached.
CLUSTER_SECONDS = {"gpu": 3.0, "other": 30.0}


class StateListSolver(DeviceSolver):
    name = "dp-states"
    anytime = True
    summary = (
        "dynamic programming over state lists for KP01 ([Pisinger97]): merge, dominance and bounds "
        "on an OpenCL device, any capacity up to 2^62, with items"
    )

    def __init__(
        self,
        max_states: int | None = None,
        memory_limit: int | None = None,
        fixing: bool = True,
        local_size: int | None = None,
        host_states: int = HOST_STATES,
        strengthen: int = STRENGTHEN_STATES,
        aggregate: bool = True,
        relaxation: int | None = None,
        relaxation_states: int = RELAXATION_STATES,
        descent: bool = True,
        poison: bool = False,
        device_records: int | None = None,
        clusters: bool = True,
        cluster_states: int = CLUSTER_STATES,
    ):
        """``max_states`` caps the merged list (default: what the device's memory share holds);
        ``memory_limit`` caps the host bytes of the block records (default: the host
        budget); ``device_records``: device bytes the block records may take there before they go to
        host memory (default: RECORD_SHARE of the device's memory, taken from the lists' share; 0: all in
        host memory); ``fixing`` fixes the items the bounds decide first and searches the rest;
        ``local_size`` overrides the work-group size; lists of at most ``host_states`` states are merged
        on the host (NumPy), longer ones on the device; ``strengthen``: once a list reaches this many
        states (default STRENGTHEN_STATES; 0: never), the break solution improved by exchanges and the cardinality bounds
        (``incumbent``) end the search where they meet, and a better incumbent prunes from
        then on (the search starts again where fixing against it leaves half of the items or fewer);
        ``aggregate`` searches equal items as one type of 1, 2, 4, ... copies (``clsolve.dp.multiplicity``);
        ``relaxation``: entries of the rounded relaxation's rows (``relaxed.py``) that bound the states
        of lists on the device (default: ``relaxed.WIDTH`` of the device's kind; 0: Dantzig's bound alone),
        made once a list on the device reaches ``relaxation_states`` states; ``descent`` searches first
        against guessed incumbents below the bound (``descent.py``); ``clusters``: the cluster bound
        (``clusters.py``) bounds the states too, made once a list on the device reaches
        ``cluster_states`` states;
        ``poison`` fills every device buffer with a garbage
        pattern first (tests: a kernel reading what was never written shows)."""
        self.max_states = options.integer("max_states", max_states, minimum=4, none=True)
        self.memory_limit = options.integer("memory_limit", memory_limit, minimum=2**16, none=True)
        self.fixing = options.flag("fixing", fixing)
        self.local_size = options.power_of_two("local_size", local_size)
        self.host_states = options.integer("host_states", host_states, minimum=0)
        self.strengthen = options.integer("strengthen", strengthen, minimum=0)
        self.aggregate = options.flag("aggregate", aggregate)
        self.relaxation = options.integer("relaxation", relaxation, minimum=0, maximum=2**28, none=True)
        self.relaxation_states = options.integer("relaxation_states", relaxation_states, minimum=0)
        self.descent = options.flag("descent", descent)
        self.poison = options.flag("poison", poison)
        self.device_records = options.integer("device_records", device_records, minimum=0, none=True)
        self.clusters = options.flag("clusters", clusters)
        self.cluster_states = options.integer("cluster_states", cluster_states, minimum=0)

    # -- planning ----------------------------------------------------------------------------
    def accepts(self, problem) -> str | None:
        if not isinstance(problem, Knapsack):
            return f"{self.name} solves knapsack problems only"
        reduced = reduction(problem).problem
        if reduced is None:
            return None
        if reduced.m != 1:
            return f"{self.name} solves the 0-1 knapsack with one capacity (m = 1); this problem has m = {problem.m}"
        if exact_sum(reduced.weights[:, 0]) >= WEIGHT_LIMIT or reduced.total_profit >= PROFIT_LIMIT:
            return (
                f"{self.name} needs the sum of the weights below 2^63 - 1 and the sum of the profits below "
                f"2^62 (states are 64-bit)"
            )
        return None

    def _stages(self, problem: Knapsack) -> Stages:
        return stages(problem, True, self.fixing, aggregate=self.aggregate)

    def _local_size(self, device: Device) -> int:
        return work_group_size(device.max_work_group_size, self.local_size)

    def _slot_limit(self, device: Device) -> int:
        """The most slots (states of a merged list) the device may hold."""
        limit = (
            int(
                device.memory_budget
                - 2**20
                - self._relaxed_bytes(device)
                - self._record_bytes(device)
                - self._cluster_bytes(device)
            )
            // LIMIT_BYTES
        )
        limit = min(limit, device.max_allocation // 8, 2**31 - 1)
        return max(4, min(limit, self.max_states or limit))

    def _relaxed_bytes(self, device: Device) -> int:
        """The most device bytes the rounded relaxation's rows may take."""
        return memory_share(device) if self._width(device) else 0

    def _cluster_bytes(self, device: Device) -> int:
        """The most device bytes the cluster bound may take."""
        return int(device.memory_budget * CLUSTER_SHARE) if self.clusters else 0

    def _record_bytes(self, device: Device) -> int:
        """The most device bytes the block records may take."""
        if self.device_records is not None:
            return self.device_records
        return int(device.memory_budget * RECORD_SHARE)

    def _width(self, device: Device) -> int:
        """Entries of the rounded relaxation's rows on ``device`` (0: none)."""
        if self.relaxation is not None:
            return self.relaxation
        return WIDTH[_kind(device)]

    def _budget(self) -> int:
        return self.memory_limit if self.memory_limit is not None else memory.host_budget()

    def plan(self, problem: Knapsack, device: Device) -> Plan:
        staged = self._stages(problem)
        searched = staged.searched
        n = 0 if searched is None else searched.n
        limit = self._slot_limit(device)
        slots = min(limit, max(2 ** min(n + 1, 40), FIRST_SLOTS))
        gap, seconds, probed = 0, n * LEVEL_SECONDS[_kind(device)], None
        if searched is not None:
            core = Core.of(searched)
            gap = core.root_bound() - core.greedy()[0]
            probed = probe(searched, staged.floor, self.host_states) if gap else None
            if gap and incumbent.early(searched):
                seconds = n * STRENGTHEN_ITEM_SECONDS  # the strengthened incumbent meets the bound first
            elif probed is not None and probed.short:
                seconds = probed.estimate()
            elif gap:
                seconds *= OPEN_GAP_MARGIN
        details = {
            "max_states": limit,
            "root_gap": gap,
            "host_memory_limit": self._budget(),
            "local_size": self._local_size(device),
            "note": "cell_updates counts levels (one per item); the states made depend on the instance, "
            "and the buffers grow to the list's size",
        }
        if probed is not None:
            details["probe"] = {
                "levels": probed.levels,
                "seconds": probed.seconds,
                "longest_list": probed.longest,
                "last_list": probed.last,
                "short": probed.short,
                "finished": probed.finished,
            }
        buffers = list_buffers(slots, device_groups(device, self._local_size(device), slots))
        if self._width(device) and searched is not None:
            buffers["relaxed rows (at most)"] = self._relaxed_bytes(device)
        if self._cluster_bytes(device) and searched is not None:
            buffers["cluster lists (at most)"] = self._cluster_bytes(device)
        if self._record_bytes(device) and searched is not None:
            buffers["block records (at most)"] = self._record_bytes(device)
        return Plan(
            solver=self.name,
            device_buffers=buffers,
            kernels=KERNELS + (("relaxed_item",) if "relaxed rows (at most)" in buffers else ()),
            cell_updates=n,
            launches=5 * n,
            seconds=seconds + 0.001,
            details=details,
        )

    # -- solving -----------------------------------------------------------------------------
    def solve(self, problem: Knapsack, device: Device, plan: Plan) -> Solution:
        staged = self._stages(problem)
        probed = plan.details.get("probe", {})
        short = bool(probed.get("short"))
        growing = probed.get("last_list", 1) >= probed.get("longest_list", 1)
        return staged.solve(
            lambda searched: self._descend(searched, device, staged.floor, short, growing), self.name, device.label
        )

    def _descend(self, problem: Knapsack, device: Device, floor: int, short: bool = False, growing: bool = True) -> Solution:
        """The search of ``problem`` from incumbent ``floor``, after the descent's guesses (``descent.py``),
        except where the plan's probe saw the lists stay ``short`` (each guess would cost a whole search)
        or the problem's bound is met by its strengthened incumbent first (``incumbent.early``).
        The searches share the rounded relaxation's rows and the cluster lists; the descent asks for
        the rows' bound of the whole problem only where the probe's lists were still ``growing`` at its
        end (lists that shrink there rarely need the rows, and making them would cost more than the
        search)."""
        rows, clusters = self._rows(problem, device), self._clusters(problem, device)
        try:
            if not self.descent or short or (self.strengthen and incumbent.early(problem)):
                return self._search(problem, device, floor, self.strengthen, rows=rows, clusters=clusters)
            budget = DESCENT_STATES[_kind(device)]
            return descend(
                problem,
                floor,
                lambda guess: self._search(problem, device, guess - 1, 0, budget, rows, clusters, guessed=True),
                lambda: self._search(problem, device, floor, self.strengthen, rows=rows, clusters=clusters),
                lambda: rows.root_bound() if growing else None,
                clusters.root_bound,
            )
        finally:
            rows.release()
            clusters.release()

    def _clusters(self, problem: Knapsack, device: Device) -> Shared[ClusterLists]:
        """The cluster lists of ``problem``, made when first asked for where they are on, the items
        form clusters and the time limit leaves time for them."""
        core = Core.of(problem)  # at level 0, never advanced
        found = Clusters.of(core.weights, core.capacity)

        def make() -> ClusterLists | None:
            share = self._cluster_bytes(device)
            # lists of slots x LIMIT_BYTES, snapshots of half the share and one list more (16 bytes a state)
            return ClusterLists.make(
                device, self._local_size(device), core, found, share // 2 // (LIMIT_BYTES + 16), share // 2, self.poison
            )

        eligible = self.clusters and found.useful() and fits(core) and not core.done()  # once, not per level

        def allowed() -> bool:
            return eligible and deadline.allows(CLUSTER_SECONDS[_kind(device)])

        return Shared(core, make, allowed)

    def _rows(self, problem: Knapsack, device: Device) -> Shared[RelaxedRows]:
        """The rounded relaxation's rows of ``problem``, made when first asked for where they are on and
        the time limit leaves time for them."""
        core = Core.of(problem)  # at level 0, never advanced

        def make() -> RelaxedRows:
            return RelaxedRows(
                device,
                program(device, self._local_size(device)),
                core,
                self._width(device),
                self._relaxed_bytes(device),
                CELLS[_kind(device)],
                self.poison,
            )

        return Shared(core, make, lambda: self._relax(core, device))

    def _again(self, staged: Stages, device: Device, strong: Strengthened) -> Solution:
        """The search again, from the stronger incumbent: ``staged`` fixed items against it (all of them
        where it reaches the bound)."""

        def search(searched: Knapsack) -> Solution:
            rows, clusters = self._rows(searched, device), self._clusters(searched, device)
            try:
                return self._search(searched, device, staged.floor, 0, rows=rows, clusters=clusters)
            finally:
                rows.release()
                clusters.release()

        return _capped(staged.solve(search, self.name, device.label), strong)

    # long: the level loop with its stopping rules, the move between host and device, the incumbent
    def _search(
        self,
        problem: Knapsack,
        device: Device,
        floor: int,
        strengthen: int,
        states: int | None = None,
        rows: Shared[RelaxedRows] | None = None,
        clusters: Shared[ClusterLists] | None = None,
        guessed: bool = False,
    ) -> Solution:
        """The level loop over ``problem`` (a searched core) from incumbent ``floor`` (``guessed``: a
        descent's guess, which no solution may reach, so the log hears nothing of it); lists of
        ``strengthen`` states (0: none) strengthen the incumbent and the bound once; the search stops
        once it has made more than ``states`` states (None: no such budget); ``rows``: the rounded
        relaxation's rows of ``problem`` (None: none); ``clusters``: its cluster lists (None: none)."""
        watch = deadline.Stopwatch()
        core = Core.of(problem)
        value, chosen = core.greedy()
        best = max(value, floor)
        found: tuple[int, int, int] | None = None  # (level, bits, anchor) of the incumbent's state
        W, P = core.start()
        host = HostLists(np.array([W]), np.array([P]), np.zeros(1, np.uint64), np.zeros(1, np.uint32))
        lists: HostLists | DeviceLists = host
        slots = self._slot_limit(device)
        places = Places(
            host,
            lambda: DeviceLists(device, self._local_size(device), slots, self.poison, self._record_bytes(device)),
            self.host_states,
        )
        records, budget = Records(), self._budget()
        rates = {"host": deadline.Rate(*FIRST_RATES["host"]), "device": deadline.Rate(*FIRST_RATES[_kind(device)])}
        # a record: at least as long as the last one of its place
        record_rates = {place: deadline.Rate(*rate) for place, rate in FIRST_RECORD_RATES.items()}
        last_record = {"host": 0.0, "device": 0.0}
        on_device = self._record_bytes(device)
        top, made, kept, peak, stop = core.root_bound(), 0, 0, 1, ""
        level_seconds = {"host": 0.0, "device": 0.0}
        warm: set[str] = set()
        strong: Strengthened | None = None
        stopped = ""  # why the search stopped: its time limit, its room (states, records) or its budget
        relaxed: RelaxedRows | None = None
        clustered: ClusterLists | None = None
        relaxed_seconds = 0.0
        early = strengthen and incumbent.early(problem)  # its bound may end the search at once
        while lists.count and not core.done():
            if strengthen and strong is None and (early or lists.count >= strengthen):
                strong = incumbent.strengthen(problem)
                if strong.value > best:
                    staged = stages(
                        problem,
                        True,
                        self.fixing,
                        seed=strong.selected,
                        ceiling=strong.bound.value,
                        relaxation=strong.bound.relaxation,
                        aggregate=self.aggregate,
                    )
                    if staged.searched is None or staged.searched.n <= problem.n * AGAIN_SHARE:
                        for shared in (rows, clusters):
                            if shared is not None:
                                shared.release()  # the search again makes those of its own problem
                        return self._again(staged, device, strong)
                    best, chosen, found = strong.value, strong.selected[core.order], None
            if strong is not None and best >= strong.bound.value:
                break  # the incumbent reaches the bound: optimal
            lists = places.next(lists)
            where = "host" if isinstance(lists, HostLists) else "device"
            if rows is not None and relaxed is None and isinstance(lists, DeviceLists) and lists.count >= self.relaxation_states:
                made_here = not rows.tried
                relaxed = rows.get()
                relaxed_seconds = rows.seconds if made_here else 0.0
            if (
                clusters is not None
                and clustered is None
                and isinstance(lists, DeviceLists)
                and (clusters.tables is not None or lists.count >= self.cluster_states)
            ):
                made_here = not clusters.tried
                clustered = clusters.get()
                relaxed_seconds += clusters.seconds if made_here else 0.0
            # a level that ends a block is followed by its record (a copy to the device's or host memory)
            place = record_place(lists, records, 2 * lists.count, on_device)
            record = (
                max(record_rates[place].predict(RECORD_BYTES * 2 * lists.count), last_record[place])
                if is_block_end(len(core.levels) + 1)
                else 0.0
            )
            stop, stopped = stop_reason(rates[where], lists.count, slots, records, budget, record, place == "host")
            if not stop and states is not None and made > states:
                stop, stopped = f"more than {states} states made", "budget"
            if stop:
                break
            level, count = core.advance(), lists.count
            number = len(core.levels)
            step = deadline.Stopwatch()
            if isinstance(lists, DeviceLists):
                result = lists.level(
                    core,
                    level,
                    best,
                    reset=(number - 1) % BLOCK == 0,
                    bit=bit(number),
                    relaxed=relaxed.arguments(number, core) if relaxed else None,
                    cluster=clustered.arguments(number, core) if clustered else None,
                )
            else:
                result = lists.level(core, level, best, reset=(number - 1) % BLOCK == 0, bit=bit(number))
            elapsed = step.seconds
            if where in warm:
                rates[where].observe(2 * count, elapsed)
            warm.add(where)  # a place's first level may include building its kernels (PoCL: at first launch)
            level_seconds[where] += elapsed
            made, kept, peak = made + 2 * count, kept + result.count, max(peak, result.count)
            if result.best > best:
                best = result.best
                found = (number, *lists.merged_state(result.best_at))
            top = result.top
            if is_block_end(number) and lists.count and not core.done():
                step = deadline.Stopwatch()
                place = record_place(lists, records, lists.count, on_device)
                if place == "device":
                    assert isinstance(lists, DeviceLists)
                    records.add_device(lists.device_record())
                else:
                    records.add(*lists.record())
                last_record[place] = step.seconds
                record_rates[place].observe(RECORD_BYTES * lists.count, last_record[place])
            if not guessed:
                log.found(best if best >= 0 else None, max(best, top))
            progress.report("dp-states levels", number, core.n)
        if found is not None:
            number, bits, anchor = found
            chosen = core.selection(records.toggled(number, bits, anchor))
        record_bytes, device_record_bytes = records.nbytes, records.device_bytes
        records.release()
        selected = np.zeros(core.n, dtype=bool)
        selected[core.order[chosen]] = True
        value = int(problem.profits[selected].sum())
        bound = max(best, top) if stop else best
        if strong is not None:
            bound = min(bound, max(strong.bound.value, best))
        device_bytes = places.device.capacity * SLOT_BYTES if places.device else 0
        notes = [
            f"{len(core.levels)} levels ({core.n} items, break item {core.breaking}); {made} states made, "
            f"{kept} kept, longest list {peak}; {level_seconds['host'] * 1e3:.1f} ms in host levels, "
            f"{level_seconds['device'] * 1e3:.1f} ms in device levels ({memory.format_bytes(device_bytes)} of device "
            f"buffers), records {memory.format_bytes(record_bytes)}"
        ]
        if strong is not None:
            notes.append(f"strengthened: {strong.describe()}")
        if stop:
            notes.append(f"{stop}: best found {value}, open upper bound {bound} (gap {bound - value})")
        total = watch.seconds
        stats: dict[str, object] = {
            "levels": len(core.levels),
            "states_made": made,
            "states_kept": kept,
            "longest_list": peak,
            "device_bytes": device_bytes,
            "record_bytes": record_bytes,
            "device_record_bytes": device_record_bytes,
            "host_level_seconds": level_seconds["host"],
            "device_level_seconds": level_seconds["device"],
            "stopped": stopped,
        }
        if relaxed is not None:
            shape = relaxed.shape
            stats.update(
                {
                    "relaxed_width": shape.width,
                    "relaxed_grain": shape.grain,
                    "relaxed_stride": shape.stride,
                    "relaxed_seconds": rows.seconds if rows is not None else 0.0,
                }
            )
            notes.append(
                f"rounded relaxation: rows of {shape.width} entries (grain {shape.grain}), one every "
                f"{shape.stride} levels, made in {rows.seconds * 1e3 if rows is not None else 0.0:.1f} ms"
            )
        if clustered is not None and clusters is not None:
            stats.update(
                {
                    "cluster_rate": clustered.rate / DENOMINATOR,
                    "cluster_stride": clustered.stride,
                    "cluster_bytes": clustered.nbytes,
                    "cluster_seconds": clusters.seconds,
                    "cluster_runs": clustered.runs,
                    "cluster_states_made": clustered.made,
                }
            )
            notes.append(
                f"cluster bound: {clustered.clusters.clustered} items in clusters, rate "
                f"{clustered.rate}/{DENOMINATOR}, lists of {memory.format_bytes(clustered.nbytes)} (one every "
                f"{clustered.stride} levels), made in {clusters.seconds * 1e3:.1f} ms ({clustered.runs} "
                f"runs, {clustered.made} states)"
            )
        if strong is not None:
            stats.update(strong.stats())
        return Solution(
            value=value,
            selected=selected,
            optimal=(not stop or bound <= best) and value >= best,
            solver=self.name,
            device=device.label,
            timings=Timings(
                kernels=level_seconds["device"] + relaxed_seconds, host=total - level_seconds["device"] - relaxed_seconds
            ),
            notes=notes,
            bound=bound,
            stats=stats,
        )

    def _relax(self, core: Core, device: Device) -> bool:
        """Whether to make the rounded relaxation's rows now: asked for, items left, and time for them."""
        width = self._width(device)
        if not width or core.done():
            return False
        items = core.n - len(core.levels)
        kind = _kind(device)
        cells = min(items * min(width, core.capacity + 1), CELLS[kind])
        return deadline.allows(cells * RELAXED_CELL_SECONDS[kind] + items * RELAXED_ITEM_SECONDS[kind])


def _kind(device: Device) -> str:
    return "gpu" if device.is_gpu else "other"


def _capped(solution: Solution, strong: Strengthened) -> Solution:
    """``solution`` with its bound at most the strong bound (an answer that reaches it is optimal)."""
    bound = min(solution.value if solution.bound is None else solution.bound, max(strong.bound.value, solution.value))
    return replace(
        solution,
        bound=bound,
        optimal=solution.optimal or solution.value >= bound,
        notes=[*solution.notes, f"strengthened: {strong.describe()}; searched again from it"],
        stats={**solution.stats, **strong.stats(), "searched_again": True},
    )
