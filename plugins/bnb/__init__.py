"""``bnb``: breadth-first branch and bound for the 0-1 knapsack on an OpenCL device (paper 003)."""
from .solver import BranchAndBoundSolver

__all__ = ["BranchAndBoundSolver"]
