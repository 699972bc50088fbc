"""Search nodes and [VJ82]'s branching on edges.

A node fixes edges: its required edges as each vertex's required neighbours (``mate``: two slots per
vertex, -1 where empty) and the ends of the paths they form (``ends``: each end's far end and the
path's vertex count), and its forbidden edges as codes u n + v (u < v). A vertex with two required
edges has every other edge forbidden without listing them (the kernel infers it); the edge that would
close a required path early into a cycle is listed forbidden as the path forms.

A node's 1-tree that is not a tour has a vertex v of degree 3 or more with at most one required edge
(``branching``); with e1, e2 the two cheapest (penalised) free tree edges at v, its children split the
tours without overlap:

    e1 forbidden  |  e1 required, e2 forbidden  |  e1 and e2 required          (v with no required edge)
    e1 forbidden  |  e1 required                                               (v with one)
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


def code(u: int, v: int, n: int) -> int:
    return min(u, v) * n + max(u, v)


@dataclass(order=True)
class Node:
    """A search node: ``bound`` (its parent's, until evaluated) orders the open nodes."""

    bound: int
    serial: int
    mate: np.ndarray = field(compare=False, repr=False)
    ends: dict[int, tuple[int, int]] = field(compare=False, repr=False)
    forbidden: tuple[int, ...] = field(compare=False)
    pi: np.ndarray = field(compare=False, repr=False)
    depth: int = field(default=0, compare=False)

    @property
    def required(self) -> tuple[int, ...]:
        n = self.mate.size // 2
        v = np.repeat(np.arange(n), 2)
        keep = self.mate > v  # each edge once, from its lower end
        return tuple((v[keep] * n + self.mate[keep]).tolist())


def root(n: int, required: tuple[int, ...], pi: np.ndarray, bound: int) -> Node | None:
    """The root node fixing ``required`` (None where no tour takes them all)."""
    node = Node(bound, 0, np.full(2 * n, -1, dtype=np.int32), {}, (), pi)
    for c in required:
        grown = require(node, c // n, c % n)
        if grown is None:
            return None
        node.mate, node.ends, node.forbidden = grown
    return node


def require(node: Node, u: int, v: int) -> tuple[np.ndarray, dict, tuple[int, ...]] | None:
    """The node's fixings with edge uv required too: its mates, path ends and forbidden edges (the new
    path's closing edge among them unless it holds every vertex), or None where no tour takes them."""
    mate, n = node.mate, node.mate.size // 2
    if mate[2 * u + 1] >= 0 or mate[2 * v + 1] >= 0 or (u * n + v if u < v else v * n + u) in node.forbidden:
        return None
    ends = node.ends
    far_u, size_u = ends.get(u, (u, 1))
    far_v, size_v = ends.get(v, (v, 1))
    closing: tuple[int, ...] = ()
    if far_u == v:  # u and v end one path: the edge closes it, a tour only where it holds every vertex
        if size_u != n:
            return None
        ends = {}
    else:
        ends = dict(ends)
        ends.pop(u, None)
        ends.pop(v, None)
        size = size_u + size_v
        ends[far_u], ends[far_v] = (far_v, size), (far_u, size)
        if 3 <= size < n:  # a lone edge closes nothing
            closing = (far_u * n + far_v if far_u < far_v else far_v * n + far_u,)
    grown = mate.copy()
    grown[2 * u + (mate[2 * u] >= 0)] = v
    grown[2 * v + (mate[2 * v] >= 0)] = u
    return grown, ends, node.forbidden + closing


def encoded(batch: list[Node]) -> tuple[np.ndarray, np.ndarray]:
    """A batch's fixed edges as the kernel reads them: codes (2 (u n + v) + 0 for a required edge, + 1
    for a forbidden one), node k's from first[k] to first[k + 1]."""
    mates = np.stack([node.mate for node in batch]).astype(np.int64)
    n = mates.shape[1] // 2
    v = np.repeat(np.arange(n), 2)[None, :]
    keep = mates > v  # each required edge once, from its lower end
    required = 2 * (np.broadcast_to(v, mates.shape)[keep] * n + mates[keep])
    owner = np.nonzero(keep)[0]
    sizes = [len(node.forbidden) for node in batch]
    forbidden = 2 * np.fromiter((c for node in batch for c in node.forbidden), dtype=np.int64, count=sum(sizes)) + 1
    codes = np.concatenate((required, forbidden))
    order = np.argsort(np.concatenate((owner, np.repeat(np.arange(len(batch)), sizes))), kind="stable")
    counts = keep.sum(axis=1) + np.asarray(sizes, dtype=np.int64)
    first = np.concatenate(([0], np.cumsum(counts))).astype(np.int32)
    return codes[order].astype(np.int32), first


def tree_edges(parent: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The 1-tree's n edges from the kernel's parent array (entries 0 and 1: vertex 0's neighbours)."""
    n = parent.shape[-1]
    a = np.concatenate(([0, 0], np.arange(2, n)))
    return a, parent.astype(np.int64)


def tour_of(parent: np.ndarray) -> np.ndarray:
    """The cycle a 1-tree of degrees 2 is, from vertex 0."""
    found = cycle(*tree_edges(parent), parent.size)
    assert found is not None
    return found


def cycle(a: np.ndarray, b: np.ndarray, n: int) -> np.ndarray | None:
    """The vertices, from vertex 0, of the one cycle through all n that edges a[k]-b[k] form (None
    where they form anything else)."""
    neighbours: list[list[int]] = [[] for _ in range(n)]
    for u, v in zip(a.tolist(), b.tolist()):
        neighbours[u].append(v)
        neighbours[v].append(u)
    if any(len(adjacent) != 2 for adjacent in neighbours):
        return None
    tour, previous = [0], -1
    while len(tour) < n:
        here = tour[-1]
        nxt = neighbours[here][0] if neighbours[here][0] != previous else neighbours[here][1]
        if nxt == 0:
            return None  # a shorter cycle
        previous = here
        tour.append(nxt)
    return np.asarray(tour, dtype=np.int64)


def branching(trees: np.ndarray, pis: np.ndarray, mates: np.ndarray, cost: np.ndarray) -> tuple[np.ndarray, ...]:
    """For each of a batch's nodes (rows: 1-trees, penalties, mates), the branching vertex v, its
    required edge count, and the ends of e1 and e2 (a1, b1, a2, b2)."""
    count, n = trees.shape
    a = np.broadcast_to(np.concatenate(([0, 0], np.arange(2, n))), (count, n))
    b = trees.astype(np.int64)
    rows = np.arange(count)[:, None]
    degree = np.zeros((count, n), dtype=np.int64)
    np.add.at(degree, (np.broadcast_to(rows, (count, n)), a), 1)
    np.add.at(degree, (rows.repeat(n, 1), b), 1)
    pair = mates.reshape(count, n, 2)
    fixed = (pair >= 0).sum(axis=2)
    v = np.argmax(np.where(fixed <= 1, degree, -1), axis=1)
    required = (pair[rows, a, 0] == b) | (pair[rows, a, 1] == b)
    incident = ((a == v[:, None]) | (b == v[:, None])) & ~required
    pi = pis.astype(np.int64)
    price = np.where(incident, cost[a, b] + pi[rows, a] + pi[rows, b], np.iinfo(np.int64).max)
    order = np.argsort(price, axis=1, kind="stable")[:, :2]
    first, second = order[:, 0], order[:, 1]
    flat = np.arange(count)
    return v, fixed[flat, v], a[flat, first], b[flat, first], a[flat, second], b[flat, second]


def children(node: Node, has_required: int, e1: tuple[int, int], e2: tuple[int, int], serial: int) -> list[Node]:
    """The node's children by [VJ82]'s rule (``branching`` chose e1, e2), those no tour meets left out;
    serials from ``serial`` on."""
    n = node.mate.size // 2
    out: list[Node] = []

    def add(mate: np.ndarray, ends: dict, forbidden: tuple[int, ...]) -> None:
        out.append(Node(node.bound, serial + len(out), mate, ends, forbidden, node.pi, node.depth + 1))

    c1, c2 = code(*e1, n), code(*e2, n)
    add(node.mate, node.ends, node.forbidden + (c1,))
    with_e1 = require(node, *e1)
    if with_e1 is None:
        return out
    if has_required:
        add(*with_e1)
        return out
    add(with_e1[0], with_e1[1], with_e1[2] + (c2,))
    partial = Node(node.bound, 0, *with_e1, node.pi)
    both = require(partial, *e2)
    if both is not None:
        add(*both)
    return out
