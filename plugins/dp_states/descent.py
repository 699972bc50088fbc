"""The descent of dp-states: searches from guessed incumbents below Dantzig's bound U before the
plain search. A search from the guess g = U - delta prunes every state whose bound is below g; it
either finds a solution worth g or more, which is then optimal, or proves that none exists, so that U
becomes g - 1 and delta grows DESCENT_GROWTH times. Where the gap between the incumbent and U is wide
and the optimum near U (Jooken et al.'s n = 800, g = 10, eps = 1e-5: 7e3 below U, the greedy
incumbent 6e6 below), the search that proves it prunes as if it had the optimum from the start.

A guess's search stops past DESCENT_STATES states made; then, where it runs out of room
(``max_states``, records), after DESCENT_TRIES guesses or once the guess reaches the incumbent, the
plain search follows, with its strengthening. A guess stopped by the time limit ends the solve.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from clsolve.problems import Knapsack
from clsolve.solution import Solution

from .core import Core

#: Only where Dantzig's bound is more than DESCENT_GAP above the incumbent; the first guess is
#: 1 / DESCENT_SPLIT of that gap below the bound, each next DESCENT_GROWTH times further.
DESCENT_GAP, DESCENT_SPLIT, DESCENT_GROWTH = 1000, 256, 4
#: The most guesses before the plain search: on the H100 the c = 1e10 instances the descent proves need
#: one or two, and each failed guess costs up to a budget (g = 2: the optimum is 1.7e9 below the bound).
DESCENT_TRIES = 2
#: The most states a guess's search may make (about 1 s of levels on the H100 at 2^33) on a GPU and
#: on other devices.
DESCENT_STATES = {"gpu": 2**33, "other": 2**25}


def descend(problem: Knapsack, floor: int, guessed: Callable[[int], Solution],
            plain: Callable[[], Solution]) -> Solution:
    """``guessed(g)``: the search from guess g (``stats["stopped"]``: "budget", "room", "time" or "");
    ``plain()``: the search from the incumbent ``floor``."""
    core = Core.of(problem)
    lower, upper = max(core.greedy()[0], floor), core.root_bound()
    if upper - lower <= DESCENT_GAP:
        return plain()
    delta = max(1, (upper - lower) // DESCENT_SPLIT)
    guesses: list[int] = []
    while upper - delta > lower + 1 and len(guesses) < DESCENT_TRIES:
        guess = upper - delta
        solution = guessed(guess)
        guesses.append(guess)
        if solution.stats["stopped"] in ("budget", "room"):
            break                                     # this guess costs too much: the plain search
        if solution.optimal or solution.stats["stopped"]:
            return _descended(solution, guesses, upper)
        upper, delta = guess - 1, delta * DESCENT_GROWTH
    return _descended(plain(), guesses, upper)


def _descended(solution: Solution, guesses: list[int], upper: int) -> Solution:
    """``solution`` of the last search of a descent that tried ``guesses`` and proved ``upper``."""
    bound = upper if solution.bound is None else min(solution.bound, upper)
    bound = max(bound, solution.value)
    note = (f"descent: {len(guesses)} guessed incumbents ({', '.join(str(g) for g in guesses)}); "
            f"the optimum is at most {upper}" if guesses else "descent: none")
    return replace(solution, bound=bound, optimal=solution.optimal or solution.value >= bound,
                   notes=[*solution.notes, note], stats={**solution.stats, "descent_guesses": guesses})
