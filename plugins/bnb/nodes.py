"""bnb's nodes: the sorted items, the lists (W, P, S, U, L of [LE12]), and the host step
over a list (branch, bound, label, compact) with the dominance filter."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .tuning import HOST_GREEDY_ITEMS, U32_MASK


@dataclass
class Items:
    """The instance as the search sees it: items sorted by decreasing profit/weight."""

    weights: np.ndarray  # int64, sorted
    profits: np.ndarray  # int64, sorted
    order: np.ndarray  # original index of each sorted item
    suffix_min: np.ndarray  # min(weights[i:]) (last entry: a sentinel above any capacity)
    capacity: int
    prefix_weights: np.ndarray | None = None  # sums of weights[:i] (None when they pass int64)
    prefix_profits: np.ndarray | None = None
    small: bool = False  # capacity x largest profit < 2^63: int64 bounds are exact
    dominance: bool = True

    @property
    def n(self) -> int:
        return int(self.weights.size)


@dataclass
class Frontier:
    """A list of nodes of one step (host arrays), a slice [offset, offset + q) of the list that step
    produced, with the origin records of the steps before it."""

    step: int
    nodes: tuple[np.ndarray, ...]  # W, P, S, U, L (int64)
    offset: int = 0
    records: tuple | list = ()  # per earlier step: (q, origin array, offset)
    bound: int = 0  # an upper bound on every node's U


@dataclass
class Search:
    """What one search has found so far."""

    best: int
    selected: np.ndarray  # in sorted order
    nodes: int = 0  # nodes branched
    host_steps: int = 0
    device_steps: int = 0
    chunks: int = 0
    host_seconds: float = 0.0
    device_seconds: float = 0.0
    stopped: str = ""  # why the search stopped early ("" while it runs to the end)
    open_bound: int = 0


def extend(items: Items, W: np.ndarray, P: np.ndarray, S: np.ndarray):
    n, w, p, c = items.n, items.weights, items.profits, items.capacity
    if items.prefix_weights is not None:  # items S, S+1, .. fit one after another exactly while their sum does
        prefix = items.prefix_weights
        end = np.searchsorted(prefix, c - W + prefix[S], side="right") - 1
        profits = items.prefix_profits
        assert profits is not None  # set together with prefix_weights
        return W + (prefix[end] - prefix[S]), P + (profits[end] - profits[S]), end
    while True:
        at = np.minimum(S, n - 1)
        more = (n > S) & (w[at] <= c - W)
        if not more.any():
            return W, P, S
        W = W + np.where(more, w[at], 0)
        P = P + np.where(more, p[at], 0)
        S = S + more


def upper(items: Items, W: np.ndarray, P: np.ndarray, S: np.ndarray) -> np.ndarray:
    """U = P + floor((c - W) p_s / w_s) (see ``fractional`` in bnb.cl)."""
    n = items.n
    at = np.minimum(S, n - 1)
    # the slack item weighs at least 1 (a weightless item always fits); where n <= S the entry is
    # dropped, and its divisor, perhaps a weightless item's, is taken as 1 so that nothing divides by 0
    slack_w = np.where(n > S, items.weights[at], 1)
    if items.small:  # r * p_s < capacity * max(p) < 2^63: exact in int64
        return np.where(n > S, P + (items.capacity - W) * items.profits[at] // slack_w, P)
    r = (items.capacity - W).astype(np.uint64)
    ps, ws = items.profits[at].astype(np.uint64), slack_w.astype(np.uint64)
    small = (r <= U32_MASK) & (ps <= U32_MASK)
    exact = (np.where(small, r, 0) * np.where(small, ps, 0)) // ws
    approx = r.astype(np.float64) * ps.astype(np.float64) / ws.astype(np.float64) * (1.0 + 1e-15)
    approx = np.minimum(np.minimum(approx, 2.0**63).astype(np.uint64) + 1, ps)
    fraction = np.where(small, exact, approx).astype(np.int64)
    return np.where(n > S, P + fraction, P)


def lower(items: Items, W: np.ndarray, P: np.ndarray, S: np.ndarray) -> np.ndarray:
    """L = P + the greedy packing after S (``lower_bound`` in bnb.cl), vectorized over the
    nodes; only items light enough for some node's residual capacity are visited, and that set is
    filtered again as the residuals shrink."""
    w, p = items.weights, items.profits
    rest, L = items.capacity - W, P.copy()
    first = int(S.min()) + 1
    if first >= items.n or items.suffix_min[first] > rest.max():
        return L  # nothing after the slack items fits any node (correlated instances: the usual case)
    # the host visits at most HOST_GREEDY_ITEMS items that could fit (a shorter greedy still packs a
    # feasible set, so L stays a valid lower bound; the incumbent's own completion is the full greedy)
    candidates = first + np.flatnonzero(w[first:] <= rest.max())[:HOST_GREEDY_ITEMS]
    while candidates.size:
        limit = int(rest.max())
        for position, i in enumerate(candidates.tolist()):
            take = (i > S) & (w[i] <= rest)
            rest = rest - np.where(take, w[i], 0)
            L = L + np.where(take, p[i], 0)
            if take.any() and position % 16 == 15 and int(rest.max()) < limit:
                candidates = candidates[position + 1 :]
                candidates = candidates[w[candidates] <= rest.max()]
                break
        else:
            break
    return L


def undominated(items: Items, nodes, step: int) -> np.ndarray:
    """Indices of the nodes of step ``step`` no other node dominates: a node's decided weight and
    profit (items 0..step-1) are W and P less its greedy prefix step..s-1; sorted by weight (then by
    profit, descending), a node survives when its profit beats every lighter or equal node's."""
    W, P, S = nodes[0], nodes[1], nodes[2]
    if W.size < 2:
        return np.arange(W.size)
    prefix_w, prefix_p = items.prefix_weights, items.prefix_profits
    assert prefix_w is not None and prefix_p is not None  # the dominance filter runs only where they exist
    weight = W - (prefix_w[S] - prefix_w[step])
    profit = P - (prefix_p[S] - prefix_p[step])
    order = np.lexsort((-profit, weight))
    ranked = profit[order]
    before = np.maximum.accumulate(ranked)
    survives = np.empty(ranked.size, dtype=bool)
    survives[0] = True
    survives[1:] = ranked[1:] > before[:-1]
    return order[survives]


def host_step(items: Items, nodes, step: int, best: int):
    """Branch every node on item ``step``; returns the kept nodes, their origins and the improvement."""
    W, P, S, U, L = nodes
    inside = step < S
    sw = np.where(inside, W - items.weights[step], W)
    sp = np.where(inside, P - items.profits[step], P)
    ss = np.where(inside, S, S + 1)
    sw, sp, ss = extend(items, sw, sp, ss)
    su, sl = upper(items, sw, sp, ss), lower(items, sw, sp, ss)
    son = int(np.argmax(sl))
    improved = (int(sl[son]), son, int(sw[son]), int(ss[son])) if sl[son] > best else None
    best = max(best, int(sl[son]))  # the host labels with this step's own best lower bound already
    keep = np.concatenate([inside & (best < U), su > best])
    origin = np.flatnonzero(keep).astype(np.uint32)
    joined = [np.concatenate(pair)[origin] for pair in ((W, sw), (P, sp), (S, ss), (U, su), (L, sl))]
    if items.dominance and items.prefix_weights is not None:
        survivors = undominated(items, joined, step + 1)
        origin, joined = origin[survivors], [a[survivors] for a in joined]
    return tuple(joined), origin, improved
