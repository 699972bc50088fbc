"""``clsolve calibrate``: build every solver's kernels on a device and measure its speed there
(``clsolve.calibration``); ``auto`` and the plans' seconds use the result from then on."""

from __future__ import annotations

import json
import sys

from .. import calibration as calibrate
from ..runtime import costs as model
from ..runtime.devices import get_device
from .exits import EXIT_OK


def add_parser(sub) -> None:
    p = sub.add_parser(
        "calibrate",
        help="build kernels and measure each solver on a device, for auto and the plans",
        description="Solve a fixed set of problems with every installed solver on the device (the first "
        "solve of each builds its kernels), fit each solver's estimates to the measured times and keep "
        "the fit for this device, driver and clsolve version. auto and --plan use it from then on. "
        "Takes about a minute on a GPU, a few minutes on PoCL's CPU device.",
    )
    p.add_argument("--device", default=None, help="device spec (default: $CLSOLVE_DEVICE or auto)")
    p.add_argument("--solver", action="append", metavar="NAME", help="only this solver (repeatable)")
    p.add_argument(
        "--time-limit", type=float, default=calibrate.CAP_SECONDS, metavar="SECONDS", help="the longest one solve may take"
    )
    p.add_argument("--quick", action="store_true", help="five of the eleven problems, one of each kind")
    p.add_argument("--show", action="store_true", help="print what is kept for the device, without measuring")
    p.add_argument("--json", action="store_true", help="the corrections as JSON on stdout")
    p.add_argument("--quiet", "-q", action="store_true", help="no line per solve on stderr")
    p.set_defaults(run=run)


def run(args) -> int:
    device = get_device(args.device)
    if args.show:
        entries = {"device": model.entry(device), "host": model.entry(None)}
        if args.json:
            print(json.dumps({"file": str(model.path()), **entries}, indent=1))
            return EXIT_OK
        print(f"{model.path()}")
        for where, entry in (("device " + device.label, entries["device"]), ("host", entries["host"])):
            if entry is None:
                print(f"{where}: not calibrated (run `clsolve calibrate`)")
                continue
            print(f"{where}: calibrated {entry['date']}")
            _table({k: model.Correction(**v) for k, v in entry["solvers"].items()})
        return EXIT_OK

    def report(timed: calibrate.Timed) -> None:
        if not args.quiet:
            took = f"{timed.seconds:.4f} s" if timed.seconds is not None else f"not timed: {timed.reason}"
            print(f"  {timed.problem}: {timed.solver} {took} (its model said {timed.estimate:.3g} s)", file=sys.stderr)

    print(f"calibrating on {device.label} ...", file=sys.stderr)
    problems = calibrate.quick(calibrate.panel(0)) if args.quick else None
    corrections = calibrate.calibrate(device, args.solver, args.time_limit, report, problems)
    if args.json:
        print(json.dumps({k: vars(v) for k, v in corrections.items()}, indent=1))
    else:
        _table(corrections)
        print(f"kept in {model.path()}")
    return EXIT_OK


def _table(corrections: dict[str, model.Correction]) -> None:
    print(f"  {'solver':<12} {'problems':>8} {'worst ratio':>12}  seconds =")
    for name, c in sorted(corrections.items()):
        terms = " + ".join(f"{v:.3g} x {k}" for k, v in c.coefficients.items())
        print(f"  {name:<12} {c.cases:>8} {c.worst:>12.2f}  {terms}")
