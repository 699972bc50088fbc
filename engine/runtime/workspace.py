"""A solve's device buffers and kernels, made by the names its plan counted and declared.

A solver's ``Plan.device_buffers`` maps a name to the bytes the solve will take under it; the engine
refuses a plan that does not fit before anything is allocated. :class:`Workspace` is the only way a
plugin makes a device buffer (``clsolve.sdk``): each buffer is made under one of those names, and the
bytes made under a name and not released may not pass what the plan counted for it
(:class:`~clsolve.errors.PlanError`, before the allocation). What a plan says is what a solve allocates.

Its kernels likewise: ``Plan.kernels`` names every kernel the solve launches, :meth:`Workspace.kernel`
refuses one it does not name, and the workspace counts each kernel's launches (``launches``). The
engine counts a solve's launches across its workspaces (:func:`counting`) and reports them in the
solution's ``stats["launches"]``.
"""

from __future__ import annotations

from collections.abc import Collection
from contextvars import ContextVar
from typing import Protocol

import numpy as np
import pyopencl as cl

from ..errors import PlanError
from .buffers import fill
from .devices import Device
from .kernels import Kernel, Program
from .memory import format_bytes

_tally: ContextVar[dict[str, int] | None] = ContextVar("clsolve_launches", default=None)


def counting() -> _Counting:
    """The launches, by kernel name, of every workspace made in this ``with`` block (one solve's)."""
    return _Counting()


class _Counting:
    """A context manager (not ``contextlib``'s: about 2 us less on every solve)."""

    def __enter__(self) -> dict[str, int]:
        self.tally: dict[str, int] = {}
        self._token = _tally.set(self.tally)
        return self.tally

    def __exit__(self, *exc: object) -> None:
        _tally.reset(self._token)


class Counted(Protocol):
    """What a workspace reads of a plan (``clsolve.Plan``): the solver's name, its device buffers'
    bytes by name and the names of the kernels it launches."""

    solver: str
    device_buffers: dict[str, int]

    @property
    def kernels(self) -> Collection[str]: ...


class Workspace:
    """The device buffers of one solve on ``device`` under ``plan``. ``poison``: a byte every
    buffer made by :meth:`empty` is filled with (a test's check that a kernel writes what it reads);
    None leaves new buffers as the device gives them."""

    def __init__(self, device: Device, plan: Counted, poison: int | None = None):
        self.device, self.plan, self.poison = device, plan, poison
        self.context = device.context
        #: Bytes made and not released, by name.
        self.made: dict[str, int] = {}
        #: Launches enqueued so far, by kernel name (the solve's, where the engine counts them).
        tally = _tally.get()
        self.launches: dict[str, int] = tally if tally is not None else {}

    def kernel(self, program: Program, name: str) -> Kernel:
        """Kernel ``name`` of ``program`` (arguments set by name, scalars passed as the kernel declares
        them), one the plan names in ``kernels``; its launches are counted in ``launches``."""
        if name not in self.plan.kernels:
            raise PlanError(
                f"{self.plan.solver}: kernel {name!r} of {program.label} is not among the kernels its plan "
                f"launches ({', '.join(map(repr, self.plan.kernels)) or 'none'})"
            )
        kernel = program.kernel(name)
        kernel.launches = self.launches
        return kernel

    def empty(self, name: str, nbytes: int) -> cl.Buffer:
        """A read-write buffer of ``nbytes`` (at least 1) counted under ``name``, poisoned where asked."""
        size = self._count(name, max(int(nbytes), 1))
        buffer = cl.Buffer(self.context, cl.mem_flags.READ_WRITE, size)
        if self.poison is not None:
            fill(self.device.queue, buffer, self.poison)
        return buffer

    def upload(self, name: str, array: np.ndarray, *, writable: bool = False) -> cl.Buffer:
        """A buffer holding a copy of ``array`` (C order), counted under ``name``; read-only unless
        ``writable``."""
        host = np.ascontiguousarray(array)
        if host.nbytes == 0:
            host = np.zeros(1, np.uint8)  # OpenCL has no empty buffer
        self._count(name, host.nbytes)
        flags = (cl.mem_flags.READ_WRITE if writable else cl.mem_flags.READ_ONLY) | cl.mem_flags.COPY_HOST_PTR
        return cl.Buffer(self.context, flags, hostbuf=host)

    def release(self, name: str, *buffers: cl.Buffer) -> None:
        """Give ``buffers`` (made under ``name``) back now: their bytes count no more (a buffer made
        again for each launch or phase)."""
        for buffer in buffers:
            self.made[name] = self.made.get(name, 0) - buffer.size
            buffer.release()

    def _count(self, name: str, size: int) -> int:
        counted = self.plan.device_buffers.get(name)
        if counted is None:
            raise PlanError(
                f"{self.plan.solver}: a device buffer {name!r} of {format_bytes(size)} that its plan "
                f"does not count (the plan counts {', '.join(map(repr, self.plan.device_buffers)) or 'none'})"
            )
        total = self.made.get(name, 0) + size
        if total > counted:
            raise PlanError(
                f"{self.plan.solver}: device buffer {name!r}: {format_bytes(total)} "
                f"({total} bytes) made, the plan counted {counted} bytes"
            )
        self.made[name] = total
        return size
