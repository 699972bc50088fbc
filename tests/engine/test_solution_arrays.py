"""solve_many(..., arrays=True): the same checked answers as NumPy arrays (SolutionArrays)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import brute_force
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import clsolve
from clsolve.batch.packed import PackedProblems, PackedSolutions
from clsolve.problems import LCS
from clsolve.runtime.devices import gpus
from clsolve.scaleout import chunks


def _random(count: int, seed: int, n: int = 10) -> list[clsolve.Knapsack]:
    rng = np.random.default_rng(seed)
    out = []
    for k in range(count):
        m = int(rng.integers(1, 4))
        size = int(rng.integers(1, n + 1))
        weights = rng.integers(0, 30, size=(size, m))
        out.append(
            clsolve.Knapsack(
                rng.integers(0, 50, size=size),
                weights,
                (weights.sum(axis=0) * rng.uniform(0.2, 0.8)).astype(int),
                name=f"r{k}",
                weights_by="item",
            )
        )
    return out


def _equal(arrays: clsolve.SolutionArrays, solutions: list[clsolve.Solution], notes: bool = True) -> None:
    """The same answers; ``notes``: also the same notes (not so when one was solved in chunks)."""
    assert len(arrays) == len(solutions)
    assert arrays.values.tolist() == [s.value for s in solutions]
    assert arrays.optimal.tolist() == [s.optimal for s in solutions]
    for k, s in enumerate(solutions):
        assert np.array_equal(arrays.selected_of(k), s.selected) and arrays.selected_of(k).dtype == bool
        assert arrays.items(k).tolist() == s.items.tolist()
        row = arrays[k]
        assert (row.value, row.solver, row.device) == (s.value, s.solver, s.device)
        assert row.notes == s.notes or not notes
        assert np.array_equal(row.selected, s.selected)


def test_arrays_equal_the_solutions_and_brute_force(device):
    problems = _random(120, 1)
    arrays = clsolve.solve_many(problems, solver="dp-batch", device=device, arrays=True)
    assert isinstance(arrays, clsolve.SolutionArrays)
    assert arrays.values.dtype == np.int64 and arrays.values.tolist() == [brute_force(p) for p in problems]
    _equal(arrays, clsolve.solve_many(problems, solver="dp-batch", device=device))
    for k, p in enumerate(problems):  # every row feasible and worth its value
        chosen = arrays.selected_of(k)
        assert (p.weights[chosen].sum(axis=0) <= p.capacities).all()
        assert int(p.profits[chosen].sum()) == arrays.values[k]
    listed = arrays.to_list()
    assert [s.value for s in listed] == [s.value for s in arrays] == arrays.values.tolist()
    assert arrays[-1].value == arrays.values[-1] and [s.value for s in arrays[3:6]] == arrays.values[3:6].tolist()
    with pytest.raises(IndexError, match="row 120 of a batch of 120"):
        arrays[120]
    with pytest.raises(ValueError):
        arrays.values[0] = 1  # read-only
    assert repr(arrays).startswith("SolutionArrays(120 answers")


def test_arrays_of_a_mixed_batch_keep_each_kind(device):
    """A knapsack and an LCS (the object path): the LCS row keeps its positions, empty item flags."""
    problems = [_random(1, 2)[0], LCS("ACGTTGCA", "AGTTCA")]
    arrays = clsolve.solve_many(problems, device=device, arrays=True)
    solutions = clsolve.solve_many(problems, device=device)
    _equal(arrays, solutions)
    assert np.array_equal(arrays[1].positions, solutions[1].positions) and arrays.items(1).size == 0
    assert arrays.values[1] == 6  # AGTTCA is a subsequence of ACGTTGCA


def test_empty_batch():
    arrays = clsolve.solve_many([], arrays=True)
    assert len(arrays) == 0 and arrays.values.size == 0 and list(arrays) == []


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31), cuts=st.lists(st.integers(0, 40), max_size=4), same_n=st.booleans())
def test_joined_parts_equal_the_whole(seed, cuts, same_n):
    """Answers packed in pieces and joined read back as the answers packed at once (and each piece
    as its own answers): item offsets, shared labels, timings and the extras of some rows (bounds,
    stats) shifted to their rows; every row with as many items (read as one 2-D view) or not."""
    rng = np.random.default_rng(seed)
    count = 40
    solutions = []
    width = int(rng.integers(0, 6))
    for k in range(count):
        n = width if same_n else int(rng.integers(0, 6))
        s = clsolve.Solution(
            int(rng.integers(0, 100)),
            rng.random(n) < 0.5,
            bool(rng.random() < 0.8),
            str(rng.choice(["a", "b"])),
            "dev",
            clsolve.Timings(*rng.random(4).tolist()),
            ["note"] if rng.random() < 0.3 else [],
        )
        if not s.optimal:
            s.bound, s.stats = s.value + 3, {"nodes": k}
        solutions.append(s)
    bounds = sorted({0, count, *cuts})
    parts = [PackedSolutions.pack(range(a, b), solutions[a:b], {}, f"w{a}", 1.0) for a, b in zip(bounds, bounds[1:])]
    joined = PackedSolutions.joined(parts)
    assert joined.positions.tolist() == list(range(count)) and len(joined.labels) == len(set(joined.labels))
    assert joined.seconds == len(parts)
    pieces = [s for part in parts for s in part.unpack()]
    for got, again, want in zip(joined.unpack(), pieces, solutions, strict=True):
        for answer in (got, again):
            assert (answer.value, answer.optimal, answer.solver, answer.notes, answer.bound, answer.stats) == (
                want.value,
                want.optimal,
                want.solver,
                want.notes,
                want.bound,
                want.stats,
            )
            assert np.array_equal(answer.selected, want.selected) and answer.timings == want.timings
            assert answer.selected.dtype == want.selected.dtype and answer.selected.shape == want.selected.shape


def test_collector_gives_arrays_and_a_batch_error_with_objects(device):
    problems = _random(30, 3)
    sent = [PackedProblems.pack(problems[a:b], range(a, b)) for a, b in ((0, 10), (10, 20), (20, 30))]
    answers = [chunks.solve_chunk(p, "dp-batch", {}, device) for p in sent]
    collector = chunks.Collector(problems, [range(0, 10), range(10, 20), range(20, 30)], None, arrays=True)
    for k in (2, 0, 1):  # in any order
        collector.take(k, answers[k], sent[k])
    result = collector.result()
    assert isinstance(result, clsolve.SolutionArrays)
    assert result.values.tolist() == [brute_force(p) for p in problems]
    failing = chunks.Collector(problems, [range(0, 10), range(10, 20), range(20, 30)], None, arrays=True)
    failing.take(0, answers[0], sent[0])
    failing.take(2, answers[2], sent[2])
    failing.fail_chunk(1, RuntimeError("lost"))
    with pytest.raises(clsolve.BatchError) as caught:
        failing.result()
    assert sorted(caught.value.failures) == list(range(10, 20))
    assert [s is None for s in caught.value.solutions] == [10 <= k < 20 for k in range(30)]
    assert caught.value.solutions[25].value == result.values[25]


def test_arrays_over_two_worker_processes(device):
    problems = _random(150, 4)
    seen = []
    spread = clsolve.solve_many(problems, device=[f"#{device.index}"] * 2, chunk_count=6, arrays=True, progress=seen.append)
    assert isinstance(spread, clsolve.SolutionArrays) and seen[-1].chunks_done == 6
    _equal(spread, clsolve.solve_many(problems, device=device), notes=False)


def test_arrays_with_device_all_on_one_device_carry_the_note(device):
    if len(gpus()) >= 2:
        pytest.skip("this host has several GPUs")
    arrays = clsolve.solve_many(_random(20, 5), device="all", arrays=True)
    assert all(any(n.startswith("device=all: this host shows") for n in s.notes) for s in arrays)
