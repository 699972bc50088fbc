"""Why a search over state lists stops before its next level: the time limit (counting the next level
and the block record that may follow it), the room on the device (``max_states``) and the host memory
of the block records; and where a block record goes."""

from __future__ import annotations

from clsolve.sdk import deadline, memory

from .device import SLOT_BYTES, DeviceLists
from .records import RECORD_BYTES, Records

#: The first model of a block's record (seconds, seconds per byte), in host memory (a copy into fresh
#: host memory at 1 GB/s, page faults included) and on the device (a copy within device memory);
#: measured records replace them.
FIRST_RECORD_RATES = {"host": (1e-4, 1e-9), "device": (1e-4, 1e-11)}


def record_place(lists: object, records: Records, count: int, device_bytes: int) -> str:
    """Where the record of a list of ``count`` states goes: "device" while the device's share for
    records (``device_bytes``) holds it, else "host"."""
    if isinstance(lists, DeviceLists) and records.device_bytes + RECORD_BYTES * count <= device_bytes:
        return "device"
    return "host"


def stop_reason(
    rate: deadline.Rate, count: int, slots: int, records: Records, budget: int, record: float = 0.0, host_record: bool = True
) -> tuple[str, str]:
    """Why the search must stop before the next level on a list of ``count`` states (``record``: the
    predicted seconds of the record that follows it, where it ends a block), and the kind of limit
    ("time" or "room"); ("", "") to go on."""
    merged = 2 * count
    if deadline.expired():
        return f"time limit of {deadline.seconds():g} s reached", "time"
    if not deadline.allows(rate.predict(merged) + record):
        return (
            f"time limit of {deadline.seconds():g} s reached (the next level, predicted to take "
            f"{rate.predict(merged) + record:.3f} s with its record, would end past it)"
        ), "time"
    if merged > slots:
        return (
            f"the next merged list of {merged} states would pass max_states = {slots} "
            f"({memory.format_bytes(merged * SLOT_BYTES)} of device buffers)"
        ), "room"
    held = records.host_bytes + (RECORD_BYTES * count if host_record else 0)
    if held > budget:
        return (
            f"host memory budget of {memory.format_bytes(budget)} reached ({memory.format_bytes(held)} of block records; "
            f"raise memory_limit to search further)"
        ), "room"
    return "", ""
