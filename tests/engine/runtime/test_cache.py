"""Per-problem values (clsolve.runtime.cache): computed once, in one place, gone with their problem."""

import gc
import weakref

import clsolve
from clsolve.dp import fixing, presolve
from clsolve.runtime import cache


def test_a_value_is_computed_once_per_problem_and_key():
    problem = clsolve.Knapsack([3, 4], [2, 3], 4)
    calls = []
    for _ in range(3):
        assert cache.per_problem(problem, "k", lambda: calls.append(1) or "v") == "v"
    assert calls == [1]
    other = clsolve.Knapsack([3, 4], [2, 3], 4)  # equal, but another object: its own values
    assert cache.get(other, "k") is None


def test_values_go_with_their_problem_and_never_sit_on_it():
    problem = clsolve.Knapsack([5, 6, 7, 8], [1, 2, 3, 4], 5)
    assert presolve.reduce(problem) is presolve.reduce(problem)
    assert fixing.fix(problem) is fixing.fix(problem)
    assert {k for k in vars(problem) if k.startswith("_")} <= {"_total_profit", cache.ATTRIBUTE}
    gone = weakref.ref(problem)
    del problem
    gc.collect()
    assert gone() is None
