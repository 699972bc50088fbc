from .solver import BoundedDPSolver

__all__ = ["BoundedDPSolver"]
