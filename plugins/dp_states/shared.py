"""A bound's tables of one problem (the rounded relaxation's rows, ``relaxed.py``; the cluster lists,
``clusters.py``), made at most once, at level 0 (tables over every item serve every level), the first
time a search or the descent asks and ``allowed()`` says there is time for them; shared by the
searches of the problem and released by whoever made the holder."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, Protocol, TypeVar

from clsolve.sdk import TimeLimitError, deadline

from .core import Core


class Tables(Protocol):
    def root_bound(self, core: Core) -> int: ...

    def release(self) -> None: ...


T = TypeVar("T", bound=Tables)


class Shared(Generic[T]):
    """``make()`` gives the tables, or None where they cannot be made (then it is not asked again);
    ``core``: the problem's, at level 0."""

    def __init__(self, core: Core, make: Callable[[], T | None], allowed: Callable[[], bool]):
        self.core, self._make, self._allowed = core, make, allowed
        self.tables: T | None = None
        self.tried = False
        self.seconds = 0.0

    def get(self) -> T | None:
        """The tables, made now if need be (None: off, too large, or no time for them yet)."""
        if not self.tried and self._allowed():
            self.tried = True
            watch = deadline.Stopwatch()
            try:
                self.tables = self._make()
            except TimeLimitError:  # the limit passed while their kernels were built: the search goes on without
                self.tables = None
            self.seconds = watch.seconds
        return self.tables

    def root_bound(self) -> int | None:
        """The tables' bound of the whole problem (None: no tables)."""
        tables = self.get()
        return None if tables is None else tables.root_bound(self.core)

    def release(self) -> None:
        if self.tables is not None:
            self.tables.release()
            self.tables = None
