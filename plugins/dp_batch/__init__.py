"""``dp-batch``: many knapsacks at once, one launch per item step over all instances (paper 000 Alg. 3)."""
from .solver import KnapsackBatchSolver

__all__ = ["KnapsackBatchSolver"]
