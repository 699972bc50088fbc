"""OR-Library's mknap2 (the SAC-94 set): its problem blocks read with their names and optima, the
notes before them left alone, errors at the file's own lines; every problem of the shared part solved
at its published optimum."""

import re

import pytest

import clsolve
from clsolve.cli import main
from clsolve.io import formats

NOTES = """ These problems were contributed to OR-Library.
 +++++++++++++++++++++++++++++
 EXAMPLE (a comment, not an instance)
 2 28 // 2 knapsacks, 28 objects
 +++++++++++++++++++++++++++++

 problem TINY.DAT

 +++++++++++++++++++++++++++++
 2 4
 10 40 30 50
 10 8
 5 4 6 3
 1 7 2 4
 80
 +++++++++++++++++++++++++++++

 problem SECOND.DAT

 +++++++++++++++++++++++++++++
 1 2
 3 4
 5
 2 3
 7
"""


def test_blocks_read_with_names_dimensions_and_optima(tmp_path):
    path = tmp_path / "mknap2.txt"
    path.write_text(NOTES)
    tiny, second = formats.read(path)
    assert (tiny.name, tiny.n, tiny.m, tiny.known_optimum) == ("TINY", 4, 2, 80)
    assert tiny.weights.tolist() == [[5, 1], [4, 7], [6, 2], [3, 4]] and tiny.capacities.tolist() == [10, 8]
    assert (second.name, second.m, second.known_optimum) == ("SECOND", 1, 7)
    assert formats.detect(str(path), NOTES) == "mknap2"
    assert clsolve.solve(tiny, solver="sequential").value == 80


@pytest.mark.parametrize(
    "broken, where",
    [
        (NOTES.replace(" 5 4 6 3\n", " 5 4 x 3\n"), ":13: TINY: weight (1, 3): 'x' is not a number"),
        (NOTES.replace(" 7\n", " 7 8\n"), ":25: SECOND: unexpected numbers after the optimal value"),
        (NOTES.replace(" 1 7 2 4\n 80\n", ""), ":13: file ends where TINY: weight (2, 1) was expected"),
    ],
)
def test_errors_name_the_problem_and_the_files_line(tmp_path, broken, where):
    path = tmp_path / "mknap2.txt"
    path.write_text(broken)
    with pytest.raises(clsolve.FormatError, match=re.escape(where)):
        formats.read(path)


def test_the_shared_part_is_solved_at_every_published_optimum(data, device, capsys):
    path = data / "orlib-mkp" / "mknap2-part.txt"
    if not path.is_file():
        pytest.skip("mknap2-part.txt absent")
    problems = formats.read(path)
    assert [p.name for p in problems] == ["SENTO1", "SENTO2"] + [f"WEING{k}" for k in range(1, 9)] + ["WEISH01"]
    for problem in problems:
        solution = clsolve.solve(problem, device=device)
        assert solution.optimal and solution.value == problem.known_optimum, problem.name
    assert main(["solve", str(path), "--list"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert len(listed) == 11 and listed[0].split()[:3] == ["0", "SENTO1", "KP30"]
