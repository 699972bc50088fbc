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


@pytest.fixture(scope="session")
def device() -> clsolve.Device:
    return clsolve.get_device(os.environ.get("CLSOLVE_DEVICE"))


@pytest.fixture(scope="session")
def data() -> Path:
    root = data_root()
    if root is None or not root.is_dir():
        pytest.skip("shared data folder not found (set CLSOLVE_DATA)")
    return root


def brute_force(problem: clsolve.Knapsack) -> int:
    """Best value over all 2^n subsets (n <= 16)."""
    best = 0
    n = problem.n
    weights = problem.weights.astype(object)
    profits = problem.profits.astype(object)
    caps = problem.capacities.astype(object)
    for mask in itertools.product((False, True), repeat=n):
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
