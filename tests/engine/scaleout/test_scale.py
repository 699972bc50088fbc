"""One batch over several devices (device="all" or a list) and over a Dask cluster (issue 6)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import numpy as np
import pytest
from conftest import brute_force
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import clsolve
from clsolve.cli import main
from clsolve.problems import LCS
from clsolve.runtime.devices import gpus
from clsolve.scaleout import chunks, multidevice


def _random(count: int, seed: int, n: int = 12) -> list[clsolve.Knapsack]:
    rng = np.random.default_rng(seed)
    out = []
    for k in range(count):
        m = int(rng.integers(1, 3))
        weights = rng.integers(0, 40, size=(n, m))
        out.append(
            clsolve.Knapsack(
                rng.integers(0, 60, size=n),
                weights,
                (weights.sum(axis=0) * rng.uniform(0.2, 0.7)).astype(int),
                name=f"r{k}",
                weights_by="item",
            )
        )
    return out


def _too_large() -> clsolve.Knapsack:
    """Refused by dp-batch (a 2^40-state row, too many items to enumerate); fine for the others."""
    rng = np.random.default_rng(7)
    weights = rng.integers(2**36, 2**38, size=40)
    return clsolve.Knapsack(rng.integers(1, 1000, size=40), weights, 2**40, name="too-large")


def _same(a: list[clsolve.Solution], b: list[clsolve.Solution]) -> None:
    assert len(a) == len(b)
    assert [s.value for s in a] == [s.value for s in b]


# ------------------------------------------------------------------------------------ chunking


def test_cut_balances_by_cost_not_count():
    weights = np.array([1.0] * 90 + [90.0] + [1.0] * 9)
    ranges = chunks.cut(weights, 2)
    assert [i for r in ranges for i in r] == list(range(100))
    assert ranges[0] == range(0, 91)  # the first share (half of 189) is reached at the heavy problem
    heavy_alone = chunks.cut(np.array([1.0, 1.0, 100.0, 1.0]), 4)
    assert range(2, 3) in heavy_alone or range(0, 3) in heavy_alone
    assert chunks.cut(np.zeros(10), 3) == [range(0, 4), range(4, 8), range(8, 10)]
    assert all(len(r) <= 7 for r in chunks.cut(np.ones(50), 2, max_size=7))
    assert chunks.cut(np.ones(0), 3) == []


def test_tapered_chunks_start_and_end_small():
    for workers in (1, 2, 3, 8):
        shares = chunks.tapered_shares(workers)
        assert abs(shares.sum() - 1) < 1e-12 and (shares > 0).all()
        full = 1 / (workers * chunks.CHUNKS_PER_WORKER)
        assert np.allclose(shares[:workers], full / 4) and abs(shares[workers] - full) < full / 10
        assert (np.diff(shares[-3 * workers :]) <= 1e-15).all() and np.allclose(shares[-workers:], full / 8)
    weights = np.random.default_rng(1).uniform(0.5, 1.5, 20_000)
    ranges = chunks.cut(weights, 0, shares=chunks.tapered_shares(2))
    assert [i for r in ranges for i in r] == list(range(20_000))
    spent = np.array([weights[r.start : r.stop].sum() for r in ranges]) / weights.sum()
    np.testing.assert_allclose(spent, chunks.tapered_shares(2), atol=2e-4)


@pytest.mark.parametrize("kinds", ["knapsacks", "mixed"])
def test_waves_go_out_before_the_rest_is_planned(kinds, device):
    problems = _random(200, 5)
    if kinds == "mixed":
        problems[50] = LCS("ACGT", "AGT")
    plan = chunks.Chunking(problems, 2, per_worker=2, waves=(0.05, 0.2))
    assert plan.head == [range(0, 5), range(5, 10)] == plan.ranges  # 200 x 0.05 // 2 workers each
    first = plan.chunk(plan.head[1])
    assert first.positions.tolist() == list(range(5, 10)) and all(map(_equal, problems[5:10], first.unpack()))
    assert plan.next_wave() == [range(10, 30), range(30, 50)] and plan.split == 50
    assert plan.chunk(range(30, 50)).positions.tolist() == list(range(30, 50))
    assert plan.next_wave() == []
    ranges = plan.plan_rest("dp-batch", device)
    assert ranges[:4] == [range(0, 5), range(5, 10), range(10, 30), range(30, 50)]
    assert [i for r in ranges for i in r] == list(range(200))
    assert len(ranges) == 4 + len(chunks.tapered_shares(2, 2)) - 2  # the rest: tapered shares after the head
    for rows in ranges:
        packed = plan.chunk(rows)
        assert packed.positions.tolist() == list(rows)
        assert all(
            p is q if not isinstance(p, clsolve.Knapsack) else _equal(p, q)
            for p, q in zip(problems[rows.start : rows.stop], packed.unpack())
        )
    equal = chunks.Chunking(problems, 2, chunk_count=5)  # asked for: equal chunks by cost, no waves
    assert equal.head == [] and len(equal.plan_rest("dp-batch", device)) == 5
    assert chunks.Chunking(problems[:10], 2).head == []  # too few for a wave
    default = chunks.Chunking(problems, 2)
    assert default.head == [range(0, 1), range(1, 2)]  # 200 / 64 // 2
    with pytest.raises(clsolve.InvalidOptionError, match="waves"):
        chunks.Chunking(problems, 2, waves=(0.5, 0.6))


def test_costs_come_from_the_plan(device):
    problems = _random(5, 1) + [_too_large()]
    costs = chunks.costs(problems, "dp-batch", device)
    assert costs.shape == (6,) and np.isfinite(costs).all() and (costs > 0).all()
    small, large = (clsolve.Knapsack(np.ones(25, int), np.arange(1, 26), c) for c in (10, 10**6))

    def cost(problem, solver="dp-batch"):
        return chunks.costs([problem], solver, device)[0]

    assert cost(large) > 1000 * cost(small)
    assert cost(large, "auto") > 1000 * cost(small, "auto")  # the device-free sizes


@pytest.mark.parametrize("method", ["auto", "dp", "enumerate"])
def test_dp_batch_costs_follow_its_model_problem_by_problem(method, device):
    """The vectorized costs equal the plan model applied to each problem alone: enumeration 2^n
    subsets, else n x prod(c + 1) cells of 4- or 8-byte values, on chip (a GPU) at the on-chip rate;
    NaN where dp-batch refuses."""
    from clsolve.dp.table import MODEL_BANDWIDTH, MODEL_SUBSETS_PER_SECOND, value_dtype
    from clsolve.plugin import registry
    from clsolve_plugins.dp_batch import chip

    rng = np.random.default_rng(4)
    problems = []
    for k in range(120):
        n, m = int(rng.integers(1, 36)), int(rng.integers(1, 5))
        top = [50, 2**20, 2**40][k % 3]
        weights = rng.integers(0, top, size=(n, m))
        profits = rng.integers(0, [100, 2**30][k % 2], size=n)
        problems.append(clsolve.Knapsack(profits, weights, (weights.sum(axis=0) // 2), name=f"c{k}", weights_by="item"))
    solver = registry.load("dp-batch", method=method)
    kind = "gpu" if device.is_gpu else "other"
    expected = []
    for p in problems:
        if solver._accepts_reduced(p) is not None:
            expected.append(np.nan)
        elif solver.enumerates(p):
            expected.append(2**p.n / MODEL_SUBSETS_PER_SECOND[kind])
        elif device.is_gpu and p.cells() <= chip.chip_states(device, value_dtype(p).itemsize, solver._local_size(device)):
            expected.append(p.n * p.cells() / chip.MODEL_UPDATES_PER_SECOND[kind])  # the row stays on chip
        else:
            expected.append(p.n * p.cells() * (2 * value_dtype(p).itemsize + 0.125) / MODEL_BANDWIDTH[kind])
    got = solver.costs(problems, device)
    np.testing.assert_allclose(got, np.array(expected), rtol=1e-12)
    assert np.isnan(got).any() and np.isfinite(got).any()


def _equal(p: clsolve.Knapsack, q: clsolve.Knapsack) -> bool:
    return (
        q.name == p.name
        and q.known_optimum == p.known_optimum
        and q.total_profit == p.total_profit
        and q.weights.shape == p.weights.shape
        and (q.profits == p.profits).all()
        and (q.weights == p.weights).all()
        and (q.capacities == p.capacities).all()
    )


def test_packing_round_trip():
    problems = _random(20, 2) + [clsolve.Knapsack([5, 6], [[1, 2, 3], [4, 5, 6]], [3, 4, 5], "m3", known_optimum=5)]
    packed = chunks.PackedProblems.pack(problems, range(100, 121))
    assert all(_equal(p, q) for p, q in zip(problems, packed.unpack()))
    same_m = [p for p in problems if p.m == 1]
    assert all(_equal(p, q) for p, q in zip(same_m, chunks.PackedProblems.pack(same_m).unpack()))
    tampered = chunks.PackedProblems.pack(problems)
    tampered.item_offsets[-1] += 1  # one item more than the arrays hold
    with pytest.raises(clsolve.InvalidProblemError, match="offsets"):
        tampered.unpack()


def test_a_chunk_pickles_narrowed_with_its_batch_and_comes_back_whole():
    import pickle

    problems = _random(30, 3) + [clsolve.Knapsack([2**40, 1], [[1], [2]], [3], "wide")]
    packed = chunks.PackedProblems.pack(problems)
    view = packed.rows(5, 12)
    assert packed.wire is not None and all(np.shares_memory(view.wire[k], packed.wire[k]) for k in view.wire)
    assert view.wire["weights"].dtype == np.uint8 and view.wire["profits"].dtype == np.int64  # 2^40 stays wide
    back = pickle.loads(pickle.dumps(view))
    assert back.wire is None and back.profits.dtype == back.weights.dtype == np.int64
    assert all(_equal(p, q) for p, q in zip(problems[5:12], back.unpack()))
    assert all(_equal(p, q) for p, q in zip(problems, pickle.loads(pickle.dumps(packed)).unpack()))


def test_packing_reads_strided_arrays():
    weights = np.asfortranarray(np.array([[1, 2], [3, 4], [5, 6]]))  # not C-contiguous: concatenated, not joined
    problems = [
        clsolve.Knapsack([1, 2, 3], weights, [3, 4]),
        clsolve.Knapsack([4, 5], [[7, 8], [9, 10]], [5, 6], weights_by="item"),
    ]
    packed = chunks.PackedProblems.pack(problems)
    assert packed.weights.tolist() == list(range(1, 11)) and packed.profits.tolist() == [1, 2, 3, 4, 5]
    assert all(_equal(p, q) for p, q in zip(problems, packed.unpack()))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), shape=st.sampled_from(["uniform", "one m", "mixed"]), partial=st.booleans())
def test_the_vectorized_check_equals_the_check_of_each_answer(seed, shape, partial):
    """first_wrong (one n and m for all, one m, or mixed m; every problem answered in order, or some
    left out as failures) flags exactly the answers ``check`` refuses: random selections, values
    right or off by one, optimality claimed against known optima."""
    rng = np.random.default_rng(seed)
    problems, solutions = [], []
    same_n = int(rng.integers(1, 8))
    for k in range(int(rng.integers(1, 30))):
        n = same_n if shape == "uniform" else int(rng.integers(1, 8))
        m = int(rng.integers(1, 4)) if shape == "mixed" else 2
        weights = rng.integers(0, 20, size=(n, m))
        profits = rng.integers(0, 30, size=n)
        selected = rng.random(n) < 0.5
        capacities = rng.integers(0, 40, size=m)
        if rng.random() < 0.4:  # exactly full, or one short in one dimension
            short = (np.arange(m) == rng.integers(0, m)) * int(rng.random() < 0.5)
            capacities = np.maximum(0, weights[selected].sum(axis=0) - short)
        value = int(profits[selected].sum()) + int(rng.random() < 0.15)
        known = max(0, value + int(rng.integers(-1, 2))) if rng.random() < 0.3 else None
        problems.append(clsolve.Knapsack(profits, weights, capacities, f"p{k}", known_optimum=known, weights_by="item"))
        solutions.append(clsolve.Solution(value, selected, bool(rng.random() < 0.5), "test", "host"))
    positions = list(range(100, 100 + len(problems)))
    answered = [k for k in range(len(problems)) if not partial or rng.random() < 0.7]
    packed = chunks.PackedProblems.pack(problems, positions)
    answer = chunks.PackedSolutions.pack([positions[k] for k in answered], [solutions[k] for k in answered], {}, "", 0.0)
    refused = []
    for k in answered:
        try:
            clsolve.solution.check(problems[k], solutions[k])
        except clsolve.SolutionCheckError:
            refused.append(positions[k])
    assert packed.first_wrong(answer) == (refused[0] if refused else None)


def test_a_chunk_isolates_the_problem_that_fails(device):
    problems = _random(6, 3)
    problems.insert(2, _too_large())
    answer = chunks.solve_chunk(chunks.PackedProblems.pack(problems, range(10, 17)), "dp-batch", {}, device)
    assert set(answer.failures) == {12} and answer.failures[12][0] == "UnsupportedProblemError"
    assert answer.positions.tolist() == [10, 11, 13, 14, 15, 16]
    assert [s.value for s in answer.unpack()] == [brute_force(p) for k, p in enumerate(problems) if k != 2]


def test_the_client_check_catches_a_wrong_answer(device):
    problems = _random(12, 14) + [clsolve.Knapsack([5, 6, 7], [[1, 2], [2, 1], [3, 3]], [3, 3], "known", known_optimum=11)]
    sent = chunks.PackedProblems.pack(problems, range(13))
    good = chunks.solve_chunk(sent, "auto", {}, device)
    assert sent.first_wrong(good) is None
    collector = chunks.Collector(problems, [range(13)], None)
    collector.take(0, good, sent)
    assert [s.value for s in collector.result()] == [brute_force(p) for p in problems]
    for tamper in ("value", "overweight", "known"):
        bad = chunks.PackedProblems.pack(problems, range(13))  # a fresh copy of the answer to spoil
        answer = chunks.solve_chunk(bad, "auto", {}, device)
        k = 12 if tamper == "known" else 4
        first = int(answer.item_offsets[k])
        if tamper == "value":
            answer.values[k] += 1
        elif tamper == "overweight":
            answer.selected[first : int(answer.item_offsets[k + 1])] = True
            answer.values[k] = int(problems[k].profits.sum())
        else:  # a feasible answer below the known optimum, claimed optimal
            answer.selected[first : first + 3] = [True, False, False]
            answer.values[k] = 5
        assert sent.first_wrong(answer) == k, tamper
        with pytest.raises(clsolve.SolutionCheckError, match=f"problem {k} "):
            chunks.Collector(problems, [range(13)], None).take(0, answer, sent)


# ------------------------------------------------------------------------------- several devices


def test_all_on_a_host_with_one_device_falls_back_with_a_note(device):
    if len(gpus()) >= 2:
        pytest.skip("this host has several GPUs")
    problems = _random(30, 4)
    seen = []
    solutions = clsolve.solve_many(problems, device="all", progress=seen.append)
    _same(solutions, clsolve.solve_many(problems, device=device))
    assert all(any(n.startswith("device=all: this host shows") for n in s.notes) for s in solutions)
    assert seen and seen[-1].instances_done == 30


def test_two_worker_processes_equal_one_device(device):
    problems = _random(200, 5)
    seen = []
    spread = clsolve.solve_many(problems, device=[f"#{device.index}"] * 2, progress=seen.append, chunk_count=10)
    _same(spread, clsolve.solve_many(problems, device=device))
    assert len(seen) == 10 and seen[-1].chunks_done == 10 and seen[-1].instances_done == 200
    assert seen[-1].instances_per_second > 0 and "instances/s" in seen[-1].line()
    assert all(s.device == device.label for s in spread)


def test_a_lost_worker_process_has_its_chunk_run_again(device, tmp_path, monkeypatch):
    """The first chunk kills its worker process (os._exit inside the task); the chunk is run again
    on a fresh process and every result comes back once. With 8 chunks, the next chunk for that
    device is sent before the dead process's answers are taken: to a broken pool, replaced then."""
    problems = _random(40, 6)
    marker = tmp_path / "died"
    monkeypatch.setattr(chunks, "solve_chunk", _DieOnceTask(str(marker)))
    seen = []
    spread = multidevice.solve_many(problems, "auto", [device, device], {}, seen.append, chunk_count=8)
    assert marker.exists()
    _same(spread, clsolve.solve_many(problems, device=device))
    assert seen[-1].resubmitted >= 1 and seen[-1].chunks_done == 8


class _DieOnceTask:
    """Picklable stand-in for solve_chunk: the first call on any process exits that process."""

    def __init__(self, marker: str):
        self.marker = marker

    def __call__(self, *args, **kwargs):
        try:
            os.close(os.open(self.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            from clsolve.scaleout.chunks import solve_chunk  # the real one: only the test's process patched it

            return solve_chunk(*args, **kwargs)
        os._exit(3)


def test_a_bad_problem_among_several_devices_is_reported_by_index(device):
    problems = _random(30, 8)
    problems.insert(17, _too_large())
    with pytest.raises(clsolve.BatchError) as caught:
        clsolve.solve_many(problems, solver="dp-batch", device=[f"#{device.index}"] * 2, chunk_count=4)
    error = caught.value
    assert list(error.failures) == [17] and isinstance(error.failures[17], clsolve.UnsupportedProblemError)
    assert "problem 17 (too-large" in str(error)
    assert error.solutions[17] is None
    assert [s.value for k, s in enumerate(error.solutions) if k != 17] == [
        brute_force(p) for k, p in enumerate(problems) if k != 17
    ]


def test_cli_device_all(tmp_path, capsys):
    import json

    for k, p in enumerate(_random(6, 9)):
        (tmp_path / f"p{k}.json").write_text(
            json.dumps(
                {
                    "profits": p.profits.tolist(),
                    "weights": p.weights.tolist(),
                    "capacities": p.capacities.tolist(),
                    "name": p.name,
                }
            )
        )
    assert main(["solve", str(tmp_path), "--device", "all", "--json", "--progress"]) == 0
    out, err = capsys.readouterr()
    assert len(out.strip().splitlines()) == 6


# ------------------------------------------------------------------------------------------ Dask

if os.environ.get("CI"):
    import distributed  # in CI the dask extra must be installed: fail, do not skip
else:
    distributed = pytest.importorskip("distributed")


class DieOnce(distributed.WorkerPlugin):
    """Kills its worker the first time any worker starts executing a clsolve chunk (one marker file
    for the whole cluster, created atomically)."""

    def __init__(self, marker: str):
        self.marker = marker

    def transition(self, key, start, finish, **kwargs):
        if finish == "executing" and str(key).startswith("clsolve-chunk-"):
            try:
                os.close(os.open(self.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            except FileExistsError:
                return
            os._exit(3)


@pytest.fixture(scope="module")
def cluster():
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, resources={"GPU": 1}, dashboard_address=None, silence_logs=40
    )
    client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()


def test_dask_batch_equals_local(cluster, device):
    problems = _random(300, 10)
    seen = []
    spread = clsolve.solve_many(problems, client=cluster, progress=seen.append)
    _same(spread, clsolve.solve_many(problems, device=device))
    # 3 waves of one chunk per GPU slot, then the rest cut as the tapered shares after their head for
    # 2 slots, 3 full chunks' worth each: 4 full, then 2 halves, 2 quarters, 2 eighths
    from clsolve.scaleout import cluster as dask_cluster

    expected = 2 * len(dask_cluster.WAVES) + len(chunks.tapered_shares(2, dask_cluster.CHUNKS_PER_WORKER)) - 2
    assert seen[-1].instances_done == 300 and seen[-1].chunks_done == seen[-1].chunks == expected == 16
    assert all(s is not None for s in spread)
    # each worker (started by a nanny, which sets MALLOC_TRIM_THRESHOLD_) raised its malloc thresholds
    raised = cluster.run(lambda: __import__("clsolve.scaleout.malloc", fromlist=["_done"])._done)
    assert list(raised.values()) == [True, True]


def test_dask_answers_are_taken_between_the_waves(cluster, device, monkeypatch):
    """A wave's answers that are back while the client packs the next wave are taken then (also
    those of a chunk of the second wave, which the client's list of chunks did not hold yet when
    the first was sent)."""
    events = []
    next_wave, plan_rest, take = chunks.Chunking.next_wave, chunks.Chunking.plan_rest, chunks.Collector.take

    def slow_next_wave(self):
        time.sleep(1.0)  # the workers answer the wave just sent meanwhile
        return next_wave(self)

    def logged_plan_rest(self, *args):
        events.append("plan_rest")
        return plan_rest(self, *args)

    def logged_take(self, chunk, *args):
        events.append(chunk)
        return take(self, chunk, *args)

    monkeypatch.setattr(chunks.Chunking, "next_wave", slow_next_wave)
    monkeypatch.setattr(chunks.Chunking, "plan_rest", logged_plan_rest)
    monkeypatch.setattr(chunks.Collector, "take", logged_take)
    problems = _random(300, 15)
    spread = clsolve.solve_many(problems, client=cluster)
    _same(spread, clsolve.solve_many(problems, device=device))
    before = events[: events.index("plan_rest")]
    assert {2, 3} <= set(before), events  # the second wave's chunks, taken before the rest was planned
    assert sorted(e for e in events if e != "plan_rest") == list(range(16))


def test_dask_batch_as_arrays(cluster, device):
    problems = _random(120, 14)
    spread = clsolve.solve_many(problems, client=cluster, arrays=True, chunk_count=5)
    assert isinstance(spread, clsolve.SolutionArrays)
    local = clsolve.solve_many(problems, device=device)
    assert spread.values.tolist() == [s.value for s in local]
    assert all(np.array_equal(spread.selected_of(k), s.selected) for k, s in enumerate(local))


@pytest.mark.parametrize("chunk_count", [6, None], ids=["problems-in-the-task", "scattered-wave"])
def test_dask_worker_killed_mid_chunk_loses_nothing(cluster, device, tmp_path, chunk_count):
    """The first chunk to start kills its worker: with chunk_count, a chunk whose problems travel
    inside its task (Dask runs it again); by default, a leading wave's, scattered to that worker
    first (lost with it: clsolve sends it again)."""
    import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    cluster.wait_for_workers(2, timeout=60)  # the nanny restarts a killed worker
    marker = tmp_path / "killed"
    cluster.register_plugin(DieOnce(str(marker)), name="die-once")
    try:
        problems = _random(200, 11)
        seen = []
        spread = clsolve.solve_many(problems, client=cluster, chunk_count=chunk_count, progress=seen.append)
    finally:
        cluster.unregister_worker_plugin("die-once")
    assert marker.exists()  # a worker did die holding a chunk
    if chunk_count is None:
        assert seen[-1].resubmitted >= 1  # the scattered chunk was sent again
    _same(spread, clsolve.solve_many(problems, device=device))
    assert len(spread) == 200 and len({id(s) for s in spread}) == 200


def test_dask_bad_problem_in_the_middle(cluster):
    problems = _random(50, 12)
    problems.insert(25, _too_large())
    with pytest.raises(clsolve.BatchError) as caught:
        clsolve.solve_many(problems, solver="dp-batch", client=cluster, chunk_count=5)
    assert list(caught.value.failures) == [25]
    assert isinstance(caught.value.failures[25], clsolve.UnsupportedProblemError)
    assert [s.value for k, s in enumerate(caught.value.solutions) if k != 25] == [
        brute_force(p) for k, p in enumerate(problems) if k != 25
    ]


def test_cli_scheduler(cluster, tmp_path, capsys):
    import json

    for k, p in enumerate(_random(5, 13)):
        (tmp_path / f"p{k}.json").write_text(
            json.dumps(
                {
                    "profits": p.profits.tolist(),
                    "weights": p.weights.tolist(),
                    "capacities": p.capacities.tolist(),
                    "name": p.name,
                }
            )
        )
    (tmp_path / "bad.json").write_text(
        json.dumps(
            {
                "profits": _too_large().profits.tolist(),
                "weights": _too_large().weights.tolist(),
                "capacities": 2**40,
                "name": "bad",
            }
        )
    )
    address = cluster.scheduler.address
    code = main(["solve", str(tmp_path), "--solver", "dp-batch", "--scheduler", address, "--json"])
    out, err = capsys.readouterr()
    assert code == 3  # one problem dp-batch does not take
    lines = [json.loads(line) for line in out.strip().splitlines()]
    assert len([line for line in lines if "value" in line]) == 5
    assert [line["name"] for line in lines if "error" in line] == ["bad"]
    assert "error: problem 0 (bad" in err and "1 of 6 problems failed" in err


def test_the_collector_is_paused_during_a_batch_and_back_after(device, monkeypatch):
    import gc

    from clsolve.scaleout import gcpause

    seen = []
    with gcpause.paused_gc():
        assert not gc.isenabled()
        with gcpause.paused_gc():  # nested: still off, and not switched on by the inner block
            pass
        assert not gc.isenabled()
        kept = [[k] for k in range(50_000)]  # survivors of a "batch"
    assert gc.isenabled()

    def old(thing) -> bool:  # in the oldest generation (a young scan would leave it in 0 or 1)
        return any(o is thing for o in gc.get_objects(generation=2))

    assert old(kept[-1])  # counted as old, not left to one big young scan
    # what the interpreter itself froze before clsolve was imported (CPython 3.12 starts with a few
    # hundred tuples in the permanent generation) does not stop that: a fresh process (no threads
    # freeing frozen objects meanwhile) where what was frozen is taken for the interpreter's own
    probe = (
        "import gc; from clsolve.scaleout import gcpause; gc.freeze(); gcpause._frozen_at_import = gc.get_freeze_count()\n"
        "with gcpause.paused_gc():\n    kept = [[k] for k in range(50_000)]\n"
        "print(any(o is kept[-1] for o in gc.get_objects(generation=2)), gc.get_freeze_count())"
    )
    found = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.split()
    assert found == ["True", "0"]
    gc.freeze()  # a caller's own frozen objects stay frozen
    frozen = gc.get_freeze_count()
    with gcpause.paused_gc():
        kept.append([0])
    assert gc.get_freeze_count() > frozen // 2  # not unfrozen (a few may have been freed meanwhile)
    assert not old(kept[-1])  # scanned as young instead
    gc.unfreeze()
    from clsolve import solving

    real = solving.solve_packed_unchecked
    monkeypatch.setattr(solving, "solve_packed_unchecked", lambda *a, **k: seen.append(gc.isenabled()) or real(*a, **k))
    clsolve.solve_many(_random(3, 1), device=device)
    assert seen == [False] and gc.isenabled()
    with pytest.raises(clsolve.UnsupportedProblemError):
        clsolve.solve_many([_too_large()], solver="dp-batch", device=device)
    assert gc.isenabled()
