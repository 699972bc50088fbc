"""The steps of the bounded dense DP: for each item, one window step ([vHGW92] blocks of b + 1 copies,
``bounded_dp.cl``) or its binary pieces (one 0-1 step each), whichever the model says is faster on
the device, and where each step's decisions lie in the decision buffer. Made for all items at once
in NumPy (10,000 items in milliseconds)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from clsolve.sdk import MODEL_BANDWIDTH, MODEL_LAUNCH_SECONDS, Device, piece_arrays

#: Bytes a window step moves per state (the row read twice and written, the shelf written and read).
WINDOW_BYTES = 44
#: Bytes a piece step moves per state (the row read twice and written).
PIECE_BYTES = 24
#: Seconds of one work-item's step along its block, and how many work-items run at once, by device
#: kind (a block of L copies takes about 2 L such steps).
WINDOW_STEP_SECONDS = {"gpu": 2e-7, "other": 3e-9}
LANES_PER_UNIT = {"gpu": 1024, "other": 1}
#: ``kind`` of a piece step (a decision bit per state); window steps' kinds are their bits per state.
PIECE = 1


@dataclass(frozen=True)
class Schedule:
    """The launches in order, one entry each: the item, ``kind`` (8, 16 or 32: a window step keeping
    each state's k in that many bits; PIECE: a binary piece, a bit per state), the copies per unit of
    the decision, the weight and profit per unit (``span``, ``profit``), the window's width (b + 1;
    0 for a piece), and the decisions' byte offset ``at`` and ``size``; ``seconds``: the model's."""

    item: np.ndarray
    kind: np.ndarray
    copies: np.ndarray
    span: np.ndarray
    profit: np.ndarray
    width: np.ndarray
    at: np.ndarray
    size: np.ndarray
    seconds: float

    def __len__(self) -> int:
        return int(self.item.size)

    @property
    def windows(self) -> int:
        return int(np.count_nonzero(self.kind != PIECE))

    @property
    def decision_bytes(self) -> int:
        return int(self.size.sum())


def _kind(device: Device) -> str:
    return "gpu" if device.is_gpu else "other"


def window_seconds(states: int, weights: np.ndarray, bounds: np.ndarray, device: Device) -> np.ndarray:
    """The model's seconds of each item's window step: the bytes at the device's bandwidth, or the
    blocks' sequential walks where too few work-items fill the device."""
    kind = _kind(device)
    width = bounds.astype(np.float64) + 1
    chain = (states - 1) // np.maximum(weights, 1) + 1
    items = weights * np.ceil(chain / width)
    waves = np.ceil(items / (LANES_PER_UNIT[kind] * max(device.compute_units, 1)))
    walk = 2 * width * waves * WINDOW_STEP_SECONDS[kind]
    return MODEL_LAUNCH_SECONDS[kind] + np.maximum(WINDOW_BYTES * states / MODEL_BANDWIDTH[kind], walk)


def piece_seconds(states: int, device: Device) -> float:
    """The model's seconds of one piece step."""
    kind = _kind(device)
    return MODEL_LAUNCH_SECONDS[kind] + PIECE_BYTES * states / MODEL_BANDWIDTH[kind]


def _aligned(size: np.ndarray) -> np.ndarray:
    return -(-size // 8) * 8


def schedule(
    weights: np.ndarray, profits: np.ndarray, bounds: np.ndarray, capacity: int, device: Device, method: str
) -> Schedule:
    """The steps for items of ``weights``, ``profits`` usable ``bounds`` times (items of weight 0 or
    bound 0 take no step); ``method``: ``auto`` (the faster by the model, per item), ``window`` or
    ``pieces``."""
    states = capacity + 1
    weights, profits, bounds = (np.asarray(a, dtype=np.int64) for a in (weights, profits, bounds))
    live = (weights > 0) & (bounds > 0)
    item, copies = piece_arrays(np.where(live, bounds, 0))
    split = np.bincount(item, minlength=weights.size)
    windowed = np.zeros(weights.size, dtype=bool) if method == "pieces" else live.copy()
    by_window = window_seconds(states, weights, bounds, device)
    if method == "auto":
        windowed &= (split > 1) & (by_window < split * piece_seconds(states, device))
    keep = ~windowed[item]  # the pieces of items not stepped by windows
    first = np.concatenate(([True], item[1:] != item[:-1])) if item.size else np.zeros(0, dtype=bool)
    window_at = item[first & windowed[item]]  # one window step, where the item's pieces began
    order_item = np.concatenate((item[keep], window_at))
    order_rank = np.concatenate((np.flatnonzero(keep), np.flatnonzero(first & windowed[item])))
    order = np.argsort(order_rank, kind="stable")
    step_item = order_item[order]
    is_window = np.concatenate((np.zeros(int(keep.sum()), dtype=bool), np.ones(window_at.size, dtype=bool)))[order]
    step_copies = np.where(is_window, 1, np.concatenate((copies[keep], np.ones(window_at.size, dtype=np.int64)))[order])
    b = bounds[step_item]
    kind = np.where(is_window, np.where(b < 2**8, 8, np.where(b < 2**16, 16, 32)), PIECE)
    size = np.where(is_window, _aligned(states * kind // 8), _aligned(np.full(step_item.size, 4 * (states // 32 + 1))))
    at = np.cumsum(size) - size
    seconds = float(by_window[windowed].sum()) + int((~is_window).sum()) * piece_seconds(states, device)
    return Schedule(
        item=step_item,
        kind=kind.astype(np.int32),
        copies=step_copies,
        span=weights[step_item] * step_copies,
        profit=profits[step_item] * step_copies,
        width=np.where(is_window, b + 1, 0),
        at=at,
        size=size,
        seconds=seconds,
    )
