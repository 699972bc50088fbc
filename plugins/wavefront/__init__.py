"""The ``wavefront`` solver: [OM]'s generic anti-diagonal DP model (LCS, 0-1 knapsack, Held-Karp TSP)."""

from .solver import WavefrontSolver

__all__ = ["WavefrontSolver"]
