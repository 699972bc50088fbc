"""The plugin contract: a small abstract ``Solver`` and the ``Plan`` it makes before allocating."""
from __future__ import annotations

import abc
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from ..errors import ClsolveError, DoesNotFitError, UnsupportedProblemError
from ..runtime.devices import Device
from ..runtime.memory import physical_bytes
from ..solution import Solution

if TYPE_CHECKING:
    from ..batch.packed import PackedProblems, PackedSolutions

#: Share of a device's global memory a plan may use (the rest stays for the driver and others).
DEVICE_MEMORY_SHARE = 0.9
#: Share of the host's physical memory a plan may use.
HOST_MEMORY_SHARE = 0.8


#: The host's physical memory in bytes (one definition, in ``clsolve.runtime.memory``).
host_memory_bytes = physical_bytes


@dataclass
class Plan:
    """What a solve will need, computed before anything is allocated.

    ``device_buffers`` and ``host_buffers`` map a buffer's name to its size in bytes. ``cell_updates``
    counts DP cell updates (or nodes), ``launches`` kernel launches, ``seconds`` is the solver's own
    estimate of the run time on this device (used by ``solver="auto"``).
    """

    solver: str
    device_buffers: dict[str, int] = field(default_factory=dict)
    host_buffers: dict[str, int] = field(default_factory=dict)
    cell_updates: int = 0
    launches: int = 0
    seconds: float = 0.0
    details: dict[str, object] = field(default_factory=dict)

    @property
    def device_bytes(self) -> int:
        return sum(self.device_buffers.values())

    @property
    def host_bytes(self) -> int:
        return sum(self.host_buffers.values())

    def refusal(self, device: Device | None) -> str | None:
        """None when the plan fits, else a sentence with the numbers."""
        if device is not None and self.device_buffers:
            limit = int(device.global_memory * DEVICE_MEMORY_SHARE)
            if self.device_bytes > limit:
                parts = ", ".join(f"{k} {_size(v)}" for k, v in self.device_buffers.items())
                return (f"{self.solver} needs {_size(self.device_bytes)} of device memory ({parts}) but "
                        f"{device.label} allows {_size(limit)} ({DEVICE_MEMORY_SHARE:.0%} of "
                        f"{_size(device.global_memory)})")
            for name, size in self.device_buffers.items():
                if size > device.max_allocation:
                    return (f"{self.solver}: buffer {name!r} needs {_size(size)} in one allocation but "
                            f"{device.label} allows at most {_size(device.max_allocation)} per buffer")
        host_limit = int(host_memory_bytes() * HOST_MEMORY_SHARE)
        if self.host_bytes > host_limit:
            parts = ", ".join(f"{k} {_size(v)}" for k, v in self.host_buffers.items())
            return (f"{self.solver} needs {_size(self.host_bytes)} of host memory ({parts}) but this host "
                    f"allows {_size(host_limit)} ({HOST_MEMORY_SHARE:.0%} of {_size(host_memory_bytes())})")
        return None

    def to_dict(self) -> dict:
        return {
            "solver": self.solver,
            "device_bytes": self.device_bytes,
            "device_buffers": dict(self.device_buffers),
            "host_bytes": self.host_bytes,
            "host_buffers": dict(self.host_buffers),
            "cell_updates": self.cell_updates,
            "launches": self.launches,
            "estimated_seconds": self.seconds,
            **({"details": dict(self.details)} if self.details else {}),
        }


def problem_label(index: int, problem) -> str:
    """How errors name a problem of a batch: its index and what it is."""
    return f"problem {index} ({problem.describe()})"


def combined(solver: str, plans: Sequence[Plan]) -> Plan:
    """The plan of problems solved one after another: work adds up, memory is the largest one's."""
    largest = max(plans, key=lambda p: (p.device_bytes, p.host_bytes)) if plans else Plan(solver)
    return Plan(solver=solver, device_buffers=dict(largest.device_buffers), host_buffers=dict(largest.host_buffers),
                cell_updates=sum(p.cell_updates for p in plans), launches=sum(p.launches for p in plans),
                seconds=sum(p.seconds for p in plans), details={"problems": len(plans)})


def _size(count: int) -> str:
    value = float(count)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if value < 1024 or unit == "PiB":
            return f"{count} B" if unit == "B" else f"{value:.2f} {unit} ({count} B)"
        value /= 1024
    return f"{count} B"  # pragma: no cover


class Solver(abc.ABC):
    """A solver plugin. Register a subclass under the entry-point group ``clsolve.solvers``.

    The engine calls ``accepts``, then ``plan`` (and refuses plans that do not fit), then ``solve``,
    and checks every returned solution. Options given to ``clsolve.solve(..., **options)`` reach the
    constructor as keyword arguments.
    """

    #: The user-visible name, the same as the entry point's name (``dp-rows``).
    name: ClassVar[str]
    #: One line for ``clsolve solvers``.
    summary: ClassVar[str] = ""
    #: Problem kinds accepted (``knapsack``, ...), shown by ``clsolve solvers``.
    problem_kinds: ClassVar[tuple[str, ...]] = ("knapsack",)
    #: False for host-only solvers: they get ``device=None``.
    uses_device: ClassVar[bool] = True
    #: True when ``solve_many`` solves several problems together (``auto`` prefers such solvers
    #: for several problems, where they accept and fit every one).
    batches: ClassVar[bool] = False

    @abc.abstractmethod
    def accepts(self, problem) -> str | None:
        """None when this solver can solve ``problem``, else the reason it cannot."""

    @abc.abstractmethod
    def plan(self, problem, device: Device | None) -> Plan:
        """The memory and work ``solve`` will need. Must not allocate device memory."""

    @abc.abstractmethod
    def solve(self, problem, device: Device | None, plan: Plan) -> Solution:
        """Solve one accepted problem whose plan fits. The engine checks the result."""

    def solve_many(self, problems: Sequence, device: Device | None) -> list[Solution]:
        """Solve several problems; the default solves them one at a time."""
        return [self.solve(p, device, self.checked_plan(p, device)) for p in problems]

    def plan_many(self, problems: Sequence, device: Device | None) -> Plan:
        """The plan of ``solve_many``; the default adds up one plan per problem."""
        return combined(self.name, [self.plan(p, device) for p in problems])

    def costs(self, problems: Sequence, device: Device | None) -> np.ndarray:
        """Planned seconds of each problem (NaN where it is refused), by which a batch spread over
        several devices or workers is cut into chunks of equal cost. The default plans each problem
        alone; a batching solver may estimate them together, more cheaply."""
        out = np.full(len(problems), np.nan)
        for index, problem in enumerate(problems):
            try:
                out[index] = self.checked_plan(problem, device).seconds
            except ClsolveError:
                pass
        return out

    def checked_plan_many(self, problems: Sequence, device: Device | None) -> Plan:
        """``plan_many`` after ``accepts`` on each problem; errors name the problem's index."""
        plans = []
        for index, problem in enumerate(problems):
            try:
                plans.append(self.checked_plan(problem, device))
            except (UnsupportedProblemError, DoesNotFitError) as exc:
                raise type(exc)(f"{problem_label(index, problem)}: {exc}") from exc
        return combined(self.name, plans)

    def plan_packed(self, packed: PackedProblems, device: Device | None) -> Plan:
        """``checked_plan_many`` of a packed batch (``clsolve.batch.packed``). A batching solver may work on
        the arrays directly; the default unpacks the problems."""
        return self.checked_plan_many(packed.unpack(), device)

    def costs_packed(self, packed: PackedProblems, device: Device | None) -> np.ndarray:
        """``costs`` of a packed batch of knapsacks; the default unpacks the problems."""
        return self.costs(packed.unpack(), device)

    def solve_packed(self, packed: PackedProblems, device: Device | None) -> PackedSolutions:
        """``solve_many`` of a packed batch (after ``plan_packed``), answers packed the same way. A
        batching solver may work on the arrays directly; the default unpacks the problems."""
        from ..batch.packed import PackedSolutions
        return PackedSolutions.pack(packed.positions, self.solve_many(packed.unpack(), device), {}, "", 0.0)

    def checked_plan(self, problem, device: Device | None) -> Plan:
        """``plan``, after ``accepts``, raising when either says no."""
        reason = self.accepts(problem)
        if reason is not None:
            raise UnsupportedProblemError(f"{self.name} cannot solve {problem.describe()}: {reason}")
        plan = self.plan(problem, device)
        refusal = plan.refusal(device)
        if refusal is not None:
            raise DoesNotFitError(f"{problem.describe()}: {refusal}")
        return plan
