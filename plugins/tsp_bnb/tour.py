"""The incumbent: a tour from the nearest neighbour, improved by 2-opt and Or-opt moves to a local
optimum, then iterated local search ([MOF91]'s double-bridge kick, kept where the tour gets no longer).
Every move is priced exactly for asymmetric costs too: a 2-opt move reverses a stretch of the tour,
whose cost forward and backward comes from prefix sums, and an Or-opt move carries a stretch of 1 to 3
cities elsewhere in its own direction. Each pass prices every move of a kind at once (an n x n array)
and makes the best one."""

from __future__ import annotations

import numpy as np

#: Or-opt moves carry stretches of 1 .. OR_LENGTH cities.
OR_LENGTH = 3


def length(d: np.ndarray, tour: np.ndarray) -> int:
    return int(d[tour, np.roll(tour, -1)].sum())


def nearest_neighbour(d: np.ndarray) -> np.ndarray:
    n = d.shape[0]
    seen = np.zeros(n, dtype=bool)
    tour = [0]
    seen[0] = True
    for _ in range(n - 1):
        row = np.where(seen, np.iinfo(np.int64).max, d[tour[-1]])
        nxt = int(np.argmin(row))
        tour.append(nxt)
        seen[nxt] = True
    return np.asarray(tour, dtype=np.int64)


def two_opt_move(d: np.ndarray, t: np.ndarray) -> tuple[int, int, int]:
    """The best reversal of t[i+1 .. j]: (gain, i, j), gain <= 0 where none shortens the tour."""
    n = t.size
    nxt = np.roll(t, -1)
    forward = np.concatenate(([0], np.cumsum(d[t[:-1], t[1:]])))  # forward[k]: t[0] .. t[k]
    backward = np.concatenate(([0], np.cumsum(d[t[1:], t[:-1]])))
    i = np.arange(n - 1)[:, None]
    j = np.arange(n)[None, :]
    valid = (j >= i + 2) & ~((i == 0) & (j == n - 1))
    inside = (backward[j] - backward[i + 1]) - (forward[j] - forward[i + 1])
    delta = d[t[i], t[j]] + d[nxt[i], nxt[j]] - d[t[i], nxt[i]] - d[t[j], nxt[j]] + inside
    delta = np.where(valid, delta, 0)
    k = int(np.argmin(delta))
    return -int(delta.flat[k]), k // n, k % n


def or_move(d: np.ndarray, t: np.ndarray, span: int) -> tuple[int, int, int]:
    """The best move of the stretch t[i .. i+span-1] (positions mod n) to between t[p] and t[p+1]:
    (gain, i, p), gain <= 0 where none shortens the tour."""
    n = t.size
    i = np.arange(n)[:, None]
    p = np.arange(n)[None, :]
    head, tail = t[i], t[(i + span - 1) % n]
    before, after = t[(i - 1) % n], t[(i + span) % n]
    removed = d[before, head] + d[tail, after] - d[before, after]
    added = d[t[p], head] + d[tail, t[(p + 1) % n]] - d[t[p], t[(p + 1) % n]]
    offset = (p - i) % n
    valid = (offset >= span) & (offset != n - 1)  # p outside the stretch and not just before it
    delta = np.where(valid, added - removed, 0)
    k = int(np.argmin(delta))
    return -int(delta.flat[k]), k // n, k % n


def _carried(t: np.ndarray, i: int, p: int, span: int) -> np.ndarray:
    n = t.size
    rolled = np.roll(t, -i)  # the stretch first
    stretch, rest = rolled[:span], rolled[span:]
    at = int(np.flatnonzero(rest == t[p])[0])
    return np.concatenate((rest[: at + 1], stretch, rest[at + 1 :]))[:n]


def improve(d: np.ndarray, t: np.ndarray) -> np.ndarray:
    """t moved to a local optimum of 2-opt and Or-opt moves."""
    n = t.size
    if n < 5:
        return t
    while True:
        gain, i, j = two_opt_move(d, t)
        if gain > 0:
            t = np.concatenate((t[: i + 1], t[i + 1 : j + 1][::-1], t[j + 1 :]))
            continue
        best = max((or_move(d, t, span) + (span,) for span in range(1, min(OR_LENGTH, n - 3) + 1)), key=lambda m: m[0])
        if best[0] <= 0:
            return t
        t = _carried(t, best[1], best[2], best[3])


def double_bridge(t: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    a, b, c = np.sort(rng.choice(np.arange(1, t.size), size=3, replace=False))
    return np.concatenate((t[:a], t[c:], t[b:c], t[a:b]))


def from_zero(t: np.ndarray) -> np.ndarray:
    return np.roll(t, -int(np.flatnonzero(t == 0)[0])).astype(np.int64)


def search(d: np.ndarray, kicks: int, expired, seed: int = 0) -> np.ndarray:
    """A tour from city 0: the nearest neighbour's, improved, then up to ``kicks`` double-bridge kicks
    each followed by improvement (stops early where ``expired()``)."""
    d = d.astype(np.int64)
    t = improve(d, nearest_neighbour(d))
    if t.size < 8:
        return from_zero(t)
    rng = np.random.default_rng(seed)
    best = length(d, t)
    for _ in range(kicks):
        if expired():
            break
        kicked = improve(d, double_bridge(t, rng))
        cost = length(d, kicked)
        if cost <= best:
            t, best = kicked, cost
    return from_zero(t)
