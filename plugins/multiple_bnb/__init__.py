"""The ``multiple-bnb`` solver: the multiple knapsack by depth-first branch and bound on the host."""

from .solver import MultipleBranchAndBound

__all__ = ["MultipleBranchAndBound"]
