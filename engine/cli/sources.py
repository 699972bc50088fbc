"""Where the command line's problems come from: files, folders (walked recursively), standard input
(``-``) and bundled examples; and which of them ``--instance`` selects.

Inside a folder, a file that is not an instance (a ``SOURCE.md``, a table of optima, a tour) is
skipped and reported, each with the reason its reading gave; a file that reads as an instance whose
data break the problem's rules (a negative profit) is an error, as is a file named on the command
line that cannot be read. Hidden files and folders (``.name``) are passed over in silence.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from .. import examples
from ..errors import FormatError
from ..family.problems import BoundedKnapsack, ChangeMaking, MultipleChoice, MultipleKnapsack
from ..io import formats
from ..problems import LCS, TSP, Knapsack

STDIN = "-"


@dataclass
class Source:
    """One problem and where it came from: ``origin`` (a path, ``<stdin>`` or ``example NAME``),
    its ``position`` in that file (from 1), and the ``scale`` its numbers were multiplied by. Its
    ``name``: the problem's own, else ``FILE#position`` (``FILE``: the file's name), as the readers
    name the unnamed problems of a file that holds several."""

    problem: Knapsack | BoundedKnapsack | ChangeMaking | MultipleChoice | MultipleKnapsack | LCS | TSP
    origin: str
    position: int
    scale: Fraction
    #: Its place in the run, from 0 (``--list``, errors and ``--json`` number problems by it).
    index: int = 0

    @property
    def name(self) -> str:
        return str(getattr(self.problem, "name", "") or f"{Path(self.origin).name}#{self.position}")


def gather(
    paths: list[str], example_names: list[str], format: str | None, scale: str, skipped: Callable[[str], None]
) -> list[Source]:
    """Every problem of the examples and paths, in order; ``skipped`` hears of each file a folder
    held that is not an instance."""
    factor = formats.scale_factor("--scale", scale)
    if example_names and (format is not None or factor != 1) and not paths:
        raise FormatError(
            "--example", None, "a bundled example is read in its own format and units: --format and --scale apply to files only"
        )
    out = [Source(examples.load(name), f"example {name}", 1, Fraction(1)) for name in example_names]
    for path in paths:
        if path == STDIN:
            out.extend(_sources("<stdin>", formats.read_text("<stdin>", sys.stdin.read(), format, scale), factor))
        elif Path(path).is_dir():
            out.extend(_folder(Path(path), format, scale, factor, skipped))
        else:
            out.extend(_sources(path, formats.read(path, format, scale), factor))
    for index, source in enumerate(out):
        source.index = index
    return out


def _sources(origin: str, problems: list, scale: Fraction) -> list[Source]:
    return [Source(problem, origin, k, scale) for k, problem in enumerate(problems, start=1)]


def _folder(root: Path, format: str | None, scale: str, factor: Fraction, skipped: Callable[[str], None]) -> list[Source]:
    out: list[Source] = []
    passed = 0
    invalid: list[FormatError] = []
    for path in walk(root):
        try:
            out.extend(_sources(str(path), formats.read(path, format, scale), factor))
        except FormatError as exc:
            if exc.invalid:
                invalid.append(exc)
                continue
            passed += 1
            skipped(f"skipped, not an instance: {exc}")
    if invalid:  # every invalid instance named at once, before anything is solved
        if len(invalid) == 1:
            raise invalid[0]
        listed = "; ".join(str(exc) for exc in invalid[:10]) + ("; ..." if len(invalid) > 10 else "")
        raise FormatError(str(root), None, f"{len(invalid)} invalid instance files: {listed}", invalid=True)
    if not out:
        raise FormatError(str(root), None, f"no instance files in this folder or below ({passed} other files)")
    return out


def walk(root: Path) -> list[Path]:
    """The files under ``root``, sorted, folders after the files beside them; hidden ones left out."""
    entries = sorted(p for p in root.iterdir() if not p.name.startswith("."))
    files = [p for p in entries if p.is_file()]
    folders = [p for p in entries if p.is_dir()]
    return files + [f for folder in folders for f in walk(folder)]


def select(sources: list[Source], wanted: list[str]) -> list[Source]:
    """The sources ``--instance`` names: by name, by index in the run (``3``: the fourth instance, as
    ``--list``, errors and ``--json`` number them from 0), or by position in each file (``#3``: the
    third instance of every file)."""

    def keys(index: int, source: Source) -> set[str]:
        return {source.name, str(index), f"#{source.position}"}

    keep = [s for i, s in enumerate(sources) if keys(i, s) & set(wanted)]
    found = set().union(*(keys(i, s) for i, s in enumerate(sources)))
    missing = [w for w in wanted if w not in found]
    if missing:
        names = ", ".join(s.name for s in sources[:10]) + (", ..." if len(sources) > 10 else "")
        raise FormatError(
            ", ".join(sorted({s.origin for s in sources})) or "the input",
            None,
            f"no instance named {', '.join(missing)}; the instances are {names} "
            "(`--list` shows them with their indices; an index such as 0 selects one, #1 the first of each file)",
        )
    return keep
