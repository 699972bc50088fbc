"""``mkp-bnb``: branch and bound with surrogate bounds for the multidimensional 0-1 knapsack."""

from .solver import MultidimensionalBranchAndBound

__all__ = ["MultidimensionalBranchAndBound"]
