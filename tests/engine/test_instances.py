"""Real public instances (../shared/data), solved to their published optima; skipped when absent."""

from fractions import Fraction

import pytest
from conftest import class_a_problems

import clsolve
from clsolve.io import formats

KP01 = "kp01/instances_01_KP"


def _optimum(path):
    return Fraction(path.read_text().strip())


def _large_scale(data):
    folder = data / KP01 / "large_scale"
    if not folder.is_dir():
        pytest.skip("large_scale instances absent")
    return sorted(folder.iterdir(), key=lambda p: int(p.name.split("_")[2]))


def test_large_scale_to_published_optimum(data, device):
    files = _large_scale(data)
    assert len(files) == 21
    for path in files:
        (problem,) = formats.read(path)
        solution = clsolve.solve(problem, solver="dp-rows", device=device)
        assert solution.value == _optimum(data / KP01 / "large_scale-optimum" / path.name), path.name


def test_large_scale_small_ones_with_sequential(data):
    for path in _large_scale(data)[:6]:
        (problem,) = formats.read(path)
        assert clsolve.solve(problem, solver="sequential").value == _optimum(data / KP01 / "large_scale-optimum" / path.name)


def test_low_dimensional_to_published_optimum(data, device):
    folder = data / KP01 / "low-dimensional"
    if not folder.is_dir():
        pytest.skip("low-dimensional instances absent")
    for path in sorted(folder.iterdir()):
        optimum = _optimum(data / KP01 / "low-dimensional-optimum" / path.name)
        if path.name.startswith("f5_"):
            with pytest.raises(clsolve.FormatError, match="fractional"):
                formats.read(path)
            continue
        (problem,) = formats.read(path)
        for solver in ("dp-rows", "sequential"):
            assert clsolve.solve(problem, solver=solver, device=device).value == optimum, path.name


@pytest.mark.gpu
def test_f5_scaled_to_integers_on_a_gpu(data, device):
    """f5 has six decimals: scaled by 1e6 it is an exact integer problem with 3.75e8 states."""
    (path,) = (data / KP01 / "low-dimensional").glob("f5_*")
    (problem,) = formats.read(path, scale=10**6)
    solution = clsolve.solve(problem, solver="dp-rows", device=device)
    optimum = _optimum(data / KP01 / "low-dimensional-optimum" / path.name)
    assert abs(Fraction(solution.value, 10**6) - optimum) < Fraction(1, 10**4)


def test_class_a_reads_43_instances(data):
    problems = class_a_problems(data)
    assert len(problems) == 43
    a33 = next(p for p in problems if p.name == "a33")
    assert a33.n == 134 and a33.capacities.tolist() == [2100, 2550]


def test_class_a_equal_to_sequential(class_a, device):
    for problem, expected in class_a:
        assert clsolve.solve(problem, solver="dp-rows", device=device).value == expected, problem.name


def test_msb_files_read_as_kp2(data, device):
    folder = data / "2dpacklib" / "MSB-630_Unibo"
    if not folder.is_dir():
        pytest.skip("MSB folder absent")
    files = sorted(folder.glob("*.json"))
    assert len(files) == 630
    (problem,) = formats.read(files[0])
    assert problem.n == 20 and problem.capacities.tolist() == [1000, 1000]
    assert clsolve.solve(problem, solver="dp-rows", device=device).value == clsolve.solve(problem, solver="sequential").value


def test_mknap1_is_read_and_refused_by_dp_solvers(data):
    path = data / "orlib-mkp" / "mknap1.txt"
    if not path.is_file():
        pytest.skip("mknap1 absent")
    problems = formats.read(path, scale=10)
    assert len(problems) == 7 and all(p.m > 3 for p in problems)
    with pytest.raises(clsolve.UnsupportedProblemError, match="m = "):
        clsolve.solve(problems[0], solver="dp-rows")
