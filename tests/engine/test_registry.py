"""The solver registry: one listing of the plugins per process, a clear refusal of a name two packages
claim, and the test hook that stands in for installed plugins."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import clsolve
from clsolve.plugin import registry

HERE = Path(__file__).resolve().parents[1]  # tests/


def test_the_plugins_are_listed_once(monkeypatch):
    registry.refresh()
    built = []
    real = registry._build
    monkeypatch.setattr(registry, "_build", lambda: built.append(1) or real())
    for _ in range(3):
        registry.load("sequential")
        registry.names()
    assert built == [1]
    registry.refresh()
    registry.names()
    assert built == [1, 1]


def test_a_solver_loads_by_name_alone():
    """load goes through stevedore's DriverManager: the listing of every plugin is not built."""
    registry.refresh()
    assert type(registry.load("sequential")).__name__ == "SequentialSolver"
    assert "manager" not in registry._state
    with pytest.raises(clsolve.UnknownSolverError, match="unknown solver 'nope'; installed solvers: .*dp-rows"):
        registry.load("nope")
    registry.refresh()


def test_the_test_hook_stands_in_for_installed_plugins():
    sys.path.insert(0, str(HERE / "third_party_solver"))
    try:
        from clsolve_exhaustive import ExhaustiveSolver
    finally:
        sys.path.pop(0)
    problem = clsolve.Knapsack([10, 40, 30, 50], [5, 4, 6, 3], 10)
    with registry.testing({"exhaustive": ExhaustiveSolver}):
        assert registry.names() == ["exhaustive"]
        assert clsolve.solve(problem, solver="exhaustive").value == 90
        with pytest.raises(clsolve.UnknownSolverError, match="installed solvers: exhaustive"):
            registry.load("dp-rows")
    assert "dp-rows" in registry.names() and "exhaustive" not in registry.names()


def _distribution(site: Path, name: str, target: str) -> None:
    """A minimal installed distribution (its dist-info only) registering solver ``twin``."""
    info = site / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[clsolve.solvers]\ntwin = {target}\n")


def test_a_name_two_packages_claim_is_refused_naming_both(tmp_path):
    site = tmp_path / "site"
    _distribution(site, "first_twin", "clsolve_plugins.sequential:SequentialSolver")
    _distribution(site, "second_twin", "clsolve_plugins.dp_rows:RowParallelSolver")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}
    code = (
        "import clsolve\n"
        "try:\n    clsolve.solve(clsolve.Knapsack([1], [1], 1), solver='twin')\n"
        "except clsolve.UnknownSolverError as e:\n    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120).stdout
    assert "more than one installed package" in out
    assert "SequentialSolver" in out and "RowParallelSolver" in out


def test_a_solver_whose_name_is_not_its_entry_points_is_refused():
    """Registered as ``reference`` while its class says ``sequential``: answers would name the other."""
    from clsolve_plugins.sequential import SequentialSolver

    with registry.testing({"reference": SequentialSolver}):
        with pytest.raises(
            clsolve.UnknownSolverError, match="'reference' registers .*SequentialSolver, whose name is 'sequential'"
        ):
            registry.load("reference")
        problem = clsolve.Knapsack([10, 40, 30, 50], [5, 4, 6, 3], 10)
        with pytest.raises(clsolve.UnsupportedProblemError, match="reference: entry point 'reference'"):
            clsolve.solve(problem, solver="auto")
