"""A bad-input corpus for every reader and the CLI: each file must end in a FormatError naming the
file (and the line where there is one), quickly: never a hang, a crash, another exception or a
silent answer. The CLI exits 2 for each."""

from __future__ import annotations

import json
import time

import pytest

import clsolve
from clsolve import cli
from clsolve.io import formats

PISINGER = "3 10\n5 4\n6 5\n7 6\n"
JOOKEN = "2\n1 5 4\n2 6 5\n9\n"
MKNAP = "1\n2 1 0\n5 6\n4 5\n9\n"
CLASS_A = "a1;2;10;10;3,4;5,6\n"
MSB = json.dumps({"Name": "x", "Container": {"Dx": 10, "Dy": 10}, "Items": [{"Dx": 3, "Dy": 4}]})
KP_JSON = json.dumps({"profits": [5, 6], "weights": [4, 5], "capacities": 9})
TSP_EXPLICIT = (
    "NAME: t\nTYPE: TSP\nDIMENSION: 3\nEDGE_WEIGHT_TYPE: EXPLICIT\nEDGE_WEIGHT_FORMAT: FULL_MATRIX\n"
    "EDGE_WEIGHT_SECTION\n0 1 2\n1 0 3\n2 3 0\nEOF\n"
)
TSP_COORDS = "NAME: t\nTYPE: TSP\nDIMENSION: 3\nEDGE_WEIGHT_TYPE: EUC_2D\nNODE_COORD_SECTION\n1 0 0\n2 3 4\n3 6 8\nEOF\n"


def _variants() -> list[tuple[str, str | bytes, str]]:
    """(format, content, what is wrong)."""
    cases = []
    for fmt, good in (("pisinger", PISINGER), ("jooken", JOOKEN), ("mknap", MKNAP), ("class-a", CLASS_A)):
        cases += [
            (fmt, good[: len(good) // 2], "truncated"),
            (fmt, good.replace("5", "x", 1), "non-numeric token"),
            (fmt, good.replace("5", "-5", 1), "negative"),
            (fmt, good.replace("5", "nan", 1), "NaN"),
            (fmt, good.replace("5", "inf", 1), "infinity"),
            (fmt, good.replace("5", "5.5", 1), "fractional"),
            (fmt, good.replace("5", "1e400", 1), "1e400"),
            (fmt, good.replace("5", "1e999999999", 1), "huge exponent"),
            (fmt, good.replace("5", str(2**80), 1), "2^80"),
            (fmt, good.replace("5", "5" * 5000, 1), "5000 digits"),
            (fmt, good.replace("5", "５", 1), "unicode digit"),
        ]
        if fmt != "class-a":
            cases.append((fmt, good + " 7 7 7 7 7\n", "extra tokens"))
    cases += [
        ("mknap", "1\n0 1000000000 0\n", "zero items, huge m"),
        ("mknap", "0\n", "K = 0"),
        ("mknap", "1\n1 1000000000 0\n1\n", "counts past the file"),
        ("pisinger", "1000000000 5\n1 1\n", "n past the file"),
        ("jooken", "1000000000\n1 1 1\n5\n", "n past the file"),
        ("class-a", "a1;3;10;10;3,4;5,6\n", "wrong count"),
        ("class-a", "a1;2;10;10;3,4,1,1;5,6\n", "bad item"),
        ("json", "5", "a number"),
        ("json", "null", "null"),
        ("json", "[" * 5000 + "]" * 5000, "nested 5000 deep"),
        ("json", '{"profits": [' + "9" * 4400 + '], "weights": [1], "capacities": 1}', "4400 digits"),
        ("json", '{"profits": [1e999], "weights": [1], "capacities": 1}', "infinite float"),
        ("json", '{"profits": [NaN], "weights": [1], "capacities": 1}', "NaN"),
        ("json", '{"profits": [1], "weights": [1]}', "missing capacities"),
        ("json", '{"profits": [1, 2], "weights": [[1, 2], [3, 4]], "capacities": [3, 3]}', "square weights"),
        ("json", '{"profits": [1], "weights": [1], "capacities": 1, "optimum": 1e999}', "infinite optimum"),
        ("json", '{"distances": [[0, 1], [1]]}', "ragged TSP"),
        ("json", '{"problems": []}', "no problems"),
        ("msb", '{"Container": {"Dx": "a", "Dy": 1}, "Items": []}', "non-numeric container"),
        ("msb", '{"Container": 5, "Items": 5}', "wrong types"),
        ("msb", "[" * 5000, "deep and truncated"),
        ("tsplib", TSP_EXPLICIT.replace("DIMENSION: 3", "DIMENSION: 100000"), "dimension past the section"),
        ("tsplib", TSP_EXPLICIT.replace("DIMENSION: 3", "DIMENSION: 2"), "extra numbers"),
        ("tsplib", TSP_EXPLICIT.replace("0 1 2\n", "0 1 2 9\n"), "one extra number"),
        ("tsplib", TSP_EXPLICIT.replace("1 0 3", "1 0 x"), "non-numeric weight"),
        ("tsplib", TSP_EXPLICIT.replace("1 0 3", "1 0 -3"), "negative weight"),
        ("tsplib", TSP_COORDS.replace("DIMENSION: 3", "DIMENSION: -1"), "negative dimension"),
        ("tsplib", TSP_COORDS.replace("DIMENSION: 3", "DIMENSION: 0").replace("EUC_2D", "GEO"), "GEO, dimension 0"),
        ("tsplib", TSP_COORDS.replace("DIMENSION: 3", "DIMENSION: 2"), "more cities than the dimension"),
        ("tsplib", TSP_COORDS.replace("3 4", "inf 4"), "infinite coordinate"),
        ("tsplib", TSP_COORDS.replace("3 4", "1e400 4"), "1e400 coordinate"),
        ("tsplib", TSP_COORDS.replace("3 4", "nan 4"), "NaN coordinate"),
        ("tsplib", TSP_COORDS.replace("3 4", "1e39 4"), "distances past 2^62"),
        ("tsplib", TSP_COORDS.replace("2 3 4", "2 3"), "short coordinate line"),
        ("tsplib", TSP_COORDS.replace("TYPE: TSP", "TYPE: CVRP"), "a vehicle routing problem"),
        ("fasta", ">a\nACGT\n", "one record"),
        ("fasta", "ACGT\n>a\nAC\n", "data before the header"),
        ("sequences", "3 4\nACGT\nACG\n", "announced count wrong"),
        ("sequences", "ACGT\nAC GT X\n", "three fields"),
    ]
    for fmt in formats.FORMATS:
        cases += [(fmt, "", "empty"), (fmt, b"\x00\xff\xfe\x80" * 64, "binary junk")]
    return cases


CASES = _variants()


@pytest.mark.parametrize("fmt, content, what", CASES, ids=[f"{f}-{w}" for f, _, w in CASES])
def test_reader_refuses_bad_input_quickly(tmp_path, fmt, content, what):
    path = tmp_path / f"bad.{fmt}"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    began = time.perf_counter()
    with pytest.raises(clsolve.FormatError) as info:
        formats.read(path, fmt)
    assert time.perf_counter() - began < 5, "a reader took too long"
    message = str(info.value)
    assert str(path) in message
    assert "Error" not in message.split(":", 2)[-1] or "invalid JSON" in message, message  # no leaked exception names
    assert cli.main(["solve", str(path), "--format", fmt, "--solver", "sequential", "--quiet"]) == 2


def test_the_corpus_covers_every_reader():
    assert {fmt for fmt, _, _ in CASES} == set(formats.FORMATS)
    assert len(CASES) >= 80


@pytest.mark.parametrize(
    "content",
    [
        PISINGER,
        JOOKEN,
        MKNAP,
        CLASS_A,
        MSB,
        KP_JSON,
        TSP_EXPLICIT,
        TSP_COORDS,
        TSP_COORDS.replace("TYPE: TSP", "TYPE: TSP (M.~HOFMEISTER)"),  # TSPLIB's si175 names its source so
    ],
)
def test_the_good_files_of_the_corpus_read(tmp_path, content):
    path = tmp_path / "good.txt"
    path.write_text(content)
    assert formats.read(path)
