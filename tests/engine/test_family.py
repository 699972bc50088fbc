"""The knapsack family beyond 0-1 in the engine: bounded and unbounded knapsacks and change-making
built and refused field by field, every 0-1 solver on bounded knapsacks through binary splitting
(against brute force), the check of counts, the dominance of unbounded items, the JSON format and the
command line."""

import json
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import clsolve
from clsolve.family import dominance, splitting
from clsolve.family.generators import SUBSET_SUM_FAMILIES, bounded, change, subset_sum
from tests.strategies import family_brute_force

SETTINGS = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.mark.parametrize(
    "arguments, match",
    [
        (([1, 2], [1], 5, None), "weights: expected shape"),
        (([1, 2], [1, 2], 5, [1]), "counts: expected shape"),
        (([1, 2], [1, 2], 5, [1, 2**31 + 1]), "counts\\[1\\]: .* exceeds the limit 2\\^31"),
        (([1, 2], [1, 0], 5, None), "weights\\[1\\]: 0 with profit 2 and no count limit"),
        (([1, -2], [1, 1], 5, None), "profits\\[1\\]: -2 is negative"),
        (([2**62, 2**62], [1, 1], 5, [2, 2]), "profits: a packing could earn up to"),
        (([1], [1], [5, 6], None), "capacity: expected one integer"),
        (([1], [1], 5, [1.5]), "counts\\[0\\]: .*1.5.* is fractional"),
    ],
)
def test_bounded_knapsacks_refuse_bad_fields(arguments, match):
    with pytest.raises(clsolve.InvalidProblemError, match=match):
        clsolve.BoundedKnapsack(*arguments)


def test_change_making_refuses_bad_fields():
    with pytest.raises(clsolve.InvalidProblemError, match="weights: expected shape"):
        clsolve.ChangeMaking([], 5)
    with pytest.raises(clsolve.InvalidProblemError, match="capacity\\[0\\]|capacity: .*negative"):
        clsolve.ChangeMaking([1], -1)


@st.composite
def bounded_cases(draw):
    n = draw(st.integers(1, 4))
    weights = draw(st.lists(st.integers(1, 15), min_size=n, max_size=n))
    profits = draw(st.lists(st.integers(0, 40), min_size=n, max_size=n))
    counts = draw(st.none() | st.lists(st.integers(0, 6), min_size=n, max_size=n))
    capacity = draw(st.integers(0, 50))
    return profits, weights, capacity, counts


@SETTINGS
@given(case=bounded_cases(), solver=st.sampled_from(["sequential", "dp-rows", "dp-states", "bnb", "wavefront", "auto"]))
def test_every_zero_one_solver_solves_bounded_knapsacks_by_splitting(case, solver, device):
    profits, weights, capacity, counts = case
    problem = clsolve.BoundedKnapsack(profits, weights, capacity, counts)
    most = [min(c if counts else capacity, capacity // w) for c, w in zip(counts or weights, weights)]
    solution = clsolve.solve(problem, solver=solver, device=device)
    assert solution.optimal and solution.value == family_brute_force(weights, profits, most, capacity, False)
    assert solution.counts is not None and solution.selected.size == 0


def test_splitting_maps_pieces_back_to_counts():
    assert splitting.pieces(10) == [1, 2, 4, 3] and splitting.pieces(7) == [1, 2, 4] and splitting.pieces(0) == []
    problem = clsolve.BoundedKnapsack([5, 4], [3, 2], 100, [10, 1])
    form = splitting.split(problem)
    assert form.problem.n == 5 and form.copies.tolist() == [1, 2, 4, 3, 1]
    assert form.counts(np.array([False, True, False, True, True]), 2).tolist() == [5, 1]


def test_the_check_refuses_wrong_counts():
    problem = clsolve.BoundedKnapsack([5, 4], [3, 2], 10, [2, 3])
    good = clsolve.Solution(18, np.zeros(0, bool), True, "x", "", counts=np.array([2, 2]))
    clsolve.check(problem, good)
    for counts, value, match in [
        ([3, 0], 15, "exceeds the item's count 2"),
        ([2, 3], 22, "infeasible, uses 12 > capacity 10"),
        ([2, 2], 19, "reported value 19 but the counts earn 18"),
        ([-1, 2], 3, "negative"),
    ]:
        with pytest.raises(clsolve.SolutionCheckError, match=match):
            clsolve.check(problem, clsolve.Solution(value, np.zeros(0, bool), True, "x", "", counts=np.array(counts)))
    coins = clsolve.ChangeMaking([2, 5], 9)
    with pytest.raises(clsolve.SolutionCheckError, match="sum to 10, not 9"):
        clsolve.check(coins, clsolve.Solution(2, np.zeros(0, bool), True, "x", "", counts=np.array([0, 2])))
    with pytest.raises(clsolve.SolutionCheckError, match="every such problem has a feasible answer"):
        clsolve.check(problem, clsolve.Solution(0, np.zeros(0, bool), True, "x", "", feasible=False))


def _dominated_by_definition(profits, weights):
    out = []
    for j, (pj, wj) in enumerate(zip(profits, weights)):
        out.append(
            any(
                i != j and (wj // wi) * pi >= pj and wj // wi > 0 and ((wi, pi) != (wj, pj) or i < j)
                for i, (pi, wi) in enumerate(zip(profits, weights))
            )
        )
    return out


@settings(max_examples=60, deadline=None)
@given(items=st.lists(st.tuples(st.integers(0, 30), st.integers(1, 20)), min_size=1, max_size=8))
def test_dominance_of_unbounded_items_as_defined(items):
    profits, weights = (np.array(x, dtype=np.int64) for x in zip(*items))
    usable = np.full(len(items), 5)
    assert dominance.dominated(profits, weights, usable).tolist() == _dominated_by_definition(profits.tolist(), weights.tolist())


@settings(max_examples=60, deadline=None)
@given(
    items=st.lists(st.tuples(st.integers(0, 2**61), st.sampled_from([1, 2, 3, 7, 2**40, 2**61])), min_size=2, max_size=8),
    repeat=st.integers(1, 3),
)
def test_dominance_of_unbounded_items_with_products_past_float_range(items, repeat):
    """Profits and weight ratios whose products pass 2^53 (the pairwise rule's int64 path), with twins."""
    items = items * repeat
    profits, weights = (np.array(x, dtype=np.int64) for x in zip(*items))
    usable = np.full(len(items), 5)
    assert dominance.dominated(profits, weights, usable).tolist() == _dominated_by_definition(profits.tolist(), weights.tolist())


def test_generators_make_the_classic_families(device):
    problem = bounded("strongly", 40, 1000, 10, seed=3)
    assert problem.counts.max() <= 10 and problem.capacity == int((problem.weights * problem.counts).sum()) // 2
    assert (problem.profits == problem.weights + 100).all()
    assert bounded("uncorrelated", 20, 100, None, seed=1).unbounded
    coins = change(12, 100, 3, seed=2)
    solution = clsolve.solve(coins, device=device)
    assert solution.feasible and int(solution.counts @ coins.weights) == coins.capacity


@pytest.mark.parametrize("family", SUBSET_SUM_FAMILIES)
def test_hard_subset_sums_proved_by_their_bounds_against_the_word_dp(family, device):
    """[Pisinger03]'s subset-sum families as their formulas say, each proved by dp-states through the
    capacity, divisibility or cardinality bounds (no list grows: none of its levels run) and by
    subset-sum's word-parallel DP over every sum; both agree."""
    problem = subset_sum(family, 12 if family == "todd" else 60, seed=5)
    w, c = problem.weights[:, 0], int(problem.capacities[0])
    assert (problem.profits == w).all() and int(w.max()) <= c
    if family == "evenodd":
        assert (w % 2 == 0).all() and c % 2 == 1
    if family == "avis":
        assert w.tolist() == [60 * 61 + j for j in range(1, 61)] and c == 60 * 61 * 29 + 60 * 59 // 2
    states = clsolve.solve(problem, solver="dp-states", device=device, poison=True)
    words = clsolve.solve(problem, solver="subset-sum", device=device, poison=True)
    assert states.optimal and words.optimal and states.value == words.value
    if family in ("evenodd", "avis"):
        assert states.stats.get("levels", 0) == 0  # the bound meets the incumbent before the search
    with pytest.raises(ValueError, match="family must be one of"):
        subset_sum("hard", 10)


def test_json_and_the_command_line(tmp_path):
    path = tmp_path / "family.json"
    path.write_text(
        json.dumps(
            {
                "problems": [
                    {
                        "kind": "bounded",
                        "profits": [10, 7, 5],
                        "weights": [4, 3, 2],
                        "capacity": 9,
                        "counts": [1, 2, 3],
                        "optimum": 22,
                    },
                    {"kind": "unbounded", "profits": [10, 7, 5], "weights": [4, 3, 2], "capacity": 9},
                    {"kind": "change-making", "weights": [1, 5, 10, 25], "capacity": 63, "optimum": 6},
                    {"kind": "change-making", "weights": [4, 6], "capacity": 7},
                ]
            }
        )
    )
    problems = clsolve.formats.read(path)
    assert [type(p).__name__ for p in problems] == ["BoundedKnapsack", "BoundedKnapsack", "ChangeMaking", "ChangeMaking"]
    out = subprocess.run(
        [sys.executable, "-m", "clsolve", "solve", str(path), "--json"], capture_output=True, text=True, check=True
    )
    answers = [json.loads(line) for line in out.stdout.splitlines()]
    assert [a["value"] for a in answers] == [22, 22, 6, 0]
    assert answers[2]["counts"] == [3, 0, 1, 2] and answers[3]["feasible"] is False
    text = subprocess.run(
        [sys.executable, "-m", "clsolve", "solve", str(path)], capture_output=True, text=True, check=True
    ).stdout
    assert "none: no choice of coins sums to 7" in text and "counts   6 coins" in text


def test_json_errors_name_the_field(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"kind": "unbounded", "profits": [1], "weights": [1], "capacity": 3, "counts": [2]}))
    with pytest.raises(clsolve.FormatError, match="problem.counts: an unbounded knapsack has no counts"):
        clsolve.formats.read(path)
    path.write_text(json.dumps({"kind": "bounded", "profits": [1], "weights": [1], "capacity": 3}))
    with pytest.raises(clsolve.FormatError, match="needs field\\(s\\) counts"):
        clsolve.formats.read(path)


def test_multiple_choice_refuses_bad_fields_and_wrong_answers():
    with pytest.raises(clsolve.InvalidProblemError, match="classes: class 1 has no item"):
        clsolve.MultipleChoice([1, 2], [1, 2], 5, [0, 2])
    with pytest.raises(clsolve.InvalidProblemError, match="classes: expected shape"):
        clsolve.MultipleChoice([1, 2], [1, 2], 5, [0])
    problem = clsolve.MultipleChoice([5, 6, 7, 1], [4, 6, 5, 1], 10, [0, 0, 1, 1])
    ok = clsolve.Solution(12, np.array([True, False, True, False]), True, "x", "")
    clsolve.check(problem, ok)
    for selected, value, match in [
        ([True, True, False, True], 12, "class 0 has 2 items"),
        ([False, False, True, False], 7, "class 0 has 0 items"),
        ([False, True, True, False], 13, "uses 11 > capacity 10"),
        ([True, False, True, False], 13, "reported value 13"),
    ]:
        with pytest.raises(clsolve.SolutionCheckError, match=match):
            clsolve.check(problem, clsolve.Solution(value, np.array(selected), True, "x", ""))
    with pytest.raises(clsolve.SolutionCheckError, match="says no choice fits"):
        clsolve.check(problem, clsolve.Solution(0, np.zeros(4, bool), True, "x", "", feasible=False))


def test_multiple_choice_in_json(tmp_path):
    path = tmp_path / "mc.json"
    entry = {"kind": "multiple-choice", "profits": [5, 6, 7, 1], "weights": [4, 6, 5, 1], "capacity": 10, "classes": [0, 0, 1, 1]}
    path.write_text(json.dumps({"problems": [entry, {**entry, "capacity": 3}, {**entry, "capacity": 3, "at_most_one": True}]}))
    out = subprocess.run(
        [sys.executable, "-m", "clsolve", "solve", str(path), "--json"], capture_output=True, text=True, check=True
    )
    answers = [json.loads(line) for line in out.stdout.splitlines()]
    assert [a["value"] for a in answers] == [12, 0, 1]
    assert answers[0]["items"] == [0, 2] and answers[1]["feasible"] is False and answers[2]["items"] == [3]


def test_multiple_knapsacks_refuse_bad_fields_and_wrong_answers(tmp_path):
    with pytest.raises(clsolve.InvalidProblemError, match="capacities: expected shape \\(k,\\)"):
        clsolve.MultipleKnapsack([1, 2], [1, 2], [])
    problem = clsolve.MultipleKnapsack([10, 7, 5], [4, 3, 2], [5, 4])
    clsolve.check(problem, clsolve.Solution(17, np.zeros(0, bool), True, "x", "", assignment=np.array([0, 1, -1])))
    for assignment, value, match in [
        ([0, 0, -1], 17, "knapsack 0 holds 7 > capacity 5"),
        ([0, 2, -1], 17, "outside -1..1"),
        ([0, 1, -1], 18, "reported value 18"),
    ]:
        with pytest.raises(clsolve.SolutionCheckError, match=match):
            wrong = clsolve.Solution(value, np.zeros(0, bool), True, "x", "", assignment=np.array(assignment))
            clsolve.check(problem, wrong)
    path = tmp_path / "mk.json"
    path.write_text(json.dumps({"kind": "multiple", "profits": [10, 7, 5], "weights": [4, 3, 2], "capacities": [5, 4]}))
    out = subprocess.run(
        [sys.executable, "-m", "clsolve", "solve", str(path), "--json"], capture_output=True, text=True, check=True
    )
    answer = json.loads(out.stdout)
    assert answer["value"] == 22 and answer["used"] == [5, 4]  # items 1 and 2 in the first, item 0 in the second
