"""``dp-rows``: one kernel launch per item, the states of a row in parallel ([LLMF] Alg. 2)."""

from .solver import RowParallelSolver

__all__ = ["RowParallelSolver"]
