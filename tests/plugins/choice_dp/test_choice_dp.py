"""The multiple-choice dense DP (``choice-dp``) against brute force over every choice of one item per
class (and of at most one), with poisoned buffers (the walk reads only decisions a step wrote), against
``sequential`` on Pisinger's families, a class wide enough for 16-bit decisions, problems where no
choice fits, and its refusals."""

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import clsolve
from clsolve.family.generators import CHOICE_FAMILIES, choice

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def brute_force(problem: clsolve.MultipleChoice) -> int | None:
    options = [list(members) + ([None] if problem.at_most_one else []) for members in problem.members()]
    best = None
    for pick in itertools.product(*options):
        chosen = [i for i in pick if i is not None]
        if sum(int(problem.weights[i]) for i in chosen) <= problem.capacity:
            value = sum(int(problem.profits[i]) for i in chosen)
            best = value if best is None else max(best, value)
    return best


@st.composite
def choices(draw):
    k = draw(st.integers(1, 4))
    sizes = draw(st.lists(st.integers(1, 4), min_size=k, max_size=k))
    labels = [c for c, size in enumerate(sizes) for _ in range(size)]
    draw(st.randoms()).shuffle(labels)
    weights = draw(st.lists(st.integers(0, 20), min_size=len(labels), max_size=len(labels)))
    profits = draw(st.lists(st.integers(0, 50), min_size=len(labels), max_size=len(labels)))
    capacity = draw(st.integers(0, 50))
    return clsolve.MultipleChoice(profits, weights, capacity, labels, at_most_one=draw(st.booleans()))


@SETTINGS
@given(problem=choices())
def test_against_brute_force(problem, device):
    expected = brute_force(problem)
    for solver in ("choice-dp", "sequential"):
        options = {"poison": True} if solver == "choice-dp" else {}
        solution = clsolve.solve(problem, solver=solver, device=device, **options)
        if expected is None:
            assert not solution.feasible
        else:
            assert solution.feasible and solution.optimal and solution.value == expected


@pytest.mark.parametrize("family", CHOICE_FAMILIES)
def test_the_families_against_sequential(family, device):
    problem = choice(family, 15, 12, 500, seed=3)
    dense = clsolve.solve(problem, solver="choice-dp", device=device, poison=True)
    assert dense.value == clsolve.solve(problem, solver="sequential").value


def test_a_class_of_many_items_keeps_16_bit_decisions(device):
    """300 items of one class, all undominated (weight and profit rise together): positions up to 299."""
    weights = list(range(1, 301)) + [5, 9]
    profits = [2 * w for w in range(1, 301)] + [7, 3]
    problem = clsolve.MultipleChoice(profits, weights, 250, [0] * 300 + [1, 1])
    solution = clsolve.solve(problem, solver="choice-dp", device=device, poison=True)
    assert solution.value == 2 * 245 + 7 and solution.items.tolist() == [244, 300]


def test_when_no_choice_fits(device):
    problem = clsolve.MultipleChoice([5, 6, 7], [4, 6, 5], 8, [0, 1, 1])
    assert clsolve.plan(problem, "choice-dp", device).launches == 0
    solution = clsolve.solve(problem, solver="choice-dp", device=device)
    assert not solution.feasible and "weighs 9 > 8" in solution.notes[0]


def test_refusals(device):
    with pytest.raises(clsolve.UnsupportedProblemError, match="multiple-choice"):
        clsolve.solve(clsolve.Knapsack([1], [1], 1), solver="choice-dp", device=device)
    with pytest.raises(clsolve.UnsupportedProblemError, match="2\\^61"):
        clsolve.solve(clsolve.MultipleChoice([2**61, 1], [1, 1], 3, [0, 1]), solver="choice-dp", device=device)
    huge = clsolve.MultipleChoice([1, 2, 3], [1, 2, 3], 2**36, [0, 1, 2])
    with pytest.raises(clsolve.DoesNotFitError, match="needs .* of device memory"):
        clsolve.plan(huge, "choice-dp", device)
