"""``mckp``: the multi-class 0-1 knapsack DP of [HC22], one launch per group of equal value or weight."""

from .solver import MultiClassSolver

__all__ = ["MultiClassSolver"]
