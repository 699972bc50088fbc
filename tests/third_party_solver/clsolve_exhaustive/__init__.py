"""A third-party clsolve plugin used by the tests: enumerate every subset (n <= 20) on the host."""

import itertools
import time

import numpy as np

from clsolve import HostSolver, Knapsack, Plan, Solution, Timings


class ExhaustiveSolver(HostSolver):
    name = "exhaustive"
    summary = "every subset on the host (test plugin, n <= 20, any m)"

    def accepts(self, problem):
        if not isinstance(problem, Knapsack):
            return "knapsack only"
        return None if problem.n <= 20 else f"n = {problem.n} > 20"

    def plan(self, problem, device=None):
        return Plan(solver=self.name, cell_updates=2**problem.n, seconds=2**problem.n * 1e-5)

    def solve(self, problem, device, plan):
        start = time.perf_counter()
        best, best_mask = -1, None
        for mask in itertools.product((False, True), repeat=problem.n):
            chosen = np.array(mask)
            if np.all(problem.weights[chosen].sum(axis=0) <= problem.capacities):
                value = int(problem.profits[chosen].sum())
                if value > best:
                    best, best_mask = value, chosen
        return Solution(best, best_mask, True, self.name, "", Timings(host=time.perf_counter() - start))
