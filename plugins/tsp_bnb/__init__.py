"""The ``tsp-bnb`` solver: TSP and ATSP by branch and bound with Held-Karp 1-tree bounds on the device."""

from .solver import TSPBranchAndBound

__all__ = ["TSPBranchAndBound"]
