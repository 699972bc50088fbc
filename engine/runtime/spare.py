"""One spare device buffer per device: the largest store a solve gave back, kept for the next solve.

Allocating a large buffer, and releasing it, each cost about as much as a fast solve's kernels (on an
H100 a 1.25 GB store of LCS bit rows takes 0.8 ms to allocate on first use and 0.7 ms to release).
A store that is given back (``keep``) becomes the device's spare when it is large enough to be worth
keeping and small enough to be harmless (``SPARE_MIN_BYTES`` .. ``SPARE_SHARE`` of device memory);
the next store that fits in it takes it (``take``) instead of allocating.

The spare never makes a plan fail: before a solve's buffers are created, ``make_room`` releases the
spare unless it fits beside everything the plan needs within the plan's share of device memory
(``Device.memory_budget``). Every command of a device runs on its one in-order
queue, so a store taken from the spare is written only after every earlier command that used it.
``release`` hands the memory back at once.
"""

from __future__ import annotations

import threading

import pyopencl as cl

from .devices import Device

#: Stores smaller than this are not kept (allocating them is cheap): on the H100 the first use of
#: ``dp-rows``' 39 MB store for class A's a33 (and of its second value row) adds about 0.1 ms to the
#: first pass, a tenth of the solve's kernels.
SPARE_MIN_BYTES = 16 * 2**20
#: Stores larger than this share of device memory, or than half this process's budget of it
#: (``Device.memory_budget``), are not kept (they would crowd out other solves and other processes).
SPARE_SHARE = 1 / 8

_lock = threading.Lock()


def _slot(device: Device) -> list:
    """The device's one-element list holding its spare ``(buffer, bytes)`` or nothing."""
    return device._cache.setdefault("spare buffer", [])


def spare_bytes(device: Device) -> int:
    """Bytes the device's spare holds (0 without one)."""
    with _lock:
        slot = _slot(device)
        return slot[0][1] if slot else 0


def take(device: Device, size: int) -> cl.Buffer:
    """A buffer of at least ``size`` bytes: the spare when it is large enough, else a new one."""
    with _lock:
        slot = _slot(device)
        if slot and slot[0][1] >= size:
            buffer, _ = slot.pop()
            return buffer
    return cl.Buffer(device.context, cl.mem_flags.READ_WRITE, size)


def keep(device: Device, buffer: cl.Buffer) -> None:
    """Give ``buffer`` back: it becomes the spare if it is worth keeping and larger than the spare
    (the smaller of the two is released), else it is released."""
    size = int(buffer.size)
    if not SPARE_MIN_BYTES <= size <= min(device.global_memory * SPARE_SHARE, device.memory_budget / 2):
        buffer.release()
        return
    with _lock:
        slot = _slot(device)
        if slot and slot[0][1] >= size:
            released = [buffer]
        else:
            released = [slot.pop()[0]] if slot else []
            slot.append((buffer, size))
    for old in released:
        old.release()


def make_room(device: Device, needed: int, limit: int) -> None:
    """Release the spare unless it fits beside ``needed`` bytes within ``limit``."""
    with _lock:
        slot = _slot(device)
        if not slot or needed + slot[0][1] <= limit:
            return
        buffer, _ = slot.pop()
    buffer.release()


def release(device: Device) -> None:
    """Release the device's spare now, if it has one."""
    make_room(device, 0, -1)
