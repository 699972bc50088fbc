"""``bnb``: breadth-first branch and bound for the 0-1 knapsack on an OpenCL device ([LE12])."""

from .solver import BranchAndBoundSolver

__all__ = ["BranchAndBoundSolver"]
