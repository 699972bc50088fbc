"""Corrections of solvers' estimates measured on a device, kept in a cache file per device and version.

A solver's plan says how long it expects a solve to take (``Plan.seconds``) from its own model of the
work (cells, launches, nodes) and constants for a kind of device. ``clsolve calibrate`` (``clsolve.calibration``) times each
solver on a fixed set of problems on one device and fits, per solver, the measured seconds to what its
plans say (a fixed cost, launches, cell updates and the solver's own estimate: ``fit``). ``auto`` and
every plan then use the corrected seconds; a solver with no calibration for the device keeps its own
estimate.

The file (``CLSOLVE_CACHE``, else ``$XDG_CACHE_HOME/clsolve``, else ``~/.cache/clsolve``, then
``costs.json``) holds one entry per device key: the device's name, platform and driver, and this
clsolve version; a new driver or a new clsolve finds no entry and is calibrated again.
"""

from __future__ import annotations

import itertools
import json
import os
import platform
import threading
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from .devices import Device


class Planned(Protocol):
    """What the fit reads of a plan (``clsolve.plan.Plan``)."""

    launches: int
    cell_updates: int
    seconds: float


#: The cache file's name in the cache folder.
FILE_NAME = "costs.json"
#: The key of solvers that run on the host (no device).
HOST_KEY = "host"
_lock = threading.Lock()
_loaded: dict[str, dict] | None = None


#: What a plan says that the fit weighs: a solve's fixed cost, its launches, its cell updates (or nodes)
#: and the solver's own estimate of its seconds.
FEATURES = ("fixed", "launches", "cells", "estimate")


def features(plan: Planned) -> tuple[float, float, float, float]:
    return (1.0, float(plan.launches), float(plan.cell_updates), float(plan.seconds))


@dataclass(frozen=True)
class Correction:
    """``seconds = sum(coefficients[f] x feature f of the plan)`` (``FEATURES``), from ``cases`` timed
    solves; ``worst`` is the largest ratio (either way) between a corrected estimate and its measured
    time among them, ``floor`` the smallest measured time over the solver's own estimate (what corrects
    a lower bound of the estimate, ``Solver.least_seconds``)."""

    coefficients: dict[str, float]
    cases: int
    worst: float
    floor: float

    def __call__(self, plan: Planned) -> float:
        return sum(self.coefficients.get(name, 0.0) * x for name, x in zip(FEATURES, features(plan)))

    def least(self, seconds: float) -> float:
        return seconds * self.floor

    def words(self, plan: Planned) -> str:
        terms = " + ".join(f"{v:.3g} x {k}" for k, v in self.coefficients.items() if v)
        return f"{plan.seconds:.3g} s by the solver's model; measured on {self.cases} problems: {terms}"


def fit(points: Sequence[tuple[tuple[float, ...], float]]) -> Correction:
    """The correction that best maps plans' features to measured seconds over ``points`` ((features,
    measured)): least squares on ``prediction / measured - 1`` with coefficients not negative (every
    subset of the features is tried; the best one whose coefficients are all positive wins)."""
    rows = [(np.asarray(f, dtype=float) / m, m, f) for f, m in points if m > 0]
    if not rows:
        raise ValueError("no measured points to fit")
    a = np.array([r for r, *_ in rows])
    best: tuple[float, np.ndarray] | None = None
    for size in range(1, len(FEATURES) + 1):
        for subset in itertools.combinations(range(len(FEATURES)), size):
            columns = a[:, subset]
            if np.linalg.matrix_rank(columns) < size:
                continue
            solved, *_ = np.linalg.lstsq(columns, np.ones(len(rows)), rcond=None)
            if np.any(solved <= 0):
                continue
            x = np.zeros(len(FEATURES))
            x[list(subset)] = solved
            error = float(np.sum((a @ x - 1) ** 2))
            if best is None or error < best[0] - 1e-12:
                best = (error, x)
    if best is None:  # no positive fit (cannot happen with the fixed term alone): the estimate as it is
        x = np.array([0.0, 0.0, 0.0, 1.0])
    else:
        x = best[1]
    predicted = a @ x
    estimates = [(f[3], m) for _, m, f in rows if f[3] > 0]
    return Correction(
        coefficients={name: float(v) for name, v in zip(FEATURES, x) if v},
        cases=len(rows),
        worst=float(max(max(p, 1 / p) for p in predicted)),
        floor=float(min((m / e for e, m in estimates), default=1.0)),
    )


def device_key(device: Device | None) -> str:
    """Which entry of the cache a device's corrections are kept under."""
    from .. import __version__

    if device is None:
        return f"{HOST_KEY} / {platform.machine()} x {os.cpu_count()} / clsolve {__version__}"
    driver = device.cl_device.driver_version.strip()
    return f"{device.label} / driver {driver} / clsolve {__version__}"


def path() -> Path:
    """The cache file."""
    folder = os.environ.get("CLSOLVE_CACHE")
    if not folder:
        base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        folder = str(Path(base) / "clsolve")
    return Path(folder) / FILE_NAME


def _entries() -> dict[str, dict]:
    global _loaded
    with _lock:
        if _loaded is None:
            try:
                _loaded = json.loads(path().read_text())
            except (OSError, ValueError):
                _loaded = {}
            if not isinstance(_loaded, dict):
                _loaded = {}
        return _loaded


def forget() -> None:
    """Read the cache file again at the next use (another process or a test wrote it)."""
    global _loaded
    with _lock:
        _loaded = None


def correction(solver: str, device: Device | None) -> Correction | None:
    """The measured correction of ``solver``'s estimates on ``device``, or None."""
    found = _entries().get(device_key(device), {}).get("solvers", {}).get(solver)
    try:
        return Correction(**found) if found else None
    except TypeError:  # an entry of another layout: as if absent
        return None


def corrected(solver: str, device: Device | None, plan: Planned) -> float:
    found = correction(solver, device)
    return found(plan) if found is not None and not getattr(plan, "measured", False) else plan.seconds


def least(solver: str, device: Device | None, seconds: float) -> float:
    """A solver's ``least_seconds`` corrected as its estimates are."""
    found = correction(solver, device)
    return found.least(seconds) if found is not None else seconds


def save(device: Device | None, corrections: dict[str, Correction], date: str) -> Path:
    """Keep ``corrections`` for ``device`` (replacing its entry) in the cache file."""
    entries = dict(_entries())
    entries[device_key(device)] = {"date": date, "solvers": {k: asdict(v) for k, v in sorted(corrections.items())}}
    target = path()
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_suffix(f".{os.getpid()}.tmp")
    temporary.write_text(json.dumps(entries, indent=1))
    os.replace(temporary, target)
    forget()
    return target


def entry(device: Device | None) -> dict | None:
    """The cache's entry for ``device`` (its date and corrections), or None."""
    return _entries().get(device_key(device))
