"""Exact reductions of a knapsack before a dense DP, whose cost grows with prod(capacity_d + 1).

Each rule keeps every optimal solution's value and is undone by ``Reduction.expand``:

1. an item heavier than a capacity in some dimension never fits: it is dropped;
2. a dimension whose total weight (of the items left) is at most its capacity never binds: dropped;
3. a dimension d implied by another e (every item's weight in d at most its weight in e, and
   capacity_d >= capacity_e) is dropped: any subset that fits e fits d. Of two identical
   dimensions the first stays (2DPackLib's MSB squares give KP2s whose two dimensions are equal);
4. an item of zero weight in every dimension left is always taken (profits are >= 0);
5. each dimension's weights and capacity are divided by the weights' greatest common divisor
   (capacity rounded down: a sum of multiples of g is <= C exactly when it is <= g * floor(C / g)).

For large dense DPs, ``reduction`` may go on: for one capacity, fixing by dominance
(``clsolve.dp.dominance``) and the items heaviest first; for several, fixing by reduced costs against
a greedy incumbent (``clsolve.mkp.fixing``), whose items hold for better solutions only, so that the
incumbent stays the answer wherever the DP finds none (``Reduction.floor``).

The engine checks every expanded solution against the original problem, so a reduction bug cannot
return a wrong answer silently.
"""

# long module: the reduction rules for one problem and for packed batches share their helpers
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from ..batch.packed import PackedProblems, concatenated_ranges
from ..mkp.fixing import fix
from ..mkp.outcome import SUM_LIMIT
from ..plan import Plan
from ..problems import Knapsack
from ..runtime import cache
from ..solution import Solution
from . import dominance as dominated
from .reduction import Reduction

_KEY, _KEY_ITEMS = "_presolve_reduction", "_presolve_items_only"
#: The steps for large dense DPs (``reduction``'s fixing by dominance and items heaviest first for one
#: capacity, fixing by reduced costs for several) only for tables of at least this many cell updates
#: (items x states): they cost the host up to a few milliseconds (dominance: 1.6 ms at 1,200 items on
#: the development CPU; reduced costs: 0.3 ms for class A's a33), which a DP of 2^28 updates (about
#: 0.7 ms at 400 G/s) can repay, and many small problems solved one by one (MSB-630's plates) cannot.
LARGE_TABLE_UPDATES = 2**28


def reduce(problem: Knapsack) -> Reduction:
    """The exact reduction of ``problem`` (cached per problem object: problems are immutable)."""
    return reduce_many([problem])[0]


def reduce_many(problems: Sequence[Knapsack], items_only: Sequence[bool] | None = None) -> list[Reduction]:
    """``reduce`` of each problem. The rules are evaluated for the whole batch at once (a few numpy
    calls over the concatenated items, not a few per problem); only problems that change get arrays
    of their own. Where ``items_only[i]`` is true, problem i gets rules 1 and 4 only (items dropped
    or always taken): what a solver whose work depends on the items alone, not on the capacities
    (subset enumeration), can gain."""
    keys = [_KEY_ITEMS if items_only is not None and items_only[i] else _KEY for i in range(len(problems))]
    out: list[Reduction | None] = [cache.get(p, key) for p, key in zip(problems, keys)]
    by_m: dict[int, list[int]] = {}
    for index, problem in enumerate(problems):
        if out[index] is None:
            by_m.setdefault(problem.m, []).append(index)
    for m, indices in by_m.items():
        group = [problems[i] for i in indices]
        only = np.fromiter((keys[i] == _KEY_ITEMS for i in indices), dtype=bool, count=len(indices))
        for i, found in zip(indices, _reduce_group(group, m, only)):
            out[i] = cache.put(problems[i], keys[i], found)  # problems are immutable: kept per problem
    reductions = [reduction for reduction in out if reduction is not None]
    assert len(reductions) == len(out)  # each one from the cache or from its group
    return reductions


def reduction(
    problem: Knapsack, enabled: bool = True, dominance: bool = False, heavy_first: bool = False, fixing: bool = False
) -> Reduction:
    """``reduce(problem)``, or the identity when ``enabled`` is False (a solver's ``presolve=False``).
    With ``enabled``, for a DP of at least LARGE_TABLE_UPDATES cell updates, followed for m = 1 by
    fixing by dominance (``dominance``, ``clsolve.dp.dominance``) and by the items in order of weight,
    heaviest first (``heavy_first``: light items last let a dense DP's last rows start late,
    ``clsolve.dp.table.reachable_floors``); for m >= 2 by fixing by reduced costs (``fixing``)."""
    if not enabled:
        return identity(problem)
    reduced = reduce(problem)
    left = reduced.problem
    if left is None or left.n * left.cells() < LARGE_TABLE_UPDATES:
        return reduced
    if left.m > 1:
        if not fixing or left.total_profit >= SUM_LIMIT:  # the fixing's prices need exact int64 sums
            return reduced
        step = cache.per_problem(left, "reduced costs", lambda: (_reduced_costs(left),))[0]
        return reduced if step is None else reduced.then(step)
    if dominance:
        step = dominated.reduction(left)
        reduced = reduced if step is None else reduced.then(step)
    if heavy_first:
        ordered = reduced.problem
        assert ordered is not None  # dominance leaves a problem
        step = cache.per_problem(ordered, "heavy first", lambda: (_heavy_first(ordered),))[0]
        reduced = reduced if step is None else reduced.then(step)
    return reduced


def _reduced_costs(problem: Knapsack) -> Reduction | None:
    """``problem`` with the items fixed by reduced costs against a greedy incumbent
    (``clsolve.mkp.fixing.fix``: for solutions better than the incumbent only, which is the floor);
    None where no item is fixed."""
    fixing = fix(problem)
    if fixing.free.all():
        return None
    note = (
        f"reduced costs fixed {int(fixing.fixed_in.sum())} item(s) in and "
        f"{int((~fixing.free & ~fixing.fixed_in).sum())} out against an incumbent of value {fixing.value}"
    )
    floor = (fixing.value, fixing.chosen.copy())
    if fixing.core is None:  # no better solution: the incumbent is the answer
        return Reduction(problem, None, _NONE, _NONE, (note,), floor)
    return Reduction(
        problem, fixing.core, np.flatnonzero(fixing.free), np.flatnonzero(fixing.fixed_in), (note,), floor, fixing.prices
    )


def _heavy_first(problem: Knapsack) -> Reduction | None:
    """``problem`` with its items by weight, heaviest first (m = 1); None where they already are."""
    weights = problem.weights[:, 0]
    if bool(np.all(weights[:-1] >= weights[1:])):
        return None
    order = np.argsort(-weights, kind="stable")
    ordered = Knapsack.derived(
        problem.profits[order], problem.weights[order], problem.capacities, name=problem.name, total_profit=problem.total_profit
    )
    return Reduction(problem, ordered, order, _NONE, ("items by weight, heaviest first",))


def presolved(
    solver: str,
    problem: Knapsack,
    enabled: bool,
    device_label: str,
    solve_reduced: Callable[[Knapsack], Solution],
    dominance: bool = False,
    heavy_first: bool = False,
    fixing: bool = False,
) -> Solution:
    """A solver's solution of ``problem`` through its reduction: ``solve_reduced`` solves what is
    left, the answer is expanded back to the problem's items; a problem presolve settles alone is
    answered without it. ``dominance``, ``heavy_first``, ``fixing``: as in ``reduction``."""
    reduced = reduction(problem, enabled, dominance, heavy_first, fixing)
    if reduced.problem is None:
        return reduced.trivial(solver, device_label)
    return reduced.expand(solve_reduced(reduced.problem))


def planned(
    solver: str,
    problem: Knapsack,
    enabled: bool,
    plan_reduced: Callable[[Knapsack], Plan],
    dominance: bool = False,
    heavy_first: bool = False,
    fixing: bool = False,
) -> Plan:
    """A solver's plan for ``problem`` made on its reduction (``plan_reduced``); the details say what
    presolve did, and a problem presolve settles alone gets an empty plan."""
    reduced = reduction(problem, enabled, dominance, heavy_first, fixing)
    if reduced.problem is None:
        return Plan(solver=solver, details={"presolve": "; ".join(reduced.notes)})
    plan = plan_reduced(reduced.problem)
    if reduced.changed:
        plan.details["presolve"] = "; ".join(reduced.notes)
    return plan


def least(
    problem: Knapsack,
    enabled: bool,
    seconds: Callable[[Knapsack], float],
    dominance: bool = False,
    heavy_first: bool = False,
    fixing: bool = False,
) -> float:
    """``least_seconds`` of a solver that plans on the reduction: ``seconds`` of the reduced problem,
    0 where presolve settles it alone. Where fixing by dominance is still to run, ``seconds`` of the
    items it surely keeps instead (``_surely_kept``): a lower bound, as a least time must be, that
    costs one sort where the fixing costs log2(n)."""
    if enabled and dominance:
        sure = _surely_kept(problem, heavy_first)
        if sure is not None:
            return seconds(sure)
    reduced = reduction(problem, enabled, dominance, heavy_first, fixing).problem
    return 0.0 if reduced is None else seconds(reduced)


def _surely_kept(problem: Knapsack, heavy_first: bool) -> Knapsack | None:
    """Where ``reduction`` would fix by dominance and has not yet: its problem cut to the items no other
    item dominates (``clsolve.dp.dominance.undominated``), heaviest first where asked. A dense DP's
    cost over them is at most its cost over the reduction's items, a superset: each row has at most as
    many reachable states (``clsolve.dp.table.reachable_floors``: the lighter items after it are a
    subset of the reduction's). None where the reduction is known or has no dominance step."""
    left = reduce(problem).problem
    if left is None or left.m > 1 or left.n * left.cells() < LARGE_TABLE_UPDATES or dominated.examined(left):
        return None
    if left.n > dominated.DOMINANCE_ITEMS:
        return None  # the fixing leaves such problems as they are
    kept = np.flatnonzero(dominated.undominated(left))
    if heavy_first:
        kept = kept[np.argsort(-left.weights[kept, 0], kind="stable")]
    return Knapsack.derived(left.profits[kept], left.weights[kept], left.capacities, name=left.name)


def settled(problem: Knapsack) -> Reduction | None:
    """The reduction that decides ``problem`` alone, or None: every profit is 0 (nothing beats the empty
    selection), or the rules leave nothing (no item fits, every item fits together, capacity 0 with
    only weightless items, ...), for any m. The engine answers such a problem before any search."""
    if problem.total_profit == 0:
        return Reduction(problem, None, _NONE, _NONE, ("every profit is 0: the empty selection is optimal",))
    found = reduce(problem)
    return found if found.problem is None else None


def identity(problem: Knapsack) -> Reduction:
    """The reduction that changes nothing."""
    return Reduction(problem, problem, _all_items(problem.n), _NONE)


@dataclass
class _Facts:
    """What the rules find for knapsacks of m dimensions, items end to end (arrays: per item, or per
    knapsack and dimension)."""

    fits: np.ndarray  # (items,) rule 1: fits every capacity
    all_fit: np.ndarray  # (k,)
    live: np.ndarray  # (items, m) weights of the items that can fit, 0 for the others
    binding: np.ndarray  # (k, m) rule 2
    implied: np.ndarray  # (k, m) rule 3
    divisors: np.ndarray  # (k, m) rule 5
    kept_dims: np.ndarray  # (k, m) binding and not implied
    decided: np.ndarray  # (items,) fits and weighs something in a kept dimension (else rule 4)
    forced_any: np.ndarray  # (k,)
    untouched: np.ndarray  # (k,) no rule changes the knapsack


def _facts(weights: np.ndarray, capacities: np.ndarray, sizes: np.ndarray, items_only: np.ndarray) -> _Facts:
    """The rules over knapsacks of m dimensions: ``weights`` (items, m) end to end, ``capacities``
    (k, m), ``sizes`` items per knapsack (each >= 1); ``items_only`` as in ``reduce_many``."""
    k, m = capacities.shape
    starts = np.zeros(k, dtype=np.int64)
    np.cumsum(sizes[:-1], out=starts[1:])
    # column by column: much faster than (items, m) gathers and reductions along a short axis
    fits = np.ones(len(weights), dtype=bool)  # rule 1
    for d in range(m):
        fits &= weights[:, d] <= np.repeat(capacities[:, d], sizes)
    all_fit = np.logical_and.reduceat(fits, starts)
    live = np.where(fits[:, None], weights, 0)  # weights of the items that can fit
    if items_only.all():  # rules 1 and 4 only: every dimension stays as it is
        kept_dims = np.ones((k, m), dtype=bool)
        decided = fits & (live > 0).any(axis=1)
        forced_any = ~np.logical_and.reduceat(decided | ~fits, starts)
        return _Facts(
            fits,
            all_fit,
            live,
            kept_dims,
            np.zeros((k, m), dtype=bool),
            np.ones((k, m), dtype=np.int64),
            kept_dims,
            decided,
            forced_any,
            all_fit & ~forced_any,
        )
    if int(weights.max(initial=0)) * int(sizes.max()) < 2**63:
        totals = np.add.reduceat(live, starts, axis=0)
    else:  # int64 sums could overflow: Python integers
        totals = np.array(
            [[int(t) for t in part.astype(object).sum(axis=0)] for part in np.split(live, starts[1:])], dtype=object
        )
    binding = np.asarray(totals > capacities, dtype=bool)  # rule 2
    implied = np.zeros((k, m), dtype=bool)  # rule 3
    others = np.arange(m)
    for d in range(m):  # d is implied by a binding e when w_d <= w_e item by item and c_d >= c_e
        below = np.logical_and.reduceat(live[:, d : d + 1] <= live, starts, axis=0)  # (k, m) over e
        mutual = np.logical_and.reduceat(live <= live[:, d : d + 1], starts, axis=0) & (capacities >= capacities[:, d : d + 1])
        implies = binding & below & (capacities[:, d : d + 1] >= capacities) & (~mutual | (others < d))
        implies[:, d] = False
        implied[:, d] = implies.any(axis=1)
    divisors = np.gcd.reduceat(live, starts, axis=0)  # rule 5
    if items_only.any():  # every dimension stays as it is
        binding[items_only], implied[items_only], divisors[items_only] = True, False, 1
    kept_dims = binding & ~implied
    # an item is decided by the solver when it fits and weighs something in a kept dimension  (rule 4)
    weighed = np.zeros(len(weights), dtype=bool)
    for d in range(m):
        weighed |= (live[:, d] > 0) & np.repeat(kept_dims[:, d], sizes)
    decided = fits & weighed
    forced_any = ~np.logical_and.reduceat(decided | ~fits, starts)
    scaled = ((divisors > 1) & kept_dims).any(axis=1)
    untouched = all_fit & kept_dims.all(axis=1) & ~forced_any & ~scaled
    return _Facts(fits, all_fit, live, binding, implied, divisors, kept_dims, decided, forced_any, untouched)


def _reduce_group(problems: list[Knapsack], m: int, items_only: np.ndarray) -> list[Reduction]:
    """The reductions of knapsacks that all have m dimensions (``items_only``: see ``reduce_many``)."""
    k = len(problems)
    sizes = np.fromiter((p.n for p in problems), dtype=np.int64, count=k)
    starts = np.zeros(k, dtype=np.int64)
    np.cumsum(sizes[:-1], out=starts[1:])
    weights = np.concatenate([p.weights for p in problems]) if k > 1 else problems[0].weights
    capacities = np.stack([p.capacities for p in problems])
    f = _facts(weights, capacities, sizes, items_only)
    fits, decided, divisors, implied, binding = f.fits, f.decided, f.divisors, f.implied, f.binding
    all_fit, forced_any, kept_dims, untouched = f.all_fit, f.forced_any, f.kept_dims, f.untouched
    out = []
    facts = zip(
        problems,
        untouched.tolist(),
        starts.tolist(),
        all_fit.tolist(),
        forced_any.tolist(),
        kept_dims.tolist(),
        implied.tolist(),
        binding.tolist(),
        divisors.tolist(),
    )
    column_sets: dict[tuple[int, ...], tuple[np.ndarray, np.ndarray]] = {}
    for index, (problem, same, start, every_fits, some_forced, dims_mask, implied_by, bind, divisor) in enumerate(facts):
        if same:
            out.append(Reduction(problem, problem, _all_items(problem.n), _NONE))
            continue
        stop = start + problem.n
        dims = tuple(d for d in range(m) if dims_mask[d])
        if every_fits and not some_forced and dims and all(divisor[d] == 1 for d in dims):
            # only dimensions dropped (2DPackLib's squares): views into one array per set of columns
            if dims not in column_sets:
                column_sets[dims] = (_frozen(weights[:, dims]), _frozen(capacities[:, dims]))
            columns, caps = column_sets[dims]
            reduced = Knapsack.derived(
                problem.profits, columns[start:stop], caps[index], name=problem.name, total_profit=problem.total_profit
            )
            out.append(Reduction(problem, reduced, _all_items(problem.n), _NONE, tuple(_dimension_notes(m, implied_by, bind))))
            continue
        out.append(
            _build(
                problem,
                None if every_fits else fits[start:stop],
                decided[start:stop] if some_forced or not every_fits else None,
                dims_mask,
                implied_by,
                bind,
                divisor,
            )
        )
    return out


_NONE = np.zeros(0, dtype=np.int64)
_NONE.setflags(write=False)


def _frozen(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


def _all_items(n: int, cache: dict[int, np.ndarray] = {}) -> np.ndarray:  # noqa: B006 - the shared cache
    """0 .. n - 1, read-only and shared."""
    found = cache.get(n)
    if found is None:
        found = cache[n] = _frozen(np.arange(n))
    return found


def _dimension_notes(m: int, implied: list[bool], binding: list[bool]) -> list[str]:
    notes = []
    loose = [d for d in range(m) if not binding[d]]
    if loose:
        notes.append(f"dimension(s) {loose} never bind (total weight <= capacity)")
    notes.extend(f"dimension {d} implied by another" for d in range(m) if implied[d] and binding[d])
    return notes


def _build(
    problem: Knapsack,
    fits: np.ndarray | None,
    decided: np.ndarray | None,
    dims_mask: list[bool],
    implied: list[bool],
    binding: list[bool],
    divisors: list[int],
) -> Reduction:
    """A problem's reduction from the facts ``_reduce_group`` found (``fits`` None: every item fits;
    ``decided`` None: the solver decides every item)."""
    notes = []
    if fits is None:
        fits = np.ones(problem.n, dtype=bool)
    else:
        notes.append(f"{int((~fits).sum())} item(s) heavier than a capacity dropped")
    notes.extend(_dimension_notes(problem.m, implied, binding))
    dims = [d for d in range(problem.m) if dims_mask[d]]
    if decided is None:
        decided_all = True
        forced = np.zeros(0, dtype=np.int64)
    else:
        decided_all = bool(decided.all())
        forced = np.flatnonzero(fits & ~decided)
    if not dims:
        notes.append(f"every one of the {forced.size} item(s) that fit is taken")
        return Reduction(problem, None, forced[:0], forced, tuple(notes))
    if forced.size:
        notes.append(f"{forced.size} item(s) of zero weight always taken")
    items = np.arange(problem.n) if decided is None or decided_all else np.flatnonzero(decided)
    if items.size == 0:
        return Reduction(problem, None, items, forced, tuple(notes))
    weights = problem.weights if items.size == problem.n else problem.weights[items]
    if len(dims) < problem.m:
        weights = weights[:, dims]
    capacities = [int(problem.capacities[d]) for d in dims]
    kept_divisors = [divisors[d] for d in dims]
    if any(g > 1 for g in kept_divisors):
        weights = weights // np.asarray(kept_divisors, dtype=np.int64)
        capacities = [c // g for c, g in zip(capacities, kept_divisors)]
        notes.extend(f"dimension {d} divided by the weights' common divisor {g}" for d, g in zip(dims, kept_divisors) if g > 1)
    if items.size == problem.n:
        reduced = Knapsack.derived(
            problem.profits, weights, np.asarray(capacities, dtype=np.int64), name=problem.name, total_profit=problem.total_profit
        )
    else:
        reduced = Knapsack.derived(problem.profits[items], weights, np.asarray(capacities, dtype=np.int64), name=problem.name)
    return Reduction(problem, reduced, items, forced, tuple(notes))


# ---------------------------------------------------------------------------- a packed batch at once


@dataclass
class PackedReduction:
    """The reductions of a packed batch of knapsacks (``reduce_packed``), in arrays: what a batching
    solver solves instead (``reduced``), and the way back (``expand``)."""

    #: The knapsacks left to decide, in batch order; ``positions`` are their rows in the batch.
    reduced: PackedProblems
    #: The batch's items the solver decides (the reduced knapsacks' items, in the same order).
    decided: np.ndarray
    #: The batch's items always taken.
    forced: np.ndarray
    #: Per knapsack of the batch: the profit of its forced items.
    forced_profit: np.ndarray
    #: Distinct presolve notes, and each knapsack's (-1: presolve changed nothing).
    notes: list[str]
    note_index: np.ndarray

    @property
    def rows(self) -> np.ndarray:
        """The batch rows of the reduced knapsacks."""
        return self.reduced.positions

    def expand(self, values: np.ndarray, selected: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Values and item flags of the whole batch from the reduced knapsacks' (int64, bool)."""
        out_values = self.forced_profit.copy()
        out_values[self.rows] += np.asarray(values, dtype=np.int64)
        out_selected = self.forced.copy()
        out_selected[self.decided] = selected
        return out_values, out_selected


def identity_packed(packed: PackedProblems) -> PackedReduction:
    """The packed reduction that changes nothing."""
    k = len(packed.knapsack_positions)
    rows = np.arange(k, dtype=np.int64)
    reduced = replace(packed, positions=rows, knapsack_positions=rows, others={}, memo={})
    items = packed.profits.size
    return PackedReduction(
        reduced,
        np.ones(items, dtype=bool),
        np.zeros(items, dtype=bool),
        np.zeros(k, dtype=np.int64),
        [],
        np.full(k, -1, dtype=np.int64),
    )


def reduce_packed(packed: PackedProblems, items_only: np.ndarray) -> PackedReduction:
    """``reduce_many`` over a packed batch of knapsacks, without a Python object per knapsack: the
    same rules, the reduced knapsacks as one packed batch, notes built once per distinct case.
    Computed once per batch and ``items_only`` (``packed.memo``): the batch solvers ``auto`` weighs
    plan the same batch, and the chosen one solves it."""
    key = ("reduce_packed", np.asarray(items_only, dtype=bool).tobytes())
    if key not in packed.memo:
        packed.memo[key] = _reduce_packed(packed, items_only)
    return packed.memo[key]


# long: the four rules over a packed batch, each reading the arrays the one before wrote
def _reduce_packed(packed: PackedProblems, items_only: np.ndarray) -> PackedReduction:
    n, m, weight_starts = packed.segments()
    k, items = len(n), packed.profits.size
    owner = np.repeat(np.arange(k, dtype=np.int64), n)
    decided = np.zeros(items, dtype=bool)
    forced = np.zeros(items, dtype=bool)
    kept = np.zeros(packed.capacities.size, dtype=bool)
    divisors = np.ones(packed.capacities.size, dtype=np.int64)
    note_index = np.full(k, -1, dtype=np.int64)
    notes: list[str] = []
    for width in np.unique(m).tolist():
        rows = np.flatnonzero(m == width)
        item_rows: slice | np.ndarray
        capacity_entries: slice | np.ndarray
        if rows.size == k:
            item_rows, capacity_entries = slice(None), slice(None)
            weights = packed.weights.reshape(-1, width)
        else:
            item_rows = concatenated_ranges(packed.item_offsets[rows], n[rows])
            capacity_entries = concatenated_ranges(packed.capacity_offsets[rows], m[rows])
            weights = packed.weights[concatenated_ranges(weight_starts[rows], n[rows] * width)].reshape(-1, width)
        capacities = packed.capacities[capacity_entries].reshape(-1, width)
        f = _facts(weights, capacities, n[rows], np.asarray(items_only, dtype=bool)[rows])
        decided[item_rows] = f.decided
        forced[item_rows] = f.fits & ~f.decided
        kept[capacity_entries] = f.kept_dims.ravel()
        divisors[capacity_entries] = np.where(f.kept_dims, f.divisors, 1).ravel()
        changed = np.flatnonzero(~f.untouched)
        if changed.size:
            starts = np.cumsum(n[rows]) - n[rows]
            dropped = n[rows] - np.add.reduceat(f.fits.astype(np.int64), starts)
            forced_count = np.add.reduceat((f.fits & ~f.decided).astype(np.int64), starts)
            scaled = np.where(f.kept_dims & (f.divisors > 1), f.divisors, 0)
            keys = np.column_stack([dropped, forced_count, f.binding, f.implied & f.binding, f.kept_dims, scaled])[changed]
            distinct, inverse = np.unique(keys, axis=0, return_inverse=True)
            for key in distinct.tolist():
                notes.append(_packed_note(width, key))
            note_index[rows[changed]] = len(notes) - len(distinct) + inverse.ravel()
    if (note_index < 0).all():  # presolve changes nothing: the batch as it is
        return identity_packed(packed)
    forced_profit = (
        np.bincount(owner, weights=np.where(forced, packed.profits, 0), minlength=k).astype(np.int64)
        if int(packed.profits.max(initial=0)) * int(n.max(initial=0)) < 2**53
        else np.array(
            [int(p.sum()) for p in np.split(np.where(forced, packed.profits, 0), packed.item_offsets[1:-1])], dtype=np.int64
        )
    )
    left = np.add.reduceat(decided.astype(np.int64), packed.item_offsets[:-1]) if k else np.zeros(0, np.int64)
    rows = np.flatnonzero(left > 0)
    items_of, dims_of, entry_of = packed.weight_entries()
    row_of_entry = np.repeat(np.arange(k, dtype=np.int64), m)
    keep_capacity = kept & (left > 0)[row_of_entry]
    keep_weight = decided[items_of] & kept[entry_of]
    widths = np.add.reduceat(keep_capacity.astype(np.int64), packed.capacity_offsets[:-1])[rows] if k else left
    item_offsets = np.zeros(rows.size + 1, dtype=np.int64)
    np.cumsum(left[rows], out=item_offsets[1:])
    capacity_offsets = np.zeros(rows.size + 1, dtype=np.int64)
    np.cumsum(widths, out=capacity_offsets[1:])
    reduced = PackedProblems(
        positions=rows,
        item_offsets=item_offsets,
        capacity_offsets=capacity_offsets,
        profits=packed.profits[decided],
        weights=(packed.weights // divisors[entry_of])[keep_weight],
        capacities=(packed.capacities // divisors)[keep_capacity],
        names=[packed.names[r] for r in rows.tolist()],
        known_optima=np.full(rows.size, -1, dtype=np.int64),
        knapsack_positions=rows,
    )
    return PackedReduction(reduced, decided, forced, forced_profit, notes, note_index)


def _packed_note(m: int, key: list[int]) -> str:
    """The presolve note of one distinct case of ``reduce_packed`` (the same words as ``_build``)."""
    dropped, forced_count = key[0], key[1]
    binding, implied, kept, scaled = (key[2 + j * m : 2 + (j + 1) * m] for j in range(4))
    notes = [f"{dropped} item(s) heavier than a capacity dropped"] if dropped else []
    notes.extend(_dimension_notes(m, [bool(x) for x in implied], [bool(x) for x in binding]))
    if not any(kept):
        notes.append(f"every one of the {forced_count} item(s) that fit is taken")
    else:
        if forced_count:
            notes.append(f"{forced_count} item(s) of zero weight always taken")
        notes.extend(f"dimension {d} divided by the weights' common divisor {g}" for d, g in enumerate(scaled) if g > 1)
    return "presolve: " + "; ".join(notes)
