import json

import numpy as np
import pytest

import clsolve
from clsolve import FormatError
from clsolve.io import formats


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_pisinger_with_and_without_solution_line(tmp_path):
    plain = write(tmp_path, "a", "3 10\n5 4\n6 5\n3 2\n")
    with_solution = write(tmp_path, "b", "3 10\r\n5 4\r\n6 5\r\n3 2\r\n1 1 0\r\n")
    for path in (plain, with_solution):
        (p,) = formats.read(path)
        assert p.profits.tolist() == [5, 6, 3] and p.weights[:, 0].tolist() == [4, 5, 2] and p.capacities[0] == 10


def test_jooken(tmp_path):
    path = write(tmp_path, "test.in", "2\n0 10 3\n1 20 4\n5\n")
    (p,) = formats.read(path)
    assert p.profits.tolist() == [10, 20] and p.capacities.tolist() == [5]


def test_mknap_and_scale(tmp_path):
    path = write(tmp_path, "mk.txt", "2\n2 2 7\n3 4\n1 2\n2 1\n3 3\n1 1 0\n1.5\n2\n2\n")
    first, second = formats.read(path, scale=2)
    assert first.m == 2 and first.weights.tolist() == [[2, 4], [4, 2]] and first.known_optimum == 14
    assert second.profits.tolist() == [3] and second.known_optimum is None


def test_json_single_and_many(tmp_path):
    one = write(
        tmp_path, "one.json", json.dumps({"profits": [1, 2], "weights": [1, 1], "capacities": 1, "name": "x", "optimum": 2})
    )
    (p,) = formats.read(one)
    assert p.name == "x" and p.known_optimum == 2
    many = write(
        tmp_path,
        "many.json",
        json.dumps(
            {
                "problems": [
                    {"profits": [1], "weights": [[1, 2]], "capacities": [1, 2]},
                    {"profits": [3], "weights": [1], "capacities": [4]},
                ]
            }
        ),
    )
    assert [q.m for q in formats.read(many)] == [2, 1]


def test_class_a_line_into_kp2(tmp_path):
    path = write(tmp_path, "a.txt", "a99;2;30;20;5,4,3;10,2\n")
    (p,) = formats.read(path)
    # c1 = plate height 20, c2 = plate width 30; weights (height, width); profit = area; counts ignored
    assert p.capacities.tolist() == [20, 30]
    assert p.weights.tolist() == [[4, 5], [2, 10]] and p.profits.tolist() == [20, 20]


def test_msb_json_into_kp2(tmp_path):
    path = write(
        tmp_path,
        "m.json",
        json.dumps(
            {"Name": "M", "Container": {"Dx": 10, "Dy": 7, "Area": 70}, "Items": [{"Dx": 3, "Dy": 2}, {"Dx": 4, "Dy": 4}]}
        ),
    )
    (p,) = formats.read(path)
    assert p.name == "M" and p.capacities.tolist() == [7, 10] and p.weights.tolist() == [[2, 3], [4, 4]]
    assert p.profits.tolist() == [6, 16]


@pytest.mark.parametrize(
    "name, text, line, words",
    [
        ("p1", "3 10\n5 4\n6 x\n", 3, "not a number"),
        ("p2", "3 10\n5 4\n6 5\n", 3, "file ends"),
        ("p3", "2 10\n5 -4\n6 5\n", 2, "negative"),
        ("p4", "2 10\n5 4.5\n6 5\n", 2, "fractional"),
        ("p5", "2 10\n5 4\n6 5\n1 1 1\n", 4, "numbers after"),
        ("p6", "2 10\n5 4\n6 5\n1 7\n", 4, "not 0 or 1"),
        ("c1", "a1;2;30;20;5,4\n", 1, "declares n = 2"),
        ("c2", "a1;1;30;20;5\n", 1, "w,h"),
        ("m1", "1\n2 1 0\n3 4\n1 2\n", 4, "file ends"),
        ("j1", "{ nope", 1, "invalid JSON"),
    ],
)
def test_malformed_files_name_the_line(tmp_path, name, text, line, words):
    path = write(tmp_path, name, text)
    with pytest.raises(FormatError) as info:
        formats.read(path)
    assert f"{path}:{line}:" in str(info.value) and words in str(info.value)


def test_missing_empty_and_unknown(tmp_path):
    with pytest.raises(FormatError, match="No such file"):
        formats.read(tmp_path / "absent")
    with pytest.raises(FormatError, match="empty"):
        formats.read(write(tmp_path, "e", "  \n"))
    with pytest.raises(FormatError, match="unknown format"):
        formats.read(write(tmp_path, "u", "1 2\n"), format="nope")
    with pytest.raises(FormatError, match="missing field"):
        formats.read(write(tmp_path, "j.json", '{"profits": [1]}'))


def test_chu_beasley_mknapcb_layout_reads_as_mknap(tmp_path):
    """OR-Library's mknapcb files ([CB98]) share mknap1's layout: K, then per problem "n m opt" (0: not
    known), the profits, m rows of weights and the capacities, wrapped over lines with leading blanks."""
    text = " 2\n 3 2 0\n 10 20\n 30\n 1 2 3\n 4 5\n 6\n 5 9\n 2 2 7\n 3 4\n 1 1\n 1 1\n 1 1\n"
    path = tmp_path / "mknapcb0.txt"
    path.write_text(text)
    first, second = formats.read(path)
    assert (first.n, first.m, first.known_optimum) == (3, 2, None) and second.known_optimum == 7
    np.testing.assert_array_equal(first.weights, [[1, 4], [2, 5], [3, 6]])
    np.testing.assert_array_equal(first.capacities, [5, 9])
    assert clsolve.solve(first, solver="mkp-bnb").value == 30  # items 1 and 2 (weights 3, 9), or item 3 alone
