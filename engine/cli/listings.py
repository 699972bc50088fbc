"""``clsolve examples``, ``clsolve solvers`` and ``clsolve devices``: what is bundled, installed and
present, as aligned columns or JSON."""

from __future__ import annotations

import json
import sys

from .. import api, examples
from ..runtime import costs, kernels
from ..runtime.devices import get_device
from .exits import EXIT_FAILURE, EXIT_OK


def _columns(rows: list[tuple[str, ...]]) -> None:
    widths = [max((len(row[i]) for row in rows), default=0) for i in range(len(rows[0]) - 1)] if rows else []
    for row in rows:
        print("  ".join(f"{cell:<{width}}" for cell, width in zip(row, widths)) + "  " + row[-1])


def cmd_examples(args) -> int:
    if args.json:
        print(
            json.dumps(
                [
                    {"name": e.name, "what": e.what, "source": e.source, "file": str(examples.path(e.name))}
                    for e in examples.EXAMPLES.values()
                ],
                indent=2,
            )
        )
        return EXIT_OK
    _columns([(e.name, e.what) for e in examples.EXAMPLES.values()])
    print(
        "\nsolve one with `clsolve solve --example NAME`; sources and citations: "
        f"{examples.path(examples.names()[0]).parent / 'SOURCE.md'}"
    )
    return EXIT_OK


def cmd_solvers(args) -> int:
    listing = api.solvers()
    if args.json:
        print(json.dumps([s.to_dict() for s in listing], indent=2))
    else:
        _columns([(s.name, ", ".join(s.problems), "anytime" if s.anytime else "", s.summary) for s in listing])
        print(
            "\nanytime: answers under any time limit (best found, with a proven bound); the others raise "
            "TimeLimitError when no answer comes in time"
        )
    return EXIT_OK


def cmd_devices(args) -> int:
    from ..runtime import icd

    listing = api.devices()
    if args.json:
        print(json.dumps([d.to_dict() for d in listing], indent=2))
        return EXIT_OK
    if icd.applied:
        print(f"note: {icd.applied}", file=sys.stderr)
    if not listing:
        print(
            "no OpenCL devices found: install PoCL's CPU device (pip install 'clsolve[pocl]') or a GPU "
            "driver; host solvers (sequential) still run",
            file=sys.stderr,
        )
        return EXIT_FAILURE
    for d in listing:
        simulator = " (a simulator: used only when named)" if d.simulator else ""
        print(
            f"{d.spec}  {d.platform} / {d.name} [{d.type}]{simulator}: {d.global_memory_bytes / 2**30:.1f} GiB global, "
            f"{d.max_allocation_bytes / 2**30:.1f} GiB per buffer, {d.local_memory_bytes // 1024} KiB local, "
            f"{d.compute_units} compute units, work-groups up to {d.max_work_group_size}; {_calibrated(d.spec)}"
        )
    folder, files, size = kernels.build_cache()
    print(
        f"\nkernel builds are kept in {folder} ({files} files, {size / 2**20:.1f} MiB): a kernel built once per "
        "device and version loads from there; `clsolve calibrate` builds every solver's kernels for a device "
        "and measures each solver there, for auto"
    )
    return EXIT_OK


def _calibrated(spec: str) -> str:
    entry = costs.entry(get_device(spec))
    return f"calibrated {entry['date']}" if entry else "not calibrated"
