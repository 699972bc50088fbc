"""Host references for the grid DPs of [OM]: LCS and Held-Karp TSP, in plain Python/NumPy."""

from __future__ import annotations

import numpy as np

from clsolve.sdk import LCS, TSP, deadline

#: Largest n the host Held-Karp takes (its table is 2^(n-1) x (n-1) int64).
MAX_HOST_CITIES = 20
#: Largest m x n the host LCS takes (it keeps every bit row, m x n / 8 bytes, as Python ints).
MAX_HOST_LCS_CELLS = 4 * 10**8


def lcs_bit_rows(problem: LCS) -> list[int]:
    """Rows V_0 .. V_n of the bit-parallel LCS (Crochemore et al. 2001) as Python integers: bit i of
    V_j is 1 when D[i+1][j] == D[i][j]. Python's big integers do the carries."""
    m = problem.m
    full = (1 << m) - 1
    masks: dict[int, int] = {}
    for i, symbol in enumerate(problem.a.tolist()):
        masks[symbol] = masks.get(symbol, 0) | (1 << i)
    rows = [full]
    v = full
    for j, symbol in enumerate(problem.b.tolist()):
        if not j & 1023:
            deadline.check(f"sequential LCS: {j} of {problem.n} columns")
        match = masks.get(symbol, 0)
        u = v & match
        v = ((v + u) | (v & ~match)) & full
        rows.append(v)
    return rows


def solve_lcs(problem: LCS) -> tuple[int, np.ndarray]:
    """(length, positions) by the bit rows and a walk back from (m, n)."""
    rows = lcs_bit_rows(problem)
    a, b = problem.a.tolist(), problem.b.tolist()
    i, j = problem.m, problem.n
    pairs = []
    while i > 0 and j > 0:
        if (rows[j] >> (i - 1)) & 1:
            i -= 1
        elif a[i - 1] == b[j - 1]:
            pairs.append((i - 1, j - 1))
            i -= 1
            j -= 1
        else:
            j -= 1
    positions = np.array(pairs[::-1], dtype=np.int64).reshape(-1, 2)
    return problem.m - bin(rows[-1]).count("1"), positions


def solve_tsp(problem: TSP) -> tuple[int, np.ndarray]:
    """(length, tour) by Held-Karp over all subsets of cities 1..n-1 (eq. 6 of [OM])."""
    n = problem.n
    members = n - 1
    exact = problem.longest_tour_bound >= 2**61  # a path's cost plus one edge could pass int64: Python ints
    d = problem.distances.astype(object) if exact else problem.distances.astype(np.int64)
    # above any path's cost (each city's costliest edge, summed), so "unreached" never wins a minimum
    infinite = problem.longest_tour_bound + 1 if exact else np.iinfo(np.int64).max // 4
    table = np.full((1 << members, members), infinite, dtype=d.dtype)
    parent = np.zeros((1 << members, members), dtype=np.int8)
    for c in range(members):
        table[1 << c, c] = d[0, c + 1]
    subsets = np.arange(1 << members)
    sizes = np.array([bin(s).count("1") for s in range(1 << members)])
    for k in range(2, members + 1):
        deadline.check(f"sequential Held-Karp: subsets of size {k - 1} of {members} done")
        level = subsets[sizes == k]
        for i in range(members):
            with_i = level[(level >> i) & 1 == 1]
            previous = with_i ^ (1 << i)
            candidates = table[previous] + d[1:, i + 1][None, :]
            present = ((previous[:, None] >> np.arange(members)[None, :]) & 1) == 1
            candidates = np.where(present, candidates, infinite)
            best = (
                np.array([min(range(members), key=row.__getitem__) for row in candidates]) if exact else candidates.argmin(axis=1)
            )
            table[with_i, i] = candidates[np.arange(len(with_i)), best]
            parent[with_i, i] = best
    full = (1 << members) - 1
    closing = [table[full, c] + d[c + 1, 0] for c in range(members)]
    end = int(np.argmin(np.array(closing, dtype=object)))
    tour, subset, current = [], full, end
    while True:
        tour.append(current + 1)
        if subset == 1 << current:
            break
        previous = int(parent[subset, current])
        subset ^= 1 << current
        current = previous
    return int(closing[end]), np.array([0] + tour[::-1], dtype=np.int64)
