"""Validation of solver options, shared by every plugin: each check names the option, what it takes
and what it got, and raises :class:`~clsolve.errors.InvalidOptionError`.

Numbers are taken as Python or NumPy integers only (``1.5``, ``True``, ``nan`` and strings are
refused: an option silently rounded or read as truthy would be a flag that does something else).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Literal, overload

from .errors import InvalidOptionError


def _refuse(name: str, expected: str, value) -> InvalidOptionError:
    return InvalidOptionError(f"{name} must be {expected}, got {value!r}")


@overload
def integer(name: str, value, minimum: int | None = None, maximum: int | None = None, none: Literal[False] = False) -> int: ...
@overload
def integer(name: str, value, minimum: int | None = None, maximum: int | None = None, *, none: bool) -> int | None: ...
def integer(name: str, value, minimum: int | None = None, maximum: int | None = None, none: bool = False) -> int | None:
    """``value`` as an int in [minimum, maximum]; None passes where ``none``."""
    if value is None and none:
        return None
    bounds = (f" >= {minimum}" if minimum is not None else "") + (f" and <= {maximum}" if maximum is not None else "")
    expected = f"an integer{bounds}" + (" or None" if none else "")
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise _refuse(name, expected, value)
    number = int(value)
    if (minimum is not None and number < minimum) or (maximum is not None and number > maximum):
        raise _refuse(name, expected, value)
    return number


def power_of_two(name: str, value, none: bool = True) -> int | None:
    """A positive power of two (work-group sizes: the kernels reduce in halves), or None."""
    number = integer(name, value, minimum=1, none=none)
    if number is not None and number & (number - 1):
        raise _refuse(name, "a power of two (the kernels reduce in halves)" + (" or None" if none else ""), value)
    return number


def flag(name: str, value) -> bool:
    """True or False (NumPy booleans too); 0, 1, strings and None are refused."""
    if not isinstance(value, (bool,)) and type(value).__name__ != "bool_":
        raise _refuse(name, "True or False", value)
    return bool(value)


def choice(name: str, value, allowed: Sequence):
    """One of ``allowed`` (None, strings or integers; ``True`` is not 1 here)."""
    if value is None or isinstance(value, str):
        found = value in allowed
    else:
        found = not isinstance(value, bool) and isinstance(value, numbers.Integral) and int(value) in allowed
    if not found:
        raise _refuse(name, "one of " + ", ".join(map(str, allowed)), value)
    return value if value is None or isinstance(value, str) else int(value)


def seconds(name: str, value, none: bool = True) -> float | None:
    """A finite number of seconds >= 0, or None."""
    if value is None and none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value) or value < 0:
        raise _refuse(name, "a finite number of seconds >= 0" + (" or None" if none else ""), value)
    return float(value)
