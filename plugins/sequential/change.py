"""Change-making on the host: the reference dynamic program in NumPy ([MT90] Chapter 5, the forward
recursion of eq. 5.2 over binary pieces). f(j) is the fewest coins summing exactly to j; a piece of c
coins of value w makes f'(j) = min(f(j), f(j - c w) + c). One decision bit per (piece, sum) gives the
coins back."""

from __future__ import annotations

import numpy as np

from clsolve.sdk import ChangeMaking, deadline, piece_arrays

#: Fewer coins than any answer can use: marks a sum no coins make.
NONE = np.iinfo(np.int64).max // 2


def change_pieces(problem: ChangeMaking) -> list[tuple[int, int]]:
    """(coin index, coins in the piece) of every binary piece of the usable coins."""
    item, copies = piece_arrays(problem.usable)
    return list(zip(item.tolist(), copies.tolist()))


def change_bytes(problem: ChangeMaking) -> int:
    """Host bytes ``make_change`` takes: the row and a decision bit per piece and sum."""
    return 16 * problem.cells() + piece_arrays(problem.usable)[0].size * (problem.cells() // 8 + 1)


def make_change(problem: ChangeMaking, where: str = "change-making") -> np.ndarray | None:
    """The counts of a fewest-coins answer, or None where no coins sum to the capacity. The time
    limit is checked between pieces."""
    states = problem.cells()
    row = np.full(states, NONE, dtype=np.int64)
    row[0] = 0
    steps = change_pieces(problem)
    bits = []
    for k, (j, c) in enumerate(steps):
        deadline.check(f"{where}: {k} of {len(steps)} pieces")
        span = int(problem.weights[j]) * c
        candidate = row[: states - span] + c
        better = candidate < row[span:]
        row[span:] = np.where(better, candidate, row[span:])
        bits.append(np.packbits(np.concatenate((np.zeros(span, dtype=bool), better))))
    if row[-1] >= NONE:
        return None
    counts = np.zeros(problem.n, dtype=np.int64)
    left = problem.capacity
    for (j, c), packed in zip(reversed(steps), reversed(bits)):
        if (packed[left >> 3] >> (7 - (left & 7))) & 1:
            counts[j] += c
            left -= int(problem.weights[j]) * c
    if left != 0:
        raise RuntimeError(f"{where}: the walk back ended at sum {left}, not 0")
    return counts
