"""The ``choice-states`` solver: the multiple-choice knapsack by state lists pruned by the Lagrangian bound."""

from .solver import ChoiceStatesSolver

__all__ = ["ChoiceStatesSolver"]
