"""A solver's ``Plan``: the memory and work a solve will need, computed before anything is allocated,
and the refusal (with the numbers) of a plan that does not fit the device or the host."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .runtime import memory
from .runtime.devices import Device, memory_share
from .runtime.memory import format_bytes, physical_bytes

#: The host's physical memory in bytes (one definition, in ``clsolve.runtime.memory``).
host_memory_bytes = physical_bytes


@dataclass
class Plan:
    """What a solve will need, computed before anything is allocated.

        ``device_buffers`` and ``host_buffers`` map a buffer's name to its size in bytes; ``kernels`` names
        the kernels the solve launches (a :class:`~clsolve.sdk.Workspace` makes no other). ``cell_updates``
        counts DP cell updates (or nodes), ``launches`` kernel launches, ``seconds`` is the solver's own
        estimate of the run time on this device (used by ``solver="auto"``; ``clsolve calibrate`` corrects it
    on the device), ``measured`` says planning measured it (a walk that settled the problem): no
    calibration corrects those. ``prepared`` is what planning
        made that ``solve`` takes up again (a packed batch solver's ``PackedProblems``): the solver's own,
        opaque to the engine, never in ``to_dict``.
    """

    solver: str
    device_buffers: dict[str, int] = field(default_factory=dict)
    host_buffers: dict[str, int] = field(default_factory=dict)
    kernels: tuple[str, ...] = ()
    cell_updates: int = 0
    launches: int = 0
    seconds: float = 0.0
    measured: bool = False
    details: dict[str, Any] = field(default_factory=dict)  # free-form: each solver's own facts
    prepared: Any = field(default=None, repr=False, compare=False)

    @property
    def device_bytes(self) -> int:
        return sum(self.device_buffers.values())

    @property
    def host_bytes(self) -> int:
        return sum(self.host_buffers.values())

    @property
    def launch_seconds(self) -> float:
        """The estimate of one launch: the plan's seconds over its launches (for pacing them)."""
        return self.seconds / max(self.launches, 1)

    def refusal(self, device: Device | None) -> str | None:
        """None when the plan fits, else a sentence with the numbers."""
        if device is not None and self.device_buffers:
            limit = device.memory_limit
            if self.device_bytes > limit:
                parts = ", ".join(f"{k} {format_bytes(v)}" for k, v in self.device_buffers.items())
                return (
                    f"{self.solver} needs {format_bytes(self.device_bytes)} of device memory ({parts}) but "
                    f"{device.label} allows {format_bytes(limit)} ({memory_share():.0%} of "
                    f"{format_bytes(device.global_memory)})"
                )
            for name, size in self.device_buffers.items():
                if size > device.max_allocation:
                    return (
                        f"{self.solver}: buffer {name!r} needs {format_bytes(size)} in one allocation but "
                        f"{device.label} allows at most {format_bytes(device.max_allocation)} per buffer"
                    )
        return self.host_refusal(device)

    def host_memory(self, device: Device | None) -> dict[str, int]:
        """The host memory the solve takes, by buffer: its host buffers, and its device buffers where the
        device's memory is the host's (a CPU device)."""
        taken = dict(self.host_buffers)
        if device is not None and device.shares_host_memory:
            taken.update((f"device {name}", size) for name, size in self.device_buffers.items())
        return taken

    def host_refusal(self, device: Device | None) -> str | None:
        """None when the host memory the solve takes fits the host budget (``clsolve.runtime.memory``)."""
        taken = self.host_memory(device)
        total, budget = sum(taken.values()), memory.host_budget()
        if total <= budget:
            return None
        parts = ", ".join(f"{k} {format_bytes(v)}" for k, v in taken.items())
        return (
            f"{self.solver} needs {format_bytes(total)} of host memory ({parts}) but the host budget is "
            f"{format_bytes(budget)} ({memory.budget_words()})"
        )

    def to_dict(self) -> dict:
        return {
            "solver": self.solver,
            "device_bytes": self.device_bytes,
            "device_buffers": dict(self.device_buffers),
            "host_bytes": self.host_bytes,
            "host_buffers": dict(self.host_buffers),
            **({"kernels": list(self.kernels)} if self.kernels else {}),
            "cell_updates": self.cell_updates,
            "launches": self.launches,
            "estimated_seconds": self.seconds,
            **({"measured": True} if self.measured else {}),
            **({"details": dict(self.details)} if self.details else {}),
        }


def combined(solver: str, plans: Sequence[Plan]) -> Plan:
    """The plan of problems solved one after another: work adds up, memory is the largest one's."""
    largest = max(plans, key=lambda p: (p.device_bytes, p.host_bytes)) if plans else Plan(solver)
    return Plan(
        solver=solver,
        device_buffers=dict(largest.device_buffers),
        host_buffers=dict(largest.host_buffers),
        kernels=tuple(dict.fromkeys(k for p in plans for k in p.kernels)),
        cell_updates=sum(p.cell_updates for p in plans),
        launches=sum(p.launches for p in plans),
        seconds=sum(p.seconds for p in plans),
        details={"problems": len(plans)},
    )
