"""The multiple-choice knapsack on the host: the reference dynamic program in NumPy, a class at a
time over every item of the class as given (no reduction), f_k(j) = max over i of f_{k-1}(j - w_i) +
p_i; each state keeps its choice for the walk back."""

from __future__ import annotations

import numpy as np

from clsolve.sdk import MultipleChoice, deadline

NONE = np.iinfo(np.int64).min // 4


def choice_bytes(problem: MultipleChoice) -> int:
    """Host bytes ``choose``: two rows and a 32-bit choice per class and state."""
    return 16 * problem.cells() + 4 * problem.k * problem.cells()


def choose(problem: MultipleChoice, where: str = "multiple-choice") -> np.ndarray | None:
    """The items of an optimum (a flag per item), or None where no choice fits."""
    states = problem.cells()
    row = np.zeros(states, dtype=np.int64)
    picks = np.empty((problem.k, states), dtype=np.int32)
    for k, members in enumerate(problem.members()):
        deadline.check(f"{where}: {k} of {problem.k} classes")
        best = row.copy() if problem.at_most_one else np.full(states, NONE, dtype=np.int64)
        pick = np.full(states, -1, dtype=np.int32)
        for i in members.tolist():
            w, p = int(problem.weights[i]), int(problem.profits[i])
            if w >= states:
                continue
            candidate = np.where(row[: states - w] > NONE, row[: states - w] + p, NONE)
            better = candidate > best[w:]
            best[w:][better] = candidate[better]
            pick[w:][better] = i
        row, picks[k] = best, pick
    if row[-1] <= NONE:
        return None
    selected = np.zeros(problem.n, dtype=bool)
    left = problem.capacity
    for k in range(problem.k - 1, -1, -1):
        i = int(picks[k, left])
        if i >= 0:
            selected[i] = True
            left -= int(problem.weights[i])
    return selected
