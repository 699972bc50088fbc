"""``clsolve datasets list|fetch|path``: the public data sets of the tests and benchmarks, by name
(``clsolve.datasets``)."""

from __future__ import annotations

import json
import sys
from typing import Any

from .. import datasets
from .exits import EXIT_OK


def add_parser(sub) -> None:
    p = sub.add_parser(
        "datasets",
        help="list, fetch and locate the public data sets of the tests and benchmarks",
        description="The public instance sets clsolve's tests and benchmarks use, by name: fetched from their "
        "origins (GitHub repositories at fixed commits), each file checked against its SHA-256, into "
        f"${datasets.FOLDER_VARIABLE} (default ~/.cache/clsolve/data), where benchmarks and tests find them. "
        f"${datasets.MIRROR_VARIABLE} or --mirror replaces {datasets.GITHUB_RAW} in every address.",
    )
    p.add_argument("action", choices=("list", "fetch", "path"))
    p.add_argument("names", nargs="*", metavar="NAME", help="data sets (fetch: default all of them)")
    p.add_argument("--mirror", default=None, metavar="URL", help=f"fetch from here instead of {datasets.GITHUB_RAW}")
    p.add_argument("--json", action="store_true")
    p.add_argument("--quiet", "-q", action="store_true", help="no line per file fetched")
    p.set_defaults(run=run)


def run(args) -> int:
    chosen = [datasets.get(name) for name in args.names] or [datasets.get(name) for name in datasets.names()]
    if args.action == "list":
        return _list(chosen, args.json)
    if args.action == "path":
        for dataset in chosen:
            print(datasets.path(dataset.name))
        return EXIT_OK
    for dataset in chosen:
        print(f"fetching {dataset.name} ({len(dataset.files)} files, {_size(dataset.size)}) ...", file=sys.stderr)
        where = datasets.fetch(
            dataset.name, args.mirror, None if args.quiet else lambda line: print(f"  {line}", file=sys.stderr)
        )
        print(where)
    return EXIT_OK


def _list(chosen: list[datasets.Dataset], as_json: bool) -> int:
    root = datasets.folder()
    rows: list[dict[str, Any]] = [
        {
            "name": d.name,
            "what": d.what,
            "files": len(d.files),
            "bytes": d.size,
            "present": datasets.present(d),
            "folder": str(root / d.top),
            "origin": d.origin,
            "citation": d.citation,
            "licence": d.licence,
        }
        for d in chosen
    ]
    if as_json:
        print(json.dumps(rows, indent=1))
        return EXIT_OK
    for row in rows:
        state = "fetched" if row["present"] == row["files"] else f"{row['present']} of {row['files']} files here"
        print(f"{row['name']:<12} {row['what']} ({_size(row['bytes'])}; {state})")
    print(f"\nfolder: {root} (${datasets.FOLDER_VARIABLE}); fetch one with `clsolve datasets fetch NAME`")
    return EXIT_OK


def _size(count: int) -> str:
    return f"{count / 2**20:.1f} MiB" if count >= 2**20 else f"{count / 2**10:.0f} KiB"
