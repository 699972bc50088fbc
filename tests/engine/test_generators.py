"""Instance generators: Pisinger's classic families as [Pisinger05] defines them, reproducible by seed,
and solved exactly; the hard-kp benchmark's rows over them."""

from __future__ import annotations

import argparse
import json

import numpy as np
import pytest
from conftest import brute_force

import clsolve
from clsolve.bench import hard_kp, kpm
from clsolve.generators import PISINGER_FAMILIES, chu_beasley, jooken, pisinger


@pytest.mark.parametrize("family", PISINGER_FAMILIES)
def test_each_family_is_reproducible_and_solved_exactly(family, device):
    problem = pisinger(family, 14, 1000, h=30, seed=3)
    again = pisinger(family, 14, 1000, h=30, seed=3)
    assert np.array_equal(problem.profits, again.profits) and np.array_equal(problem.weights, again.weights)
    assert problem.name == f"pisinger {family} n=14 R=1000 h=30/100 seed=3"
    assert int(problem.capacities[0]) == 30 * int(problem.weights.sum()) // 101
    assert clsolve.solve(problem, device=device).value == brute_force(problem)


def test_family_definitions():
    R = 10**6
    w = pisinger("strongly", 500, R, seed=1).weights[:, 0]
    assert np.array_equal(pisinger("strongly", 500, R, seed=1).profits, w + R // 10)
    inverse = pisinger("inverse", 500, R, seed=1)
    assert np.array_equal(inverse.weights[:, 0], inverse.profits + R // 10)
    subset = pisinger("subset-sum", 500, R, seed=1)
    assert np.array_equal(subset.weights[:, 0], subset.profits)
    ceiling = pisinger("profit-ceiling", 500, R, seed=1)
    assert (ceiling.profits % 3 == 0).all() and (ceiling.profits >= ceiling.weights[:, 0]).all()
    weak = pisinger("weakly", 500, R, seed=1)
    assert (np.abs(weak.profits - weak.weights[:, 0]) <= R // 10).all() and (weak.profits >= 1).all()
    similar = pisinger("similar-weights", 500, R, seed=1)
    assert similar.weights.min() >= 100_000 and similar.weights.max() <= 100_100 and similar.profits.max() <= 1000
    spanner = pisinger("spanner", 500, R, seed=1)
    ratios = {
        (int(p) // np.gcd(int(p), int(w)), int(w) // np.gcd(int(p), int(w)))
        for p, w in zip(spanner.profits, spanner.weights[:, 0])
    }
    assert len(ratios) <= 2  # every item is a multiple of one of two spanner items
    big = pisinger("uncorrelated", 10_000, 10**10, h=99, seed=2)
    assert int(big.capacities[0]) > 10**13 and big.total_profit < 2**63
    with pytest.raises(ValueError, match="family must be one of"):
        pisinger("hardest", 10, 100)


def test_the_hard_kp_benchmark_reports_every_instance(monkeypatch, device, tmp_path):
    instances = [(jooken(30, 10**6, 4, 0.2, 0.0, 100, seed=1), {"optimum": None}), (pisinger("strongly", 40, 10**4, seed=1), {})]
    monkeypatch.setattr(hard_kp, "_development_sample", lambda root: [instances[0]])
    monkeypatch.setattr(hard_kp, "_generated", lambda quick: [])
    monkeypatch.setattr(hard_kp, "_families", lambda quick: [instances[1]])
    args = argparse.Namespace(device=f"#{device.index}", time_limit=5.0, solver=None, data=None, quick=True)
    result = json.loads(json.dumps(hard_kp.run(args)))
    rows = result["sets"]["jooken-dev"] + result["sets"]["pisinger"]
    assert result["benchmark"] == "hard-kp" and result["solver"] == "auto" and result["time_limit_seconds"] == 5.0
    for row, (problem, _) in zip(rows, instances):
        assert row["answer"] and row["optimal"] and row["value"] == clsolve.solve(problem, solver="sequential").value
        assert row["seconds"] < 5.0 + 0.5 and row["name"] == problem.name
    assert result["summary"]["pisinger"] == {
        "instances": 1,
        "proved_optimal": 1,
        "no_answer": 0,
        "seconds_max": rows[1]["seconds"],
        "wrong_optimum": 0,
    }


def test_chu_beasley_follows_its_rules():
    problem = chu_beasley(100, 5, 0.25, seed=3)
    assert problem.n == 100 and problem.m == 5 and problem.weights.max() <= 1000
    np.testing.assert_array_equal(problem.capacities, np.floor(0.25 * problem.weights.sum(axis=0)).astype(np.int64))
    spread = problem.profits - problem.weights.sum(axis=1) // 5
    assert spread.min() >= 0 and spread.max() < 500
    assert (chu_beasley(100, 5, 0.25, seed=3).profits == problem.profits).all()
    with pytest.raises(ValueError, match="tightness"):
        chu_beasley(10, 2, 1.5)


def test_the_kpm_benchmark_reports_every_instance(monkeypatch, device):
    instances = {"mknap1": [chu_beasley(12, 3, 0.5, seed=1)], "chu-beasley": [chu_beasley(14, 30, 0.25, seed=2)]}
    monkeypatch.setattr(kpm, "_sets", lambda args: instances)
    args = argparse.Namespace(device=f"#{device.index}", time_limit=5.0, data=None, quick=True)
    result = json.loads(json.dumps(kpm.run(args)))
    assert result["benchmark"] == "kpm" and result["time_limit_seconds"] == 5.0
    for name, problems in instances.items():
        row, problem = result["sets"][name][0], problems[0]
        assert row["auto"]["optimal"] and row["mkp-bnb"]["optimal"] and row["mkp-dfs"]["optimal"]
        assert row["auto"]["value"] == row["mkp-bnb"]["value"] == row["mkp-dfs"]["value"] == brute_force(problem)
        assert row["name"] == problem.name
        for solver in ("mkp-bnb", "mkp-dfs"):
            assert result["totals"][name][solver] == {"seconds": row[solver]["seconds"], "proved": 1}
