"""Fixing edges out by the root's 1-tree ([VJ82], Section 3): with penalties pi and the 1-tree T of
bound L, the best 1-tree that takes a non-tree edge uv costs at least

    L + (c_uv + pi_u + pi_v) - (the dearest free edge on T's path from u to v)

(for an edge at vertex 0, less the dearer of vertex 0's two free tree edges). Where that passes what
a tour better than the incumbent may cost, no such tour takes uv, and the edge leaves the graph."""

from __future__ import annotations

import numpy as np

from .device import INF
from .nodes import code, tree_edges

#: Below every weight: a required tree edge, which no exchange removes.
NEVER = -(2**62)


def _penalised(cost: np.ndarray, pi: np.ndarray) -> np.ndarray:
    return np.where(cost == INF, INF, cost + pi[:, None] + pi[None, :])


def _path_maxima(parent: np.ndarray, weight: np.ndarray, required: set[int]) -> np.ndarray:
    """M[u, v]: the dearest free edge on the tree path between u and v (vertices 1 .. n-1)."""
    n = parent.size
    children: list[list[int]] = [[] for _ in range(n)]
    for v in range(2, n):
        children[int(parent[v])].append(v)
    out = np.full((n, n), NEVER, dtype=np.int64)
    visited = [1]
    queue = list(children[1])
    while queue:
        v = queue.pop()
        p = int(parent[v])
        edge = NEVER if min(v, p) * n + max(v, p) in required else int(weight[v, p])
        row = np.maximum(out[p, visited], edge)
        out[v, visited] = row
        out[visited, v] = row
        visited.append(v)
        queue.extend(children[v])
    return out


def forbidden(
    cost: np.ndarray, pi: np.ndarray, parent: np.ndarray, bound: int, upper: int, required: tuple[int, ...]
) -> np.ndarray:
    """A mask of the edges no tour costing at most ``upper`` (scaled) takes, from the root's penalties
    ``pi``, 1-tree ``parent`` and ``bound`` (scaled)."""
    n = cost.shape[0]
    weight = _penalised(cost.astype(np.int64), pi.astype(np.int64))
    fixed = set(required)
    maxima = _path_maxima(parent, weight, fixed)
    a, b = tree_edges(parent)
    zero = [int(weight[0, v]) for v in parent[:2].tolist() if code(0, int(v), n) not in fixed]
    maxima[0, 1:] = max(zero) if zero else NEVER
    maxima[1:, 0] = maxima[0, 1:]
    with np.errstate(over="ignore"):
        raised = np.where(maxima == NEVER, np.iinfo(np.int64).max, bound + weight - maxima)
    mask = (raised > upper) & (cost != INF)
    mask[a, b] = False
    mask[b, a] = False
    for c in fixed:
        u, v = divmod(c, n)
        mask[u, v] = mask[v, u] = False
    np.fill_diagonal(mask, False)
    return mask
