"""The ``choice-dp`` solver: the multiple-choice knapsack by a dense DP on the device, a class per launch."""

from .solver import ChoiceDPSolver

__all__ = ["ChoiceDPSolver"]
