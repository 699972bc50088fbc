"""The descent of dp-states: searches from guessed incumbents below the bound U before the plain
search. U is Dantzig's bound, or the rounded relaxation's bound of the whole problem where that is
lower (``relaxed.py``: on Jooken et al.'s instances the optimum may lie a million below Dantzig's
bound, where guesses below it would each cost a whole search and fail). A search from the guess
g = U - delta prunes every state whose bound is below g; it either finds a solution worth g or more,
which is then optimal, or proves that none exists, so that U becomes g - 1 and delta grows
DESCENT_GROWTH times. Where the gap between the incumbent and U is wide and the optimum near U
(Jooken et al.'s n = 800, g = 10, eps = 1e-5: 7e3 below U, the greedy incumbent 6e6 below), the
search that proves it prunes as if it had the optimum from the start.

A guess's search stops past DESCENT_STATES states made; where it does, or runs out of room
(``max_states``, records), the cluster bound (``clusters.py``) is asked for, and where it is below U
the guesses go on just below it (``_near``). Then, after DESCENT_TRIES guesses or once the guess
reaches the incumbent, the plain search follows, with its strengthening. A guess stopped by the time
limit ends the solve.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from clsolve.sdk import Knapsack, Solution

from .core import Core

#: Only where the bound is more than DESCENT_GAP above the incumbent; the first guess is
#: 1 / DESCENT_SPLIT of that gap below the bound, each next DESCENT_GROWTH times further.
DESCENT_GAP, DESCENT_SPLIT, DESCENT_GROWTH = 1000, 256, 4
#: The most guesses before the plain search. On the H100, of Jooken et al.'s c = 1e10 development
#: instances, a first guess proves two that the plain search proves 4 to 6 times slower; where a
#: second guess proved an instance, the plain search after the first would have been as fast; and
#: a failed guess costs about what the plain search does (the lists are as long).
DESCENT_TRIES = 1
#: Guesses below the cluster bound (``_near``): at most NEAR_TRIES, each NEAR_GROWTH times further.
NEAR_TRIES, NEAR_GROWTH = 4, 16
#: The most states a guess's search may make (about 0.4 s of levels on the H100 at 2^32; the guesses
#: that proved the development instances made at most 2.8e9) on a GPU and on other devices.
DESCENT_STATES = {"gpu": 2**32, "other": 2**25}


def descend(
    problem: Knapsack,
    floor: int,
    guessed: Callable[[int], Solution],
    plain: Callable[[], Solution],
    relaxed: Callable[[], int | None] = lambda: None,
    clustered: Callable[[], int | None] = lambda: None,
) -> Solution:
    """``guessed(g)``: the search from guess g (``stats["stopped"]``: "budget", "room", "time" or "");
    ``plain()``: the search from the incumbent ``floor``; ``relaxed()``: the rounded relaxation's bound
    (None: none), asked for only where Dantzig's leaves a gap wider than DESCENT_GAP; ``clustered()``:
    the cluster bound (None: none), asked for only where a guess cost too much (then the guesses go on
    just below it: ``_near``)."""
    core = Core.of(problem)
    lower, upper = max(core.greedy()[0], floor), core.root_bound()
    if upper - lower <= DESCENT_GAP:
        return plain()
    rows = relaxed()
    if rows is not None and rows < upper:
        upper = rows
        if upper - lower <= DESCENT_GAP:
            return _descended(plain(), [], upper)
    delta = max(1, (upper - lower) // DESCENT_SPLIT)
    guesses: list[int] = []
    while upper - delta > lower + 1 and len(guesses) < DESCENT_TRIES:
        guess = upper - delta
        solution = guessed(guess)
        guesses.append(guess)
        if solution.stats["stopped"] in ("budget", "room"):
            near = _near(guessed, clustered, lower, upper, guesses)
            if isinstance(near, Solution):
                return near
            upper = near
            break  # this guess costs too much: the plain search
        if solution.optimal or solution.stats["stopped"]:
            return _descended(solution, guesses, upper)
        upper, delta = guess - 1, delta * DESCENT_GROWTH
    return _descended(plain(), guesses, upper)


def _near(
    guessed: Callable[[int], Solution], clustered: Callable[[], int | None], lower: int, upper: int, guesses: list[int]
) -> Solution | int:
    """Guesses 1, NEAR_GROWTH, NEAR_GROWTH^2 ... below the cluster bound where it is below ``upper``
    (at most NEAR_TRIES): the cluster bound often equals the optimum, and it bounds every state of the
    guesses' searches, so that a guess above the optimum fails fast. The solution of a guess that
    proves the optimum, or the bound proved."""
    tight = clustered()
    if tight is None or tight >= upper:
        return upper
    upper, delta = tight, 1
    for _ in range(NEAR_TRIES):
        guess = upper - delta
        if guess <= lower + 1:
            break
        solution = guessed(guess)
        guesses.append(guess)
        if solution.stats["stopped"] in ("budget", "room"):
            break
        if solution.optimal or solution.stats["stopped"]:
            return _descended(solution, guesses, upper)
        upper, delta = guess - 1, delta * NEAR_GROWTH
    return upper


def _descended(solution: Solution, guesses: list[int], upper: int) -> Solution:
    """``solution`` of the last search of a descent that tried ``guesses`` and proved ``upper``."""
    bound = upper if solution.bound is None else min(solution.bound, upper)
    bound = max(bound, solution.value)
    note = (
        f"descent: {len(guesses)} guessed incumbents ({', '.join(str(g) for g in guesses)}); the optimum is at most {upper}"
        if guesses
        else "descent: none"
    )
    return replace(
        solution,
        bound=bound,
        optimal=solution.optimal or solution.value >= bound,
        notes=[*solution.notes, note],
        stats={**solution.stats, "descent_guesses": guesses},
    )
