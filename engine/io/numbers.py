"""Numbers read from text: exact, and refused before they are built when far out of range."""

from __future__ import annotations

import math
import re
from fractions import Fraction

#: A decimal number as the readers take it: ASCII digits with an optional point and exponent.
_DECIMAL = re.compile(r"[+-]?(?:([0-9]+)(?:\.([0-9]*))?|\.([0-9]+))(?:[eE]([+-]?[0-9]+))?")
#: Numbers whose integer part would pass this many digits are refused before they are built
#: (every value clsolve takes is below 2^62, 19 digits; an exponent such as 1e999999999 would
#: otherwise build a number of a billion digits).
MAX_DIGITS = 40


def exact(token) -> Fraction:
    """``token`` (text or a JSON number) as an exact Fraction; ValueError with the reason otherwise."""
    if isinstance(token, bool) or not isinstance(token, (str, int, float)):
        raise ValueError(f"{str(token)[:40]!r} is not a number")
    if isinstance(token, float) and not math.isfinite(token):
        raise ValueError(f"{token!r} is not a finite number")
    if isinstance(token, int):  # a JSON integer: its size is known at once
        if abs(token).bit_length() > 4 * MAX_DIGITS:
            raise ValueError(f"a number of {abs(token).bit_length()} bits is far beyond the limit 2^62")
        return Fraction(token)
    text = str(token).strip()
    match = _DECIMAL.fullmatch(text)
    if match is None:
        raise ValueError(f"{text[:40]!r} is not a number")
    whole, _, _, exponent = match.groups()
    if (
        len(text) > 400
        or len((exponent or "").lstrip("+-")) > 3
        or len((whole or "").lstrip("0")) + int(exponent or 0) > MAX_DIGITS
    ):
        raise ValueError(f"{text[:40]!r} is far beyond the limit 2^62")
    return Fraction(text)
