"""The knapsack family beyond 0-1: bounded and unbounded knapsacks (``BoundedKnapsack``), change-making
(``ChangeMaking``), the multiple-choice knapsack (``MultipleChoice``) and the multiple knapsack
(``MultipleKnapsack``). Beside the problems: the exact reduction of bounded knapsacks to 0-1 knapsacks
by binary splitting (``splitting``), the dominance of unbounded items (``dominance``), the
multiple-choice reduction (``choice``) and the classic generators (``generators``)."""

from . import generators
from .problems import BoundedKnapsack, ChangeMaking, MultipleChoice, MultipleKnapsack

__all__ = ["BoundedKnapsack", "ChangeMaking", "MultipleChoice", "MultipleKnapsack", "generators"]
