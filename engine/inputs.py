"""What the public calls take, checked before anything runs: a wrong type is a clsolve error that says
what was expected, never an AttributeError from deep inside."""

from __future__ import annotations

import numbers
from collections.abc import Iterable

from .errors import InvalidOptionError, InvalidProblemError
from .family.problems import BoundedKnapsack, ChangeMaking, MultipleChoice, MultipleKnapsack
from .problems import LCS, TSP, Knapsack

PROBLEM_TYPES = (Knapsack, BoundedKnapsack, ChangeMaking, MultipleChoice, MultipleKnapsack, LCS, TSP)
_EXPECTED = (
    "a problem (clsolve.Knapsack, clsolve.BoundedKnapsack, clsolve.ChangeMaking, clsolve.MultipleChoice, "
    "clsolve.MultipleKnapsack, clsolve.LCS or clsolve.TSP)"
)


def problem(value, where: str = "problem") -> None:
    """Refuse anything but a problem; a list or tuple of problems points to ``solve_many``."""
    if isinstance(value, PROBLEM_TYPES):
        return
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, PROBLEM_TYPES) for v in value):
        raise InvalidProblemError(
            f"{where}: expected {_EXPECTED}, got a {type(value).__name__} of "
            f"{len(value)} problems: use clsolve.solve_many for several"
        )
    raise InvalidProblemError(f"{where}: expected {_EXPECTED}, got {_kind(value)}")


def problems(values) -> list:
    """``values`` as a list of problems (any iterable of them); a single problem points to ``solve``."""
    if isinstance(values, PROBLEM_TYPES):
        raise InvalidProblemError(
            f"problems: expected a sequence of problems, got one {type(values).__name__}: use clsolve.solve for one problem"
        )
    if isinstance(values, (str, bytes, dict)) or not isinstance(values, Iterable):
        raise InvalidProblemError(f"problems: expected a sequence of problems, got {_kind(values)}")
    out = list(values)
    for index, value in enumerate(out):
        problem(value, f"problems[{index}]")
    return out


def solver_name(value) -> None:
    if not isinstance(value, str):
        raise InvalidOptionError(f"solver must be an installed solver's name or 'auto', got {_kind(value)}")


def host_memory_limit(value) -> int | None:
    """The ``host_memory_limit`` of a call: None, or a positive number of bytes."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or int(value) < 1:
        raise InvalidOptionError(f"host_memory_limit must be a positive number of bytes (an integer) or None, got {_kind(value)}")
    return int(value)


def _kind(value) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text[:60] + '...' if len(text) > 60 else text}"
