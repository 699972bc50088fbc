"""``mkp-batch``: branch and bound for many small multidimensional 0-1 knapsacks, a work-group each."""

from .solver import ManySmallBranchAndBound

__all__ = ["ManySmallBranchAndBound"]
