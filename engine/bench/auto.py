"""``clsolve bench auto``: does ``auto`` pick a fast solver? Every installed solver timed on the panel's
shapes drawn with another seed than the calibration's (``clsolve.calibration.panel(1)``), the
solver ``auto`` picks for each, and its time over the best solver's. Run ``clsolve calibrate`` on the
device first: without it ``auto`` uses the solvers' own models (the result says which)."""

from __future__ import annotations

import datetime
import sys

from clsolve import calibration as calibrate
from clsolve import get_device

#: ``auto``'s target: the solver it picks is at most this many times slower than the best.
TARGET_RATIO = 3.0


def run(args) -> dict:
    device = get_device(args.device)
    problems = calibrate.panel(1)
    if args.quick:
        problems = calibrate.quick(problems)

    def report(timed: calibrate.Timed) -> None:
        took = f"{timed.seconds:.4f} s" if timed.seconds is not None else f"no time ({timed.reason})"
        print(f"{timed.problem}: {timed.solver} {took}, estimated {timed.corrected:.3g} s", file=sys.stderr)

    cases = calibrate.cases(problems, device, cap=args.time_limit or calibrate.CAP_SECONDS, report=report)
    ratios = [c.ratio for c in cases if c.ratio is not None]
    entry = calibrate.entry(device)
    return {
        "benchmark": "auto",
        "device": device.label,
        "date": datetime.date.today().isoformat(),
        "calibrated": entry["date"] if entry else None,
        "target_ratio": TARGET_RATIO,
        "worst_ratio": max(ratios) if ratios else None,
        "within_target": sum(r <= TARGET_RATIO for r in ratios),
        "cases": [c.to_dict() for c in cases],
        "command": "clsolve bench auto" + (" --quick" if args.quick else ""),
    }
