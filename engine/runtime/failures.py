"""When the OpenCL runtime fails under a solve: a clsolve error that says what failed, and a device
that stays usable.

A plan refuses what will not fit before anything is allocated (``clsolve.runtime.memory``); the runtime can
still fail afterwards (another process took the device's memory, the device was lost, a kernel
crashed). ``guard`` turns such a ``pyopencl.Error`` into :class:`~clsolve.errors.DeviceError`
naming the OpenCL status, and checks whether the device's queue still works: where it does not (a
crashed kernel leaves its context unusable for good), the device gets a fresh context and queue and
the programs built for the old one are dropped, so the next solve on the device starts afresh.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

import numpy as np
import pyopencl as cl

from ..errors import DeviceError
from . import kernels
from .devices import Device

#: OpenCL statuses that mean "out of memory" on the device or the host.
MEMORY_STATUSES = ("MEM_OBJECT_ALLOCATION_FAILURE", "OUT_OF_RESOURCES", "OUT_OF_HOST_MEMORY")


@contextlib.contextmanager
def guard(what: str, device: Device | Callable[[], Device | None] | None) -> Iterator[None]:
    """Run the code inside; a ``pyopencl.Error`` becomes a DeviceError about ``what`` on ``device``
    (or on the device a callable returns, resolved only when something failed)."""
    try:
        yield
    except cl.Error as error:
        found = device() if callable(device) else device
        raise device_error(error, what, found) from error


def status(error: cl.Error) -> str:
    """The OpenCL status name of ``error`` (e.g. MEM_OBJECT_ALLOCATION_FAILURE)."""
    try:
        return str(cl.status_code.to_string(error.code, "status %d"))  # type: ignore[operator]
    except Exception:  # noqa: BLE001 - an error built without a status record
        return type(error).__name__


def device_error(error: cl.Error, what: str, device: Device | None) -> DeviceError:
    code = status(error)
    where = f" on {device.label}" if device is not None else ""
    hint = ""
    if code in MEMORY_STATUSES:
        hint = (
            " (out of memory although the plan fitted: another process may hold the device's memory; "
            "free it, or lower device_memory_limit / memory_limit)"
        )
    if device is None:
        return DeviceError(f"{what}{where} failed in the OpenCL runtime: {code}{hint}", code)
    usable = _usable(device)
    if not usable:
        kernels.forget(device)
        device.reset()
    state = (
        "the device is still usable"
        if usable
        else "the device's context was lost and has been replaced: the next solve on it starts afresh"
    )
    return DeviceError(f"{what}{where} failed in the OpenCL runtime: {code}{hint}; {state}", code, reset=not usable)


def _usable(device: Device) -> bool:
    """Whether the device's queue still runs work (a small fill, waited for)."""
    try:
        device.queue.finish()
        probe = cl.Buffer(device.context, cl.mem_flags.READ_WRITE, 4)
        cl.enqueue_fill_buffer(device.queue, probe, np.zeros(1, dtype=np.uint8), 0, 4)
        device.queue.finish()
        return True
    except cl.Error:
        return False
