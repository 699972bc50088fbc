"""The ``subset-sum`` solver: 0-1 knapsacks whose profits equal their weights, by words of reachable
sums on the device ([Pisinger03])."""

from .solver import SubsetSumSolver

__all__ = ["SubsetSumSolver"]
