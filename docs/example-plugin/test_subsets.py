"""The example plugin against clsolve's sequential solver, without installing it
(``registry.testing``), on whatever device clsolve picks (PoCL's CPU device where there is no GPU)."""

import numpy as np
from clsolve_subsets import SubsetSolver

import clsolve
from clsolve.plugin import registry
from clsolve_plugins.sequential import SequentialSolver


def test_subsets_matches_sequential():
    rng = np.random.default_rng(7)
    with registry.testing({"subsets": SubsetSolver, "sequential": SequentialSolver}):
        for _ in range(20):
            n, m = int(rng.integers(1, 13)), int(rng.integers(1, 3))
            weights = rng.integers(0, 30, (n, m))
            problem = clsolve.Knapsack(rng.integers(0, 50, n), weights, weights.sum(axis=0) // 2)
            found = clsolve.solve(problem, solver="subsets")  # checked by the engine
            assert found.value == clsolve.solve(problem, solver="sequential").value


def test_subsets_refuses_what_it_cannot_solve():
    with registry.testing({"subsets": SubsetSolver}):
        big = clsolve.Knapsack(np.ones(30, int), np.ones(30, int), 10)
        try:
            clsolve.solve(big, solver="subsets")
        except clsolve.UnsupportedProblemError as error:
            assert "n = 30 > 24" in str(error)
        else:
            raise AssertionError("n = 30 was not refused")
