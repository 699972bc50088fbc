"""The knapsack family beyond 0-1: bounded and unbounded knapsacks (``BoundedKnapsack``), change-making
(``ChangeMaking``) and the multiple-choice knapsack (``MultipleChoice``). Beside the problems: the
exact reduction of bounded knapsacks to 0-1 knapsacks by binary splitting (``splitting``), the
dominance of unbounded items (``dominance``), the multiple-choice reduction (``choice``) and the
classic generators (``generators``)."""

from . import generators
from .problems import BoundedKnapsack, ChangeMaking, MultipleChoice

__all__ = ["BoundedKnapsack", "ChangeMaking", "MultipleChoice", "generators"]
