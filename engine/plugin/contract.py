"""The plugin contract: what a solver is, in four members (``name``, ``accepts``, ``plan``, ``solve``)
and one optional (``least_seconds``).

A plugin subclasses one of two classes, and the class says where it runs:

* :class:`DeviceSolver`: its ``plan`` and ``solve`` get the OpenCL :class:`~clsolve.Device` the
  engine chose;
* :class:`HostSolver`: it runs on the host and gets ``device=None``.

Solving many problems in one call is a capability a solver declares by its class, not a flag:
:class:`BatchSolver` adds ``plan_many`` and ``solve_many``; :class:`PackedBatchSolver` works on a
batch of knapsacks as flat arrays (``clsolve.batch.packed``) and gets the object methods for free.

The engine calls ``accepts``, then ``plan`` (and refuses a plan that does not fit, with its
numbers), then ``solve``, and checks every returned solution (``clsolve.plugin.checked`` holds the
calls). Options given to ``clsolve.solve(..., **options)`` reach the constructor as keyword
arguments; an option the constructor does not take is refused, listing those it takes.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from typing import Any, ClassVar, Generic, TypeVar

import numpy as np

from ..batch.packed import PackedProblems, PackedSolutions
from ..errors import ClsolveError, UnsupportedProblemError, problem_label
from ..plan import Plan
from ..problems import Knapsack
from ..runtime.devices import Device
from ..solution import Solution

#: Where a solver runs: a :class:`Device` for device solvers, ``None`` for host solvers.
Where = TypeVar("Where", Device, None)


class Solver(abc.ABC, Generic[Where]):
    """A solver plugin; subclass :class:`DeviceSolver` or :class:`HostSolver`, and register the
    subclass under the entry-point group ``clsolve.solvers``.

    ``problem`` is typed ``Any`` here: a solver takes the kinds its ``accepts`` allows, and may
    annotate them (``problem: Knapsack``) in its own methods.
    """

    #: The user-visible name, the same as the entry point's name (``dp-rows``).
    name: ClassVar[str]
    #: One line for ``clsolve solvers``.
    summary: ClassVar[str] = ""
    #: Problem kinds accepted (``knapsack``, ``lcs``, ``tsp``), shown by ``clsolve solvers``.
    problem_kinds: ClassVar[tuple[str, ...]] = ("knapsack",)
    #: True for a solver that answers under any time limit (its best checked solution, ``optimal=False``
    #: and a proven ``bound``). False: no answer before it ends, so under a limit it raises
    #: ``TimeLimitError``, and the engine does not start it when its plan's ``seconds`` are far past
    #: the time left (``clsolve.runtime.deadline.Deadline.hopeless``).
    anytime: ClassVar[bool] = False

    @abc.abstractmethod
    def accepts(self, problem: Any) -> str | None:
        """None when this solver can solve ``problem``, else the reason it cannot."""

    @abc.abstractmethod
    def plan(self, problem: Any, device: Where) -> Plan:
        """The memory and work ``solve`` will need. Must not allocate device memory."""

    @abc.abstractmethod
    def solve(self, problem: Any, device: Where, plan: Plan) -> Solution:
        """Solve one accepted problem whose plan fits. The engine checks the result."""

    def least_seconds(self, problem: Any, device: Where) -> float:
        """A lower bound of ``plan(problem, device).seconds`` for an accepted problem, cheaper than the
        plan: ``auto`` does not plan a solver whose bound is above the best estimate it already has.
        0 (always plan) unless a solver knows better."""
        return 0.0


class DeviceSolver(Solver[Device]):
    """A solver whose work runs on an OpenCL device: ``plan`` and ``solve`` get a :class:`Device`."""


class HostSolver(Solver[None]):
    """A solver that runs on the host only: ``plan`` and ``solve`` get ``device=None``."""


class BatchSolver(DeviceSolver):
    """A device solver that solves many problems in one call (``solve_many`` with ``solver="auto"``
    prefers such a solver where it takes and fits every problem)."""

    @abc.abstractmethod
    def plan_many(self, problems: Sequence, device: Device) -> Plan:
        """One plan for the whole batch; raises naming the index of a problem it cannot take."""

    @abc.abstractmethod
    def solve_many(self, problems: Sequence, device: Device, plan: Plan) -> list[Solution]:
        """Solve the batch with its ``plan_many``'s ``plan``: one solution per problem, in order."""

    def costs(self, problems: Sequence, device: Device | None) -> np.ndarray:
        """Planned seconds of each problem (NaN where it is refused), by which a batch spread over
        several devices or workers is cut into chunks of equal cost. This default plans each one
        alone; a solver may estimate them together, more cheaply."""
        return planned_seconds(self, problems, device)


class PackedBatchSolver(BatchSolver):
    """A batch solver that works on a batch of knapsacks as packed arrays (``clsolve.batch.packed``):
    no Python object per problem on the way in or out. It implements the three ``*_packed``
    methods; the object methods (``plan``, ``solve``, ``plan_many``, ``solve_many``, ``costs``) pack
    the problems and call them."""

    @abc.abstractmethod
    def plan_packed(self, packed: PackedProblems, device: Device) -> Plan:
        """One plan for the packed batch; raises naming the first problem it cannot solve."""

    @abc.abstractmethod
    def solve_packed(self, packed: PackedProblems, device: Device, plan: Plan) -> PackedSolutions:
        """Solve the packed batch with its ``plan_packed``'s ``plan``: answers packed the same way, in
        order."""

    @abc.abstractmethod
    def costs_packed(self, packed: PackedProblems, device: Device | None) -> np.ndarray:
        """``costs`` of a packed batch, on its arrays."""

    def plan(self, problem: Any, device: Device) -> Plan:
        return self.plan_many([problem], device)

    def solve(self, problem: Any, device: Device, plan: Plan) -> Solution:
        return self.solve_many([problem], device, plan)[0]

    def plan_many(self, problems: Sequence, device: Device) -> Plan:
        """``plan_packed`` of the problems packed; the plan keeps the packed batch for ``solve_many``."""
        packed = self.pack(problems)
        found = self.plan_packed(packed, device)
        found.prepared = packed
        return found

    def solve_many(self, problems: Sequence, device: Device, plan: Plan) -> list[Solution]:
        packed = plan.prepared if isinstance(plan.prepared, PackedProblems) else self.pack(problems)
        return self.solve_packed(packed, device, plan).unpack()

    def costs(self, problems: Sequence, device: Device | None) -> np.ndarray:
        out = np.full(len(problems), np.nan)
        rows = [k for k, p in enumerate(problems) if isinstance(p, Knapsack)]
        if rows:
            out[rows] = self.costs_packed(PackedProblems.pack([problems[k] for k in rows]), device)
        return out

    def refuse_others(self, packed: PackedProblems) -> None:
        """Raise UnsupportedProblemError naming the first problem of ``packed`` that is not a knapsack."""
        if packed.others:
            position = min(packed.others)
            raise UnsupportedProblemError(
                f"{problem_label(position, packed.others[position])}: {self.name} solves knapsacks only"
            )

    def pack(self, problems: Sequence) -> PackedProblems:
        """``problems`` packed, refusing (with its index) one that is not a knapsack."""
        for index, problem in enumerate(problems):
            if not isinstance(problem, Knapsack):
                raise UnsupportedProblemError(f"{problem_label(index, problem)}: {self.name} solves knapsacks only")
        return PackedProblems.pack(problems)


def planned_seconds(solver: Solver, problems: Sequence, device: Device | None) -> np.ndarray:
    """Each problem's planned seconds, planned alone (NaN where refused or too large)."""
    out = np.full(len(problems), np.nan)
    for index, problem in enumerate(problems):
        try:
            if solver.accepts(problem) is None:
                planned = solver.plan(problem, device)
                if planned.refusal(device) is None:
                    out[index] = planned.seconds
        except ClsolveError:
            pass
    return out
