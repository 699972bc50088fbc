"""Values computed once per problem object (its reduction, its fixing, a solver's sorted items), all
in one place: a single dictionary the problem carries (``_derived``), written only here. Problems are
immutable and compared by identity, so a value stays valid as long as the problem lives, and goes
with it (a value that refers back to its problem makes a cycle the garbage collector frees; a table
beside the problems, keyed weakly, would keep every such problem alive)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

T = TypeVar("T")

#: The one attribute a problem carries for derived values.
ATTRIBUTE = "_derived"
_lock = threading.Lock()


def get(problem: object, key: Hashable) -> Any | None:
    """The value kept for ``problem`` under ``key``, or None."""
    return vars(problem).get(ATTRIBUTE, {}).get(key)


def put(problem: object, key: Hashable, value: T) -> T:
    with _lock:
        vars(problem).setdefault(ATTRIBUTE, {})[key] = value
    return value


def per_problem(problem: object, key: Hashable, compute: Callable[[], T]) -> T:
    """``compute()`` once per problem and key (two threads may both compute it; either result is kept)."""
    found = get(problem, key)
    return found if found is not None else put(problem, key, compute())
