"""The ``wavefront`` solver: paper 004's generic anti-diagonal DP model (LCS, 0-1 knapsack, Held-Karp TSP)."""
from .solver import WavefrontSolver

__all__ = ["WavefrontSolver"]
