"""The knapsack family beyond 0-1: bounded and unbounded knapsacks (``BoundedKnapsack``) and
change-making (``ChangeMaking``): the problems, their exact reduction to 0-1 knapsacks by binary
splitting (``splitting``), the dominance of unbounded items (``dominance``) and the classic generators
(``generators``)."""

from . import generators
from .problems import BoundedKnapsack, ChangeMaking

__all__ = ["BoundedKnapsack", "ChangeMaking", "generators"]
