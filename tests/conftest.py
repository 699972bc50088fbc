"""Shared fixtures. Tests run on the device named by CLSOLVE_DEVICE (default: auto, which is PoCL's
CPU where no GPU exists). The shared data folder is ../shared/data (or CLSOLVE_DATA); tests that need
it skip cleanly when it is absent."""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import numpy as np
import pytest

import clsolve
from clsolve.bench.common import data_root
from clsolve.io import formats
from clsolve.runtime.devices import settle_left_work


@pytest.fixture(scope="session")
def device() -> clsolve.Device:
    return clsolve.get_device(os.environ.get("CLSOLVE_DEVICE"))


@pytest.fixture(autouse=True)
def _gpu_only(request):
    """A test marked ``gpu`` (sizes only a GPU solves in a test's time) skips on any other device."""
    if request.node.get_closest_marker("gpu") is not None and not request.getfixturevalue("device").is_gpu:
        pytest.skip("marked gpu: run on a GPU (CLSOLVE_DEVICE=gpu)")


@pytest.fixture(scope="session", autouse=True)
def _uncalibrated(tmp_path_factory):
    """The solvers' own estimates: a calibration kept on this machine (``clsolve calibrate``) would
    change ``auto``'s picks that tests rely on; tests that calibrate write to this empty cache."""
    from clsolve.runtime import costs as model

    os.environ["CLSOLVE_CACHE"] = str(tmp_path_factory.mktemp("clsolve-cache"))
    model.forget()


@pytest.fixture(scope="session", autouse=True)
def _plugins_loaded():
    """The installed plugins imported once before any test: a process's first call imports them before
    its clock starts, and a test that times a call would count it."""
    from clsolve.plugin import registry

    registry.solver_classes()


@pytest.fixture(autouse=True)
def _settled():
    """Each test starts with no work an earlier test left running at a time limit (a call waits for it
    before its clock starts, but a test's own clock would count it)."""
    settle_left_work()


@pytest.fixture(scope="session")
def data() -> Path:
    root = data_root()
    if root is None or not root.is_dir():
        pytest.skip("shared data folder not found (set CLSOLVE_DATA)")
    return root


def class_a_problems(data: Path) -> list[clsolve.Knapsack]:
    """2DPackLib's class A (43 KP2) from the data folder; the test skips where the file is absent."""
    path = data / "2dpacklib" / "classA" / "class_A_only.txt"
    if not path.is_file():
        pytest.skip("class A file absent")
    return formats.read(path)


@pytest.fixture(scope="session")
def class_a(data) -> list[tuple[clsolve.Knapsack, int]]:
    """class_a_problems, each with its optimum from ``sequential``, computed once for every test that
    checks a solver against it."""
    return [(problem, clsolve.solve(problem, solver="sequential").value) for problem in class_a_problems(data)]


def brute_force(problem: clsolve.Knapsack) -> int:
    """Best value over all 2^n subsets (n <= 22): every subset's weights and profit at once, built
    item by item (the subsets without the item, then with it); Python integers where 64 bits could
    overflow."""
    assert problem.n <= 22, "brute force is for small problems"
    weights = problem.weights.reshape(problem.n, -1)
    largest = max(sum(problem.profits.tolist()), *(sum(column) for column in weights.T.tolist()))  # Python integers
    if largest >= 2**62:
        return _brute_force_exact(problem)
    small = largest < 2**31
    dtype = np.int32 if small else np.int64
    fits = np.ones(1 << problem.n, dtype=bool)
    for w, cap in zip(weights.T.astype(dtype), problem.capacities.tolist()):  # dimension by dimension
        fits &= _subset_sums(w, dtype) <= cap
    return int(_subset_sums(problem.profits.astype(dtype), dtype)[fits].max())


def _subset_sums(values: np.ndarray, dtype: type) -> np.ndarray:
    """sums[S] for every subset S of the items (bit i of S: item i)."""
    sums = np.zeros(1 << len(values), dtype=dtype)
    for i, v in enumerate(values):
        sums[1 << i : 2 << i] = sums[: 1 << i] + v
    return sums


def _brute_force_exact(problem: clsolve.Knapsack) -> int:
    """brute_force in Python integers, subset by subset."""
    best = 0
    weights = problem.weights.astype(object)
    profits = problem.profits.astype(object)
    caps = problem.capacities.astype(object)
    for mask in itertools.product((False, True), repeat=problem.n):
        chosen = np.array(mask, dtype=bool)
        if all(weights[chosen].sum(axis=0) <= caps) if chosen.any() else True:
            best = max(best, int(profits[chosen].sum()) if chosen.any() else 0)
    return best


def efficiency_classes(seed: int, n: int = 40, m: int = 2) -> clsolve.Knapsack:
    """KP2 (or KP3) with items of three efficiencies, class A's a33 in miniature: reduced costs fix
    many of them against a greedy incumbent."""
    rng = np.random.default_rng(seed)
    weights = rng.integers(1, 30, (n, m))
    profits = weights.sum(axis=1) * rng.choice([1, 3, 9], n) + rng.integers(0, 3, n)
    return clsolve.Knapsack(profits, weights, [150, 170] if m == 2 else [70, 80, 75], weights_by="item")
