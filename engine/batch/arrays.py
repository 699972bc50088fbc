"""A batch's checked answers as NumPy arrays: ``solve_many(..., arrays=True)``.

Building one :class:`~clsolve.Solution` object per problem costs about two microseconds of Python
each; for tens of thousands of small pricing knapsacks that is as much host time as the GPU work,
and it is serial on the client of a spread batch. :class:`SolutionArrays` holds the same checked
answers as a few arrays (values, optimality flags, every problem's item flags end to end) and
builds a ``Solution`` only for a row that is asked for. It is a ``Sequence[Solution]``: indexing,
iterating and ``len`` work as on the list ``solve_many`` returns by default.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import overload

import numpy as np

from ..solution import Solution
from .packed import PackedSolutions


class SolutionArrays(Sequence):
    """Checked answers of a batch, in input order, as arrays.

    ``values[k]`` is problem k's objective value (int64), ``optimal[k]`` whether it was proven
    optimal, and problem k's item flags are ``selected[item_offsets[k]:item_offsets[k + 1]]`` (bool,
    one per item; :meth:`selected_of` and :meth:`items` give them). ``self[k]`` is the full
    :class:`~clsolve.Solution` of problem k (solver, device, timings, notes; an LCS's positions or a
    TSP's tour), built on demand; :meth:`to_list` builds them all at once. The arrays are read-only.
    """

    def __init__(self, packed: PackedSolutions):
        if not np.array_equal(packed.positions, np.arange(len(packed.positions))):
            raise ValueError("SolutionArrays needs one answer per problem, in input order")
        self._packed = packed
        for array in (packed.values, packed.optimal, packed.item_offsets, packed.selected):
            array.flags.writeable = False

    @classmethod
    def of_solutions(cls, solutions: Sequence[Solution]) -> SolutionArrays:
        """The same answers as ``solutions`` (one per problem, in order), as arrays."""
        return cls(PackedSolutions.pack(range(len(solutions)), solutions, {}, "", 0.0))

    @property
    def values(self) -> np.ndarray:
        return self._packed.values

    @property
    def optimal(self) -> np.ndarray:
        return self._packed.optimal

    @property
    def item_offsets(self) -> np.ndarray:
        return self._packed.item_offsets

    @property
    def selected(self) -> np.ndarray:
        return self._packed.selected

    def selected_of(self, k: int) -> np.ndarray:
        """Problem ``k``'s item flags (bool, one per item; empty for an LCS or a TSP)."""
        k = self._row(k)
        return self.selected[self.item_offsets[k] : self.item_offsets[k + 1]]

    def items(self, k: int) -> np.ndarray:
        """Indices (0-based, ascending) of the items chosen for problem ``k``."""
        return np.flatnonzero(self.selected_of(k))

    def to_list(self) -> list[Solution]:
        """Every row as a :class:`~clsolve.Solution` (what ``solve_many`` returns without ``arrays``)."""
        return self._packed.unpack()

    def add_note(self, note: str) -> None:
        """Append ``note`` to every row's notes."""
        self._packed.labels = [(solver, device, notes + (note,)) for solver, device, notes in self._packed.labels]

    def _row(self, k: int) -> int:
        count = len(self)
        k = int(k)
        if not -count <= k < count:
            raise IndexError(f"row {k} of a batch of {count}")
        return k % count if count else k

    def __len__(self) -> int:
        return len(self._packed.values)

    @overload
    def __getitem__(self, k: int) -> Solution: ...

    @overload
    def __getitem__(self, k: slice) -> list[Solution]: ...

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self._packed.solution(i) for i in range(len(self))[k]]
        return self._packed.solution(self._row(k))

    def __iter__(self) -> Iterator[Solution]:
        return iter(self.to_list())

    def __repr__(self) -> str:
        return f"SolutionArrays({len(self)} answers, {int(self.optimal.sum())} optimal)"
