from .solver import StateListSolver

__all__ = ["StateListSolver"]
