"""Branch and bound over batches of nodes: paper 003's breadth-first step ([LE12]: branch, bound,
keep the promising) applied to a batch of nodes at a time, the deepest batch first.

A node is a feasible partial solution: the items before its level decided (one bit each), its
profit and its residual capacity in every dimension. Expanding a batch decides the next item for
all of its nodes at once: the child without the item always exists, the child with it where it
fits every dimension; children whose surrogate bound does not beat the incumbent are dropped.
Every node is a feasible solution (the undecided items left out), so the incumbent is the best
profit met, improved by a greedy completion of the best node of each batch.

Batches are taken from a stack, deepest first, and a batch of more than ``batch`` nodes is cut into
pieces: the search goes deep early (incumbents come from the leaves) while every step still works
on whole arrays, and the nodes held stay within about n x batch.
"""

from __future__ import annotations

import numpy as np

from clsolve.sdk import Outcome, Relaxation, deadline, mkp_greedy

#: First guess of a batch's cost (seconds of overhead including a refit of the multipliers, seconds per
#: node), the cost per node then measured: under a time limit, a batch predicted to end past it is not
#: started.
FIRST_RATE = (3e-3, 2e-6)
#: Batches this large or larger teach the rate its cost per node.
RATE_NODES = 256


class Nodes:
    """A batch of nodes at one level, one row each: profit, bound, the m residual capacities, then the
    decision bits (int64 words; bit j of the row's bits is item j, in branching order)."""

    def __init__(self, level: int, table: np.ndarray, m: int):
        self.level, self.table, self.m = level, table, m

    @property
    def count(self) -> int:
        return int(self.table.shape[0])

    @property
    def profit(self) -> np.ndarray:
        return self.table[:, 0]

    @property
    def bound(self) -> np.ndarray:
        return self.table[:, 1]

    @property
    def residual(self) -> np.ndarray:
        return self.table[:, 2 : 2 + self.m]

    @property
    def bits(self) -> np.ndarray:
        return self.table[:, 2 + self.m :]

    def take(self, keep) -> Nodes:
        return Nodes(self.level, self.table[keep], self.m)


class Search:
    """The search of one problem in the relaxation's item order (weights (n, m), capacities (m,))."""

    def __init__(
        self,
        profits: np.ndarray,
        weights: np.ndarray,
        capacities: np.ndarray,
        relaxation: Relaxation,
        batch: int,
        max_nodes: int,
        floor: int = -1,
    ):
        """``floor``: a value the search need not reach (an incumbent held elsewhere); ``found`` says
        whether it went past it."""
        order = relaxation.order
        self.p, self.w, self.c = profits[order].astype(np.int64), weights[order].astype(np.int64), capacities
        self.relaxation, self.batch, self.max_nodes = relaxation, batch, max_nodes
        self.n, self.m, self.words = self.p.size, self.w.shape[1], max(1, -(-self.p.size // 64))
        self.best, self.best_bits, self.found = floor, np.zeros(self.words, np.uint64), False

    def greedy(self, level: int, profit: int, residual: np.ndarray, bits: np.ndarray) -> None:
        """Complete one node greedily in branching order (``greedy.fill``), and keep the completion if
        it beats the incumbent."""
        taken = level + mkp_greedy.fill(self.w[level:], residual, np.arange(self.n - level))
        profit += int(self.p[taken].sum())
        if profit > self.best:
            bits = bits.copy()
            np.bitwise_or.at(bits, taken >> 6, np.left_shift(np.uint64(1), (taken & 63).astype(np.uint64)))
            self.best, self.best_bits, self.found = profit, bits, True

    def expand(self, nodes: Nodes) -> Nodes:
        """Both children of every node, on item ``nodes.level``; the promising ones."""
        k, m = nodes.level, self.m
        fits = (nodes.residual >= self.w[k]).all(axis=1)
        taken = nodes.table[fits]
        taken[:, 0] += self.p[k]
        taken[:, 2 : 2 + m] -= self.w[k]
        taken[:, 2 + m + (k >> 6)] |= np.int64(1 << (k & 63)) if k & 63 != 63 else np.int64(-(2**63))
        children = Nodes(k + 1, np.concatenate([taken, nodes.table]), m)
        profit = children.profit
        if profit.size and int(profit.max()) > self.best:
            at = int(np.argmax(profit))
            self.best, self.best_bits, self.found = int(profit[at]), children.bits[at].view(np.uint64).copy(), True
        children.table[:, 1] = self.relaxation.bounds(k + 1, profit, children.residual)
        return children.take(children.bound > self.best)

    def run(self) -> Outcome:
        root = Nodes(0, np.zeros((1, 2 + self.m + self.words), np.int64), self.m)
        root.table[0, 2 : 2 + self.m] = self.c
        root.table[:, 1] = self.relaxation.bounds(0, root.profit, root.residual)
        self.greedy(0, 0, self.c, np.zeros(self.words, np.uint64))
        stack = [root] if int(root.bound[0]) > self.best else []
        held, made, batches, longest, stop = 1, 1, 0, 1, ""
        rate = deadline.Rate(*FIRST_RATE)
        while stack:
            if deadline.expired() or not deadline.allows(rate.predict(stack[-1].count)):
                stop = f"time limit of {deadline.seconds():g} s reached"
                break
            watch = deadline.Stopwatch()
            nodes = stack.pop()
            held -= nodes.count
            nodes = nodes.take(nodes.bound > self.best)  # the incumbent may have moved since
            if not nodes.count or nodes.level >= self.n:
                continue
            children = self.expand(nodes)
            batches, made = batches + 1, made + 2 * nodes.count
            if children.count:
                top = int(np.argmax(children.bound))
                self.greedy(children.level, int(children.profit[top]), children.residual[top], children.bits[top].view(np.uint64))
                if held + children.count > self.max_nodes:
                    stack.append(children)
                    held += children.count
                    stop = f"the open nodes would pass max_nodes = {self.max_nodes}"
                    break
                if children.count > self.batch:
                    children = children.take(np.argsort(-children.bound, kind="stable"))
                pieces = [slice(start, start + self.batch) for start in range(0, children.count, self.batch)]
                stack.extend(children.take(piece) for piece in reversed(pieces))  # the best bounds on top
                held += children.count
                longest = max(longest, held)
            if nodes.count >= RATE_NODES:  # a small batch's cost is its fixed part (a refit, a sort)
                rate.observe(nodes.count, watch.seconds)
        open_bound = max((int(b.bound.max()) for b in stack if b.count), default=self.best)
        chosen = np.unpackbits(self.best_bits.view(np.uint8), bitorder="little")[: self.n].astype(bool)
        bound = max(self.best, open_bound) if stop else self.best
        return Outcome(self.best, chosen, not stop, bound, self.found, made, batches, longest, stop)
