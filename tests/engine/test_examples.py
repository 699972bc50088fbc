"""The bundled example instances: each loads, the known optima are reached, and the CLI solves one by
name from the installed package."""

from __future__ import annotations

import pytest

import clsolve
from clsolve import examples
from clsolve.cli import main

KNOWN = {"knapPI_1_100_1000_1": 9147, "gr17": 2085}


@pytest.mark.parametrize("name", examples.names())
def test_every_example_loads_and_solves(name, device):
    problem = examples.load(name)
    assert examples.path(name).is_file()
    solution = clsolve.solve(problem, device=device)
    assert solution.optimal
    if name in KNOWN:
        assert solution.value == KNOWN[name]


def test_the_cli_lists_and_solves_examples(capsys):
    assert main(["examples"]) == 0
    listing = capsys.readouterr().out
    assert all(name in listing for name in examples.names())
    assert main(["solve", "--example", "gr17", "--solver", "sequential", "--json", "-q"]) == 0
    assert '"value": 2085' in capsys.readouterr().out


def test_an_unknown_example_is_a_usage_error(capsys):
    assert main(["solve", "--example", "nope"]) == 2
    assert "a33" in capsys.readouterr().err
    assert main(["solve"]) == 2
