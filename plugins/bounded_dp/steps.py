"""The steps of the bounded dense DP: for each item, one window step ([vHGW92] blocks of b + 1 copies,
``bounded_dp.cl``) or its binary pieces (one 0-1 step each), whichever the model says is faster on
the device, and where each step's decisions lie in the decision buffer."""

from __future__ import annotations

from dataclasses import dataclass

from clsolve.sdk import MODEL_BANDWIDTH, MODEL_LAUNCH_SECONDS, Device, pieces

#: Bytes a window step moves per state (the row read twice and written, the shelf written and read).
WINDOW_BYTES = 44
#: Bytes a piece step moves per state (the row read twice and written).
PIECE_BYTES = 24
#: Seconds of one work-item's step along its block, and how many work-items run at once, by device
#: kind (a block of L copies takes about 2 L such steps).
WINDOW_STEP_SECONDS = {"gpu": 2e-7, "other": 3e-9}
LANES_PER_UNIT = {"gpu": 1024, "other": 1}


@dataclass(frozen=True)
class Step:
    """One launch: item ``item`` by a window of ``width`` (its k in ``kind`` = 8, 16 or 32 bits per
    state), or one piece of ``copies`` copies (``kind`` 1: a bit per state); ``span`` and ``profit``
    per unit of the decision; decisions from byte ``at``, ``size`` bytes."""

    item: int
    kind: int
    copies: int
    span: int
    profit: int
    width: int
    at: int
    size: int


def _kind(device: Device) -> str:
    return "gpu" if device.is_gpu else "other"


def window_seconds(states: int, weight: int, bound: int, device: Device) -> float:
    """The model's seconds of one window step: the bytes at the device's bandwidth, or the blocks'
    sequential walks where too few work-items fill the device."""
    kind = _kind(device)
    width = bound + 1
    chain = (states - 1) // weight + 1
    items = weight * -(-chain // width)
    waves = -(-items // (LANES_PER_UNIT[kind] * max(device.compute_units, 1)))
    walk = 2 * width * waves * WINDOW_STEP_SECONDS[kind]
    return MODEL_LAUNCH_SECONDS[kind] + max(WINDOW_BYTES * states / MODEL_BANDWIDTH[kind], walk)


def piece_seconds(states: int, count: int, device: Device) -> float:
    kind = _kind(device)
    return count * (MODEL_LAUNCH_SECONDS[kind] + PIECE_BYTES * states / MODEL_BANDWIDTH[kind])


def _aligned(size: int) -> int:
    return -(-size // 8) * 8


def schedule(weights: list[int], profits: list[int], bounds: list[int], capacity: int, device: Device, method: str) -> list[Step]:
    """The steps for items of ``weights``, ``profits`` usable ``bounds`` times (items of weight 0 or
    bound 0 take no step); ``method``: ``auto`` (the faster by the model, per item), ``window`` or
    ``pieces``."""
    states = capacity + 1
    out: list[Step] = []
    at = 0
    for i, (w, p, b) in enumerate(zip(weights, profits, bounds)):
        if w == 0 or b == 0:
            continue
        split = pieces(b)
        windowed = method == "window" or (
            method == "auto"
            and len(split) > 1
            and window_seconds(states, w, b, device) < piece_seconds(states, len(split), device)
        )
        if windowed:
            kind = 8 if b < 2**8 else 16 if b < 2**16 else 32
            size = _aligned(states * kind // 8)
            out.append(Step(i, kind, 1, w, p, b + 1, at, size))
            at += size
            continue
        for copies in split:
            size = _aligned(4 * (states // 32 + 1))
            out.append(Step(i, 1, copies, w * copies, p * copies, 0, at, size))
            at += size
    return out


def seconds(steps: list[Step], states: int, weights: list[int], device: Device) -> float:
    """The model's seconds of all ``steps``."""
    total = 0.0
    for step in steps:
        if step.kind == 1:
            total += piece_seconds(states, 1, device)
        else:
            total += window_seconds(states, weights[step.item], step.width - 1, device)
    return total
