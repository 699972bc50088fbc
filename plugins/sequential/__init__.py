"""``sequential``: the CPU reference DP (Algorithm 1 of [LLMF]), for m = 1..3, with the items."""

from .solver import SequentialSolver

__all__ = ["SequentialSolver"]
