"""Search nodes and [VJ82]'s branching on edges.

A node fixes edges: ``required`` and ``forbidden`` hold edge codes u n + v (u < v). A vertex with two
required edges has every other edge forbidden without listing them (the kernel infers it); the edge
that would close a required path early into a cycle is listed forbidden. A node's 1-tree that is not
a tour has a vertex v of degree 3 or more with at most one required edge; with e1, e2 the two
cheapest (penalised) free tree edges at v, its children split the tours without overlap:

    e1 forbidden  |  e1 required, e2 forbidden  |  e1 and e2 required          (v with no required edge)
    e1 forbidden  |  e1 required                                               (v with one)
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(order=True)
class Node:
    """A search node: ``bound`` (its parent's, until evaluated) orders the open nodes."""

    bound: int
    serial: int
    required: tuple[int, ...] = field(compare=False)
    forbidden: tuple[int, ...] = field(compare=False)
    pi: np.ndarray = field(compare=False, repr=False)
    depth: int = field(default=0, compare=False)


def code(u: int, v: int, n: int) -> int:
    return min(u, v) * n + max(u, v)


def tree_edges(parent: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The 1-tree's n edges from the kernel's parent array (entries 0 and 1: vertex 0's neighbours)."""
    n = parent.size
    a = np.concatenate(([0, 0], np.arange(2, n)))
    return a, parent.astype(np.int64)


def tour_of(parent: np.ndarray) -> np.ndarray:
    """The cycle a 1-tree of degrees 2 is, from vertex 0."""
    n = parent.size
    a, b = tree_edges(parent)
    neighbours: list[list[int]] = [[] for _ in range(n)]
    for u, v in zip(a.tolist(), b.tolist()):
        neighbours[u].append(v)
        neighbours[v].append(u)
    tour, previous = [0], -1
    while len(tour) < n:
        here = tour[-1]
        nxt = neighbours[here][0] if neighbours[here][0] != previous else neighbours[here][1]
        previous = here
        tour.append(nxt)
    return np.asarray(tour, dtype=np.int64)


def _paths(required: tuple[int, ...], n: int) -> tuple[np.ndarray, dict[int, int], bool]:
    """Required degrees, each required path's far end by its end, and whether the edges are a forest
    of paths."""
    degree = np.zeros(n, dtype=np.int64)
    neighbours: dict[int, list[int]] = {}
    for c in required:
        u, v = divmod(c, n)
        degree[u] += 1
        degree[v] += 1
        neighbours.setdefault(u, []).append(v)
        neighbours.setdefault(v, []).append(u)
    if (degree > 2).any():
        return degree, {}, False
    ends, seen = {}, set()
    for start in (int(u) for u in np.flatnonzero(degree == 1)):
        if start in seen:
            continue
        previous, here = -1, start
        while True:
            seen.add(here)
            step = [w for w in neighbours[here] if w != previous]
            if not step:
                break
            previous, here = here, step[0]
        ends[start], ends[here] = here, start
    cyclic = any(degree[u] == 2 and u not in seen for u in neighbours)
    return degree, ends, not cyclic


def fixed(required: tuple[int, ...], forbidden: tuple[int, ...], n: int) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """The edges with each required path's closing edge forbidden (unless the path holds every vertex:
    then it is the tour), or None where no tour meets them."""
    if set(required) & set(forbidden):
        return None
    degree, ends, forest = _paths(required, n)
    if not forest:
        return None if len(required) != n or (degree != 2).any() or not _one_cycle(required, n) else (required, forbidden)
    closing = {code(a, b, n) for a, b in ends.items() if a < b and len(required) < n - 1} - set(required)
    return required, tuple(sorted(set(forbidden) | closing))


def _one_cycle(required: tuple[int, ...], n: int) -> bool:
    parent = list(range(n))

    def root(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for c in required:
        u, v = divmod(c, n)
        parent[root(u)] = root(v)
    return len({root(x) for x in range(n)}) == 1


def children(node: Node, parent: np.ndarray, cost: np.ndarray, serial: int) -> list[Node]:
    """The node's children by [VJ82]'s rule over its 1-tree ``parent`` (e1, e2 chosen by ``cost``
    penalised by ``node.pi``), with fixed edges checked (``fixed``); serials from ``serial`` on."""
    n = parent.size
    a, b = tree_edges(parent)
    degree = np.bincount(np.concatenate((a, b)), minlength=n)
    required = set(node.required)
    codes = np.minimum(a, b) * n + np.maximum(a, b)
    free = np.array([c not in required for c in codes.tolist()])
    at_v = np.bincount(np.concatenate((a[~free], b[~free])), minlength=n)
    candidates = np.flatnonzero((degree > 2) & (at_v <= 1))
    v = int(candidates[np.argmax(degree[candidates])])
    incident = np.flatnonzero(free & ((a == v) | (b == v)))
    ends = (a[incident], b[incident])
    pi = node.pi.astype(np.int64)
    incident = incident[np.argsort(cost[ends] + pi[ends[0]] + pi[ends[1]], kind="stable")]
    e1, e2 = int(codes[incident[0]]), int(codes[incident[1]])
    if at_v[v] == 0:
        splits = [((), (e1,)), ((e1,), (e2,)), ((e1, e2), ())]
    else:
        splits = [((), (e1,)), ((e1,), ())]
    out: list[Node] = []
    for add_required, add_forbidden in splits:
        edges = fixed(tuple(sorted(required | set(add_required))), tuple(sorted(set(node.forbidden) | set(add_forbidden))), n)
        if edges is not None:
            out.append(Node(node.bound, serial + len(out), edges[0], edges[1], node.pi, node.depth + 1))
    return out
