"""dp-batch and solve_many: random batches against sequential, chunking, errors naming the index,
and the 630 MSB and 43 class A instances of 2DPackLib against sequential."""

import json

import numpy as np
import pytest
from conftest import brute_force
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import clsolve
from clsolve.cli import main
from clsolve.io import formats

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _draw_batch(draw, count: int, widths: int, items: int, caps_1d: int, caps_md: int) -> list[clsolve.Knapsack]:
    """A batch of up to ``count`` knapsacks, m = 1..``widths``, n = 1..``items``, capacities up to
    ``caps_1d`` (m = 1) or ``caps_md``, small or 40-bit profits, weights up to the capacity + 2."""
    problems = []
    for _ in range(draw(st.integers(1, count))):
        m = draw(st.integers(1, widths))
        n = draw(st.integers(1, items))
        caps = draw(st.lists(st.integers(0, caps_1d if m == 1 else caps_md), min_size=m, max_size=m))
        profits = draw(st.lists(st.integers(0, 2**40 if draw(st.booleans()) else 90), min_size=n, max_size=n))
        weights = [[draw(st.integers(0, c + 2)) for c in caps] for _ in range(n)]
        problems.append(clsolve.Knapsack(profits, weights, caps, weights_by="item"))
    return problems


@st.composite
def batches(draw):
    return _draw_batch(draw, count=12, widths=3, items=10, caps_1d=40, caps_md=12)


@SETTINGS
@given(problems=batches())
def test_random_batches_match_brute_force(problems, device):
    expected = [brute_force(p) for p in problems]
    for method in ("auto", "dp", "enumerate"):
        for presolve in (True, False):
            solutions = clsolve.solve_many(
                problems, solver="dp-batch", device=device, poison=True, method=method, presolve=presolve
            )
            assert [s.value for s in solutions] == expected, (method, presolve)
            assert all(s.solver == "dp-batch" and s.optimal for s in solutions)


@st.composite
def mixed_rows(draw):
    """Batches whose rows straddle the on-chip limit at local_size 32 (1024 states): one tile or less
    stays on chip, longer rows take the item steps, in the same chunk, with different item counts."""
    return _draw_batch(draw, count=8, widths=2, items=9, caps_1d=2000, caps_md=45)


@SETTINGS
@given(problems=mixed_rows())
def test_rows_on_chip_equal_item_steps_bit_for_bit(problems, device):
    """dp_batch_chip applies every item to a row in local memory; its values and items (the same
    decision bits, read by the same backtracking) equal the item steps' and brute force's."""
    runs = {
        on: clsolve.solve_many(
            problems, solver="dp-batch", device=device, poison=True, method="dp", presolve=False, local_size=32, on_chip=on
        )
        for on in (True, False)
    }
    assert [s.value for s in runs[True]] == [brute_force(p) for p in problems]
    assert [s.items.tolist() for s in runs[True]] == [s.items.tolist() for s in runs[False]]
    chip_in_run = {m: any(p.cells() <= 1024 for p in problems if p.m == m) for m in (1, 2)}  # a run per m
    on_chip = [any("on chip" in note for note in s.notes) for s in runs[True]]
    assert on_chip == [chip_in_run[p.m] for p in problems]
    assert not any("on chip" in note for s in runs[False] for note in s.notes)


def test_rows_on_chip_by_default_only_on_a_gpu(device):
    problems = [clsolve.Knapsack([5, 4, 3], [4, 3, 2], 6), clsolve.Knapsack([7, 1], [2, 1], 2)]
    plan = clsolve.plan(problems[0], solver="dp-batch", device=device, method="dp", presolve=False)
    assert plan.details["on_chip"] == (1 if device.is_gpu else 0)
    forced = clsolve.plan(problems[0], solver="dp-batch", device=device, method="dp", presolve=False, on_chip=True)
    assert forced.details["on_chip"] == 1 and forced.launches == 2  # the row's launch and the backtracking
    never = clsolve.plan(problems[0], solver="dp-batch", device=device, method="dp", presolve=False, on_chip=False)
    assert never.details["on_chip"] == 0 and never.launches == 3 + 1
    with pytest.raises(clsolve.InvalidOptionError, match="on_chip"):
        clsolve.solve(problems[0], solver="dp-batch", on_chip=1)


def test_rows_on_chip_in_several_launches(device, monkeypatch):
    """A batch's rows on chip go in launches of at most LAUNCH_GROUPS instances (a time limit is checked
    between them); the answers stay those of the item steps."""
    from clsolve_plugins.dp_batch import chip

    monkeypatch.setattr(chip, "LAUNCH_GROUPS", 2)
    rng = np.random.default_rng(8)
    problems = [clsolve.Knapsack(rng.integers(1, 90, 9), rng.integers(1, 30, 9), 60) for _ in range(5)]
    options = {"solver": "dp-batch", "device": device, "method": "dp", "presolve": False, "poison": True}
    from clsolve.batch.packed import PackedProblems
    from clsolve.plugin import registry

    solver = registry.load("dp-batch", method="dp", presolve=False, on_chip=True)
    assert solver.plan_packed(PackedProblems.pack(problems), device).launches == 3 + 1  # and the backtracking
    solutions = clsolve.solve_many(problems, on_chip=True, **options)
    steps = clsolve.solve_many(problems, on_chip=False, **options)
    assert [s.items.tolist() for s in solutions] == [s.items.tolist() for s in steps]
    assert all("5 of 5 rows on chip" in s.notes[0] for s in solutions)


def test_enumeration_of_larger_instances(device):
    rng = np.random.default_rng(11)
    problems = [clsolve.Knapsack(rng.integers(1, 10**6, n), rng.integers(1, 400, (n, 2)), [900, 700]) for n in (11, 17, 19)]
    expected = [s.value for s in clsolve.solve_many(problems, solver="sequential")]
    solutions = clsolve.solve_many(problems, solver="dp-batch", device=device, poison=True, method="enumerate")
    assert [s.value for s in solutions] == expected and "enumeration" in solutions[0].notes[0]
    with pytest.raises(clsolve.UnsupportedProblemError, match="n <= 30"):
        clsolve.solve(clsolve.Knapsack([1] * 31, [1] * 31, 5), solver="dp-batch", method="enumerate")


@SETTINGS
@given(problems=batches())
def test_batches_split_into_chunks_match(problems, device):
    solutions = clsolve.solve_many(
        problems, solver="dp-batch", device=device, poison=True, memory_limit=60_000, method="dp", presolve=False
    )
    assert [s.value for s in solutions] == [s.value for s in clsolve.solve_many(problems, solver="sequential")]


def test_chunking_is_reported(device):
    rng = np.random.default_rng(5)
    problems = [clsolve.Knapsack(rng.integers(1, 50, 8), rng.integers(1, 20, 8), 60) for _ in range(6)]
    solutions = clsolve.solve_many(problems, solver="dp-batch", device=device, memory_limit=20_000, method="dp", presolve=False)
    assert any("chunks" in note for note in solutions[0].notes)


def test_batch_of_one_and_solve(device):
    problem = clsolve.Knapsack([10, 40, 30, 50], [5, 4, 6, 3], 10)
    (solution,) = clsolve.solve_many([problem], solver="dp-batch", device=device)
    assert solution.value == 90 and solution.items.tolist() == [1, 3]
    assert clsolve.solve(problem, solver="dp-batch", device=device).value == 90


def test_auto_prefers_the_batching_solver_for_several(device):
    problems = [clsolve.Knapsack([i + 1, 2], [1, 1], 1) for i in range(4)]
    solutions = clsolve.solve_many(problems, solver="auto", device=device)
    assert {s.solver for s in solutions} == {"dp-batch"} and [s.value for s in solutions] == [2, 2, 3, 4]


def test_bad_problem_in_batch_names_its_index(device, tmp_path, capsys):
    good = clsolve.Knapsack([1], [1], 1)
    bad = clsolve.Knapsack([1, 1], [[1, 2, 3, 4], [4, 3, 2, 1]], [4] * 4)  # four binding dimensions
    with pytest.raises(clsolve.BatchError, match="problem 2 ") as raised:  # the others' answers are kept
        clsolve.solve_many([good, good, bad, good], solver="dp-batch", device=device)
    assert isinstance(raised.value.failures[2], clsolve.UnsupportedProblemError)
    assert [s is None for s in raised.value.solutions] == [False, False, True, False]
    with pytest.raises(clsolve.BatchError, match="problem 1 ") as raised:
        clsolve.solve_many(
            [good, clsolve.Knapsack([1] * 5000, 10**8 + np.arange(5000), 3_000_000_000)], solver="dp-batch", device=device
        )
    assert isinstance(raised.value.failures[1], clsolve.DoesNotFitError) and raised.value.solutions[0].value == 1
    path = tmp_path / "batch.json"
    path.write_text(
        json.dumps(
            {
                "problems": [
                    {"profits": [1], "weights": [1], "capacities": 1},
                    {"profits": [1, -1], "weights": [1, 1], "capacities": 1},
                ]
            }
        )
    )
    assert main(["solve", str(path), "--solver", "dp-batch"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "problems[1]" in err and "negative" in err


def test_cli_solves_a_directory_as_one_batch(tmp_path, capsys):
    for i in range(3):
        (tmp_path / f"p{i}.json").write_text(json.dumps({"profits": [i + 1, 5], "weights": [1, 2], "capacities": 2}))
    assert main(["solve", str(tmp_path), "--solver", "dp-batch", "--json"]) == 0
    out, err = capsys.readouterr()
    assert [json.loads(line)["value"] for line in out.splitlines()] == [5, 5, 5]
    assert main(["solve", str(tmp_path), "--solver", "dp-batch"]) == 0
    out, err = capsys.readouterr()
    assert "time     solved in one batch of 3" in out and "batch: 3 problems solved in one call by dp-batch" in out


def _msb(data):
    """MSB's 630 problems with their optima by brute force (20 items each)."""
    folder = data / "2dpacklib" / "MSB-630_Unibo"
    if not folder.is_dir():
        pytest.skip("MSB folder absent")
    problems = [formats.read(f)[0] for f in sorted(folder.glob("*.json"))]
    return [(problem, brute_force(problem)) for problem in problems]


@pytest.mark.parametrize("name, count", [("msb", 630), ("class-a", 43)])
def test_2dpacklib_sets_equal_to_the_reference(data, device, name, count, request):
    """Every problem of each set at its optimum (brute force for MSB, sequential for class A), with and
    without presolve, by the method dp-batch picks and by the DP alone."""
    pairs = _msb(data) if name == "msb" else request.getfixturevalue("class_a")
    assert len(pairs) == count
    problems, expected = [p for p, _ in pairs], [v for _, v in pairs]
    for method, presolve in (("auto", True), ("dp", True), ("auto", False)):
        solutions = clsolve.solve_many(problems, solver="dp-batch", device=device, method=method, presolve=presolve)
        assert [s.value for s in solutions] == expected, (method, presolve)


def test_enumeration_capacities_beyond_32_bits(device):
    """Enumeration lowers a capacity to its dimension's total weight (exact) to stay in 32 bits, and
    refuses, with the numbers, a knapsack whose capacity and total weight are both beyond."""
    fits_after_lowering = clsolve.Knapsack([5, 6, 4], [3 * 10**9, 10**9, 2], 5 * 10**9)  # total 4e9 + 2 < 2^32
    solution = clsolve.solve(fits_after_lowering, solver="dp-batch", device=device, method="enumerate", presolve=False)
    assert solution.value == 15 and solution.items.tolist() == [0, 1, 2]
    beyond = clsolve.Knapsack([5, 6, 7], [3 * 10**9] * 3, 5 * 10**9)
    with pytest.raises(clsolve.BatchError, match=r"problem 1 .*32 bits.*5000000000.*9000000000") as raised:
        clsolve.solve_many([fits_after_lowering, beyond], solver="dp-batch", device=device, method="enumerate", presolve=False)
    assert isinstance(raised.value.failures[1], clsolve.UnsupportedProblemError) and raised.value.solutions[0].value == 15


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), clamp=st.booleans())
def test_the_device_layout_of_one_width_equals_the_general_one(seed, clamp):
    """Concatenated.of takes a shortcut when every knapsack has the same m: its rows equal those the
    general path (a batch of mixed m) gives the same knapsacks."""
    from clsolve.batch.packed import PackedProblems
    from clsolve.dp.table import Concatenated

    rng = np.random.default_rng(seed)
    problems = []
    for _ in range(int(rng.integers(2, 12))):
        n, m = int(rng.integers(1, 9)), int(rng.integers(1, 4))
        weights = rng.integers(0, 50, size=(n, m))
        problems.append(clsolve.Knapsack(rng.integers(0, 90, size=n), weights, rng.integers(0, 120, size=m), weights_by="item"))
    mixed = Concatenated.of(PackedProblems.pack(problems), np.dtype(np.int32), clamp)
    first = mixed.first_item
    for width in (1, 2, 3):
        rows = [k for k, p in enumerate(problems) if p.m == width]
        if not rows:
            continue
        alone = Concatenated.of(PackedProblems.pack([problems[k] for k in rows]), np.dtype(np.int32), clamp)
        assert (alone.capacities == mixed.capacities[rows]).all() and (alone.states == mixed.states[rows]).all()
        for j, k in enumerate(rows):
            a, b = first[k], first[k] + mixed.sizes[k]
            c = alone.first_item[j]
            assert (alone.weights[c : c + alone.sizes[j]] == mixed.weights[a:b]).all()
            assert (alone.profits[c : c + alone.sizes[j]] == mixed.profits[a:b]).all()


def _two_dimensional(count=6):
    rng = np.random.default_rng(3)
    problems = []
    for _ in range(count):
        weights = rng.integers(1, 60, (12, 2))
        problems.append(
            clsolve.Knapsack(weights.sum(axis=1) + rng.integers(0, 30, 12), weights, weights.sum(axis=0) // 2, weights_by="item")
        )
    return problems


def test_one_by_one_is_weighed_against_the_batch_estimate(device):
    from clsolve import solving

    problems = _two_dimensional()
    choices = solving._one_by_one(problems, device, batch_seconds=1e6)
    assert choices is not None and len(choices) == len(problems)
    assert sum(plan.seconds for (_, _, plan), _ in choices) < 1e6  # each: the choice and auto's fallback
    assert solving._one_by_one(problems, device, batch_seconds=len(problems) * solving.ONE_BY_ONE_SECONDS) is None
    assert solving._one_by_one(problems[:1], device, batch_seconds=1e6) is None


@pytest.mark.parametrize("batch_seconds", [1e6, 0.0])
def test_auto_batches_go_one_by_one_where_the_batch_is_dearer(batch_seconds, device, monkeypatch):
    """A batch solver estimated at 1e6 s loses to the problems' own choices; at 0 s it takes the batch."""
    from clsolve import solving

    found = solving._batching_solver_packed

    def dear(packed, dev):
        chosen = found(packed, dev)
        assert chosen is not None
        chosen[2].seconds = batch_seconds
        return chosen

    monkeypatch.setattr(solving, "_batching_solver_packed", dear)
    problems = _two_dimensional()
    solutions = clsolve.solve_many(problems, device=device)
    assert [s.value for s in solutions] == [brute_force(p) for p in problems]
    batched = all(f"in a batch of {len(problems)}" in " ".join(s.notes) for s in solutions)
    assert batched == (batch_seconds == 0.0)


def test_one_by_one_plans_a_sample_first(device, monkeypatch):
    """Where the sample's estimates already lose, the other problems are not planned."""
    from clsolve import solving

    problems = _two_dimensional(64)
    calls = []
    found = solving._choices

    def counted(problem, dev):
        calls.append(problem)
        return found(problem, dev)

    monkeypatch.setattr(solving, "_choices", counted)
    overhead = len(problems) * solving.ONE_BY_ONE_SECONDS * solving.ONE_BY_ONE_MARGIN
    assert solving._one_by_one(problems, device, batch_seconds=overhead * 1.000001) is None
    assert len(calls) == solving.ONE_BY_ONE_SAMPLE
    calls.clear()
    assert solving._one_by_one(problems, device, batch_seconds=1e6) is not None
    assert len(calls) == len(problems)
