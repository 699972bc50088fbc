"""``dp-batch``: many knapsacks at once, one launch per item step over all instances ([LLMF] Alg. 3)."""

from .solver import KnapsackBatchSolver

__all__ = ["KnapsackBatchSolver"]
