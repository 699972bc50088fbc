"""A differential fuzzer over every solver and documented option.

For a wall-clock budget and a seed it draws problems from many families (knapsacks of every shape
the issue tracker names, Jooken-style hard instances, bounded and unbounded knapsacks, change-making,
LCS and TSP), solves each with every solver
and a random choice of its options, and checks the answers against independent references (brute
force over all subsets, a plain DP, all permutations). The engine checks every answer itself
(feasible, value = the items' profit, bound >= value); the fuzzer checks the optimum and the
optimal/bound claims. A refusal (UnsupportedProblemError, DoesNotFitError) counts as one; any
other exception, and TimeLimitError from an anytime solver, is a failure. An anytime solver's solve
under a drawn time limit, and any solver's TimeLimitError, must end within the limit plus
``clsolve.runtime.deadline``'s margin; one that ends later is run once without the limit (its kernels
then built and launched once, as the promise counts them) and again under it, and fails if it is late
again.

    python ci/fuzz.py --minutes 3 --seed 1 --device pocl --json fuzz.json
    python ci/fuzz.py --solves 1000 --minutes 20 --seed 1     # until every solver has 1,000 solves (each
                                                              # left out of later cases once it has them)
    python ci/fuzz.py --solves 2000 --counted fixed.json  # a new seed until both runs together have 2,000
    python ci/fuzz.py --seed 17 --case 342              # repeat one case (the failure line says which)
    python ci/fuzz.py --minutes 10 --jobs 8 --device gpu  # 8 processes, seeds seed..seed+7, counts merged

``ci/fuzz.sh`` runs it the same way (``bash ci/fuzz.sh --minutes 10 --device gpu``).

A failure prints a one-line reproducer and saves the instance as JSON under --failures.
Exits 1 when anything failed.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import importlib.util
import itertools
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path

import numpy as np

import clsolve
from clsolve.generators import jooken
from clsolve.problems import LCS, TSP
from clsolve.runtime.deadline import Deadline
from clsolve.runtime.devices import settle_left_work

BRUTE_ITEMS = 14
#: Time limit of every solve that draws none (a solver reaching it is counted, not failed).
CASE_SECONDS = 20.0
#: Share of the solves of the solvers without a limit of their own drawn that get a short one.
LIMITED_SHARE = 0.15
REFERENCE_CELLS = 4 * 10**6


# -- problems ------------------------------------------------------------------------------------------
def clustered(rng: random.Random) -> clsolve.Knapsack:
    """Clusters of eight or more near-equal large weights and a few light items, with a capacity of
    2^24 or more (dp-states' cluster bound applies)."""
    capacity = rng.randint(2**24, 2**40)
    spread = capacity >> 23
    weights: list[int] = []
    for _ in range(rng.choice([1, 1, 2, 3])):  # one cluster: mostly in brute force's reach
        centre = capacity // rng.randint(2, 9)
        weights += [centre + rng.randint(0, spread) for _ in range(rng.randint(8, 12))]
    weights += [rng.randint(1, 5000) for _ in range(rng.randint(0, 4))]
    profits = [max(0, w + rng.randint(-spread * 20, spread * 20)) for w in weights]
    return clsolve.Knapsack(profits, weights, capacity, name=f"clustered n={len(weights)}")


def knapsack(rng: random.Random, family: str) -> clsolve.Knapsack:
    """One knapsack of ``family`` (small enough for a reference)."""
    if family == "clustered":
        return clustered(rng)
    n = rng.choice([1, 2, 3, rng.randint(4, 14), rng.randint(15, 60)])
    m = rng.choice([1, 1, 1, 2, 3, rng.randint(4, 30)])
    top = rng.choice([10, 100, 1000])
    w = np.array([[rng.randint(0 if family == "zero-weight" else 1, top) for _ in range(m)] for _ in range(n)], dtype=object)
    if family == "strongly-correlated":
        p = [int(w[i, 0]) + top // 10 for i in range(n)]
    elif family == "inversely-correlated":
        p = [max(0, top + top // 10 - int(w[i, 0])) for i in range(n)]
    elif family == "subset-sum":
        p = [int(w[i, 0]) for i in range(n)]
    elif family == "equal-weights":
        w[:, :] = rng.randint(1, top)
        p = [rng.randint(0, top) for _ in range(n)]
    elif family == "equal-profits":
        p = [rng.randint(1, top)] * n
    elif family == "zero-profit":
        p = [rng.choice([0, rng.randint(1, top)]) for _ in range(n)]
    elif family == "big-profits":
        total = rng.choice([2**31, 2**40, 2**61])  # profit sums past 2^31 and near 2^62
        p = [rng.randint(total // (2 * n), total // n) for _ in range(n)]
    elif family == "repeated-items":  # a few (profit, weights) types, most items equal to another
        types = rng.randint(1, 4)
        kinds = [(rng.randint(0, top), [rng.randint(1, top) for _ in range(m)]) for _ in range(types)]
        drawn = [kinds[rng.randrange(types)] for _ in range(n)]
        p = [kind[0] for kind in drawn]
        w = np.array([kind[1] for kind in drawn], dtype=object).reshape(n, m)
    else:
        p = [rng.randint(0, top) for _ in range(n)]
    total = w.sum(axis=0)
    rule = (
        family
        if family in ("capacity-zero", "capacity-total", "heavy-items", "huge-capacity")
        else rng.choice(["half", "half", "small", "total"])
    )
    caps = []
    for d in range(m):
        if rule == "capacity-zero":
            caps.append(0)
        elif rule in ("capacity-total", "total"):
            caps.append(int(total[d]))
        elif rule == "heavy-items":
            caps.append(max(0, int(min(w[:, d])) - 1))
        elif rule == "huge-capacity":
            caps.append(rng.choice([2**40, 2**62]))
        elif rule == "small":
            caps.append(rng.randint(0, max(1, int(total[d]) // 5)))
        else:
            caps.append(int(total[d]) // 2)
    # keep DP references in reach: bound the state grid
    while m > 1 and int(np.prod([min(c, int(t)) + 1 for c, t in zip(caps, total)], dtype=object)) > REFERENCE_CELLS:
        caps = [c // 2 for c in caps]
    return clsolve.Knapsack(p, w.astype(np.int64), caps, weights_by="item", name=f"{family} n={n} m={m}")


KNAPSACK_FAMILIES = (
    "uncorrelated",
    "strongly-correlated",
    "inversely-correlated",
    "subset-sum",
    "equal-weights",
    "equal-profits",
    "zero-weight",
    "zero-profit",
    "heavy-items",
    "capacity-zero",
    "capacity-total",
    "huge-capacity",
    "big-profits",
    "repeated-items",
    "clustered",
)


def lcs(rng: random.Random, family: str) -> LCS:
    length = rng.choice([0, 1, rng.randint(2, 40), rng.randint(41, 300)])
    other = rng.choice([0, 1, rng.randint(2, 40), rng.randint(41, 300)])
    if family == "lcs-one-symbol":
        return LCS([7] * length, [7] * other, name=family)
    alphabet = rng.choice([2, 4, 26]) if family == "lcs-small-alphabet" else rng.choice([1000, 2**40])
    return LCS([rng.randrange(alphabet) for _ in range(length)], [rng.randrange(alphabet) for _ in range(other)], name=family)


def tsp(rng: random.Random, family: str) -> TSP:
    n = rng.randint(2, 7)
    top = rng.choice([1, 10, 1000, 2**40, 2**58 // n])
    if family == "tsp-larger":  # tsp-bnb's search: 8 to 13 cities against a reference, 34 to 48 checked
        n = rng.choice([8, 9, rng.randint(10, 13), rng.randint(34, 48)])
        top = rng.choice([3, 100, 10**4])
        family = rng.choice(["tsp-symmetric", "tsp-asymmetric"])
    d = [
        [rng.choice([0, rng.randint(0, top)]) if family == "tsp-zero" else rng.randint(0, top) for _ in range(n)]
        for _ in range(n)
    ]
    if family == "tsp-symmetric":
        d = [[d[min(i, j)][max(i, j)] for j in range(n)] for i in range(n)]
    return TSP(d, name=f"{family} n={n}")


FAMILY_KINDS = ("bounded", "unbounded", "change-bounded", "change-unbounded", "multiple-choice", "multiple")


def classes(rng: random.Random) -> clsolve.MultipleChoice:
    """A small multiple-choice knapsack: up to 5 classes of up to 5 items, one or at most one each; in 3
    of 10, profits of the weight plus a multiple of 2 to 10 (choice-states' excess bound)."""
    sizes = [rng.randint(1, 5) for _ in range(rng.randint(1, 5))]
    labels = [c for c, size in enumerate(sizes) for _ in range(size)]
    rng.shuffle(labels)
    top = rng.choice([10, 100, 1000])
    weights = [rng.randint(0, top) for _ in labels]
    profits = [rng.randint(0, top) for _ in labels]
    if rng.random() < 0.3:
        step = rng.randint(2, 10)
        profits = [w + step * rng.randint(0, 5) for w in weights]
    capacity = rng.randint(0, sum(weights) // max(len(sizes), 1) * 2 + 1)
    return clsolve.MultipleChoice(profits, weights, capacity, labels, rng.random() < 0.3, name=f"multiple-choice top={top}")


def counted(rng: random.Random, family: str) -> clsolve.BoundedKnapsack | clsolve.ChangeMaking:
    """A small bounded or unbounded knapsack (uncorrelated, or strongly correlated in 3 of 10), or
    change-making: counts up to 1, 5, 50 or 300, weights up to 10, 100 or 1000, capacity anywhere up
    to the total weight of every copy."""
    n = rng.randint(1, 8)
    top, most = rng.choice([10, 100, 1000]), rng.choice([1, 5, 50, 300])
    weights = [rng.randint(0 if family == "bounded" else 1, top) for _ in range(n)]
    profits = [rng.randint(0, top) for _ in range(n)]
    if rng.random() < 0.3:  # strongly correlated: the split's maximum-copies bound (dp-states)
        profits = [w + max(top // 10, 1) for w in weights]
    counts = [rng.randint(0, most) for _ in range(n)] if family.endswith("bounded") and not family.endswith("unbounded") else None
    total = sum(w * (c if counts else rng.randint(1, 20)) for w, c in zip(weights, counts or weights))
    capacity = rng.randint(0, max(total, 1))
    if family.startswith("change"):
        return clsolve.ChangeMaking(weights, capacity, counts, name=f"{family} top={top} most={most}")
    return clsolve.BoundedKnapsack(profits, weights, capacity, counts, name=f"{family} top={top} most={most}")


def draw(rng: random.Random) -> clsolve.Knapsack | clsolve.BoundedKnapsack | clsolve.ChangeMaking | LCS | TSP:
    family = rng.choice(
        KNAPSACK_FAMILIES * 3
        + ("jooken",)
        + (
            "lcs-one-symbol",
            "lcs-small-alphabet",
            "lcs-huge-alphabet",
            "tsp-symmetric",
            "tsp-asymmetric",
            "tsp-zero",
        )
        + ("tsp-larger",) * 3  # tsp-bnb's search, 8 to 13 cities against a reference
        + FAMILY_KINDS * 2
    )
    if family == "multiple-choice":
        return classes(rng)
    if family == "multiple":
        n, k, top = rng.randint(1, 7), rng.randint(1, 3), rng.choice([10, 100, 1000])
        weights, profits = [rng.randint(0, top) for _ in range(n)], [rng.randint(0, top) for _ in range(n)]
        if rng.random() < 0.3:  # subset sums: multiple-bnb's window and bits
            profits = list(weights)
        capacities = [rng.randint(0, max(sum(weights) // k, 1)) for _ in range(k)]
        return clsolve.MultipleKnapsack(profits, weights, capacities, name=f"multiple top={top}")
    if family in FAMILY_KINDS:
        return counted(rng, family)
    if family == "jooken":
        return jooken(
            rng.choice([40, 60, 80]),
            rng.choice([10**4, 10**6, 10**10]),
            rng.choice([2, 10]),
            rng.choice([0.1, 0.3]),
            rng.choice([0, 0.001]),
            100,
            seed=rng.randrange(10**6),
        )
    if family.startswith("lcs"):
        return lcs(rng, family)
    if family.startswith("tsp"):
        return tsp(rng, family)
    return knapsack(rng, family)


# -- references ----------------------------------------------------------------------------------------
def counted_reference(problem: clsolve.BoundedKnapsack | clsolve.ChangeMaking) -> int | None:
    """A plain DP over every capacity, k copies of an item at a time (not binary pieces, not windows):
    the most profit, or the fewest coins (-1: no exact sum)."""
    exact = isinstance(problem, clsolve.ChangeMaking)
    cap = problem.capacity
    if cap * int(problem.usable.sum()) > 50 * REFERENCE_CELLS:
        return None
    none = -(10**18)
    row = np.full(cap + 1, none, dtype=np.int64) if exact else np.zeros(cap + 1, dtype=np.int64)
    row[0] = 0
    profits = [-1] * problem.n if exact else problem.profits.tolist()
    for w, p, b in zip(problem.weights.tolist(), profits, problem.usable.tolist()):
        if w == 0:
            row = row + (0 if exact else p * b)
            continue
        best = row.copy()
        for k in range(1, b + 1):
            if k * w > cap:
                break
            shifted = row[: cap + 1 - k * w] + k * p
            valid = row[: cap + 1 - k * w] > none // 2
            best[k * w :] = np.where(valid & (shifted > best[k * w :]), shifted, best[k * w :])
        row = best
    if exact:
        return -1 if row[-1] <= none // 2 else int(-row[-1])
    return int(row[-1])


def choice_reference(problem: clsolve.MultipleChoice) -> int:
    """Every choice of one item per class (or none, with ``at_most_one``): the best value, -1 where none fits."""
    options = [list(m) + ([None] if problem.at_most_one else []) for m in problem.members()]
    best = -1
    for pick in itertools.product(*options):
        chosen = [i for i in pick if i is not None]
        if sum(int(problem.weights[i]) for i in chosen) <= problem.capacity:
            best = max(best, sum(int(problem.profits[i]) for i in chosen))
    return best


def multiple_reference(problem: clsolve.MultipleKnapsack) -> int:
    """Every assignment of the items to the knapsacks (or none): the best value."""
    best = 0
    weights, profits, capacities = problem.weights.tolist(), problem.profits.tolist(), problem.capacities.tolist()
    for assignment in itertools.product(range(-1, problem.k), repeat=problem.n):
        loads = [0] * problem.k
        for w, at in zip(weights, assignment):
            if at >= 0:
                loads[at] += w
        if all(load <= c for load, c in zip(loads, capacities)):
            best = max(best, sum(p for p, at in zip(profits, assignment) if at >= 0))
    return best


def held_karp(distances) -> int:
    """The shortest tour by Held and Karp's recursion over subsets, on the host (costs below 2^40)."""
    d = np.asarray(distances, dtype=np.int64)
    m = d.shape[0] - 1
    best = np.full((1 << m, m), np.iinfo(np.int64).max // 4, dtype=np.int64)
    for j in range(m):
        best[1 << j, j] = d[0, j + 1]
    inner = d[1:, 1:]
    for mask in range(1, 1 << m):
        ends = best[mask]
        for k in range(m):
            if not mask >> k & 1:
                best[mask | 1 << k, k] = min(best[mask | 1 << k, k], int((ends + inner[:, k]).min()))
    return int((best[-1] + d[1:, 0]).min())


def reference(problem) -> int | None:
    """The optimum by a method independent of the solvers (None where out of its reach)."""
    if isinstance(problem, clsolve.MultipleKnapsack):
        return multiple_reference(problem)
    if isinstance(problem, clsolve.MultipleChoice):
        return choice_reference(problem)
    if isinstance(problem, (clsolve.BoundedKnapsack, clsolve.ChangeMaking)):
        return counted_reference(problem)
    if isinstance(problem, TSP):
        if problem.n > 13:
            return None  # past the references' reach: the engine's check of the tour and bound stands
        if problem.n > 9:
            return held_karp(problem.distances)
        return min(problem.tour_length((0,) + q) for q in itertools.permutations(range(1, problem.n)))
    if isinstance(problem, LCS):
        a, b = problem.a.tolist(), problem.b.tolist()
        row = [0] * (len(b) + 1)
        for x in a:
            previous, diagonal = row[:], 0
            for j, y in enumerate(b, start=1):
                row[j] = previous[j - 1] + 1 if x == y else max(previous[j], row[j - 1])
            del diagonal
        return row[-1]
    if problem.n <= BRUTE_ITEMS:
        weights, profits, caps = problem.weights.tolist(), problem.profits.tolist(), problem.capacities.tolist()
        best = 0
        for mask in range(1 << problem.n):
            chosen = [i for i in range(problem.n) if mask >> i & 1]
            if all(sum(weights[i][d] for i in chosen) <= caps[d] for d in range(problem.m)):
                best = max(best, sum(profits[i] for i in chosen))
        return best
    if problem.m == 1:  # a plain dense DP over the capacities the items can reach
        cap = min(int(problem.capacities[0]), int(problem.weights.sum()))
        if cap > REFERENCE_CELLS:
            return None
        row = np.zeros(cap + 1, dtype=object)
        for w, p in zip(problem.weights[:, 0].tolist(), problem.profits.tolist()):
            if w <= cap:
                row[w:] = np.maximum(row[w:], row[: cap + 1 - w] + p)
        return int(row[-1])
    return None


# -- solvers and options -------------------------------------------------------------------------------
def configurations(rng: random.Random, problem) -> list[tuple[str, dict]]:
    """Every installed solver with a random draw of its documented options."""
    pick = rng.choice
    out = [("sequential", {}), ("auto", {})]
    if isinstance(problem, clsolve.MultipleKnapsack):
        out.append(("multiple-bnb", {}))
    if isinstance(problem, clsolve.MultipleChoice):
        out.append(("choice-dp", {"poison": True}))
        out.append(("choice-states", {"max_states": rng.choice([None, None, 20])}))
    if isinstance(problem, (clsolve.BoundedKnapsack, clsolve.ChangeMaking, clsolve.MultipleChoice, clsolve.MultipleKnapsack)):
        if isinstance(problem, (clsolve.BoundedKnapsack, clsolve.ChangeMaking)):
            out.append(
                ("bounded-dp", {"method": pick(["auto", "window", "pieces"]), "poison": True, "search": pick([True, False])})
            )
        if isinstance(problem, clsolve.BoundedKnapsack):  # every 0-1 solver, on its binary split
            out += [("dp-rows", {}), ("dp-states", {}), ("bnb", {}), ("wavefront", {"poison": True})]
        for _, options in out:
            if rng.random() < LIMITED_SHARE:
                options["time_limit"] = pick([0.0, 0.01, 0.1])
            options.setdefault("time_limit", CASE_SECONDS)
        return out
    out.append(
        (
            "wavefront",
            {
                "store": pick(["auto", "device", "host"]),
                "poison": True,
                **(
                    {"method": pick(["auto", "bits", "cells"]), "schedule": pick(["auto", "diagonals"])}
                    if isinstance(problem, LCS)
                    else {}
                ),
                **({"block": pick([None, 0, 2, 16])} if isinstance(problem, clsolve.Knapsack) else {}),
                **({"device_memory_limit": pick([2**16, 2**20])} if rng.random() < 0.3 else {}),
            },
        )
    )
    if isinstance(problem, clsolve.Knapsack):
        out.append(
            (
                "dp-rows",
                {
                    "items_per_launch": pick([None, 1, 2, 3, 4]),
                    "value_bits": pick([None, 64]),
                    "chain": pick([None, 1, 2, 5, 32]),
                    "block": pick([None, 0, 2, 7, 16]),
                    "pipeline": pick([None, None, 0, 1, 4, 16]),
                    "presolve": pick([True, False]),
                    "dominance": pick([True, False]),
                    "fixing": pick([True, False]),
                    "pruning": pick([True, False]),
                    "store": pick(["auto", "host"]),
                    "poison": True,
                    # not an option: the large-table steps (dominance, fixing) on every size
                    "large_table_steps": pick([True, False]),
                },
            )
        )
        out.append(
            (
                "dp-batch",
                {
                    "method": pick(["auto", "dp", "enumerate"]),
                    "presolve": pick([True, False]),
                    "on_chip": pick([None, True, False]),
                    "local_size": pick([None, 32]),
                    "poison": True,
                    **({"memory_limit": 2**16} if rng.random() < 0.2 else {}),
                },
            )
        )
        out.append(
            (
                "mckp",
                {
                    "grouping": pick(["auto", "value", "weight"]),
                    "variant": pick(["full", "no-local", "no-opt"]),
                    "counts": pick(["auto", "device", "host", "recompute"]),
                    "presolve": pick([True, False]),
                    "poison": True,
                },
            )
        )
        out.append(
            (
                "bnb",
                {
                    "host_threshold": pick([0, 64, 4096]),
                    "dominance": pick([True, False]),
                    "fixing": pick([True, False]),
                    "presolve": pick([True, False]),
                    "aggregate": pick([True, False]),
                    **({"max_nodes": 256} if rng.random() < 0.2 else {}),
                    # branch and bound may take exponential time: always anytime here
                    "time_limit": pick([0.0, 0.01, 2.0, 2.0]),
                },
            )
        )
        out.append(
            (
                "dp-states",
                {
                    "fixing": pick([True, False]),
                    "poison": True,
                    "strengthen": pick([0, 1, 64, 2**22]),
                    "device_records": pick([None, 0, 64]),
                    "aggregate": pick([True, False]),
                    "relaxation": pick([None, 0, 1, 5, 64]),
                    "relaxation_states": pick([0, 16, 2**16]),
                    "clusters": pick([True, False]),
                    "cluster_states": pick([0, 16, 2**24]),
                    "local_size": pick([None, 32, 64]),
                    "host_states": pick([0, 2, 4096]),
                    **({"max_states": pick([4, 64, 1024])} if rng.random() < 0.2 else {}),
                    "time_limit": pick([0.0, 0.01, 2.0, 2.0]),
                },
            )
        )
        out.append(
            (
                "mkp-bnb",
                {
                    "batch": pick([1, 16, 4096]),
                    "presolve": pick([True, False]),
                    "host_nodes": pick([0, 1, 4096]),
                    **({"max_nodes": pick([1, 64, 1024])} if rng.random() < 0.2 else {}),
                    "time_limit": pick([0.0, 0.01, 2.0, 2.0]),
                },
            )
        )
        out.append(
            (
                "mkp-dfs",
                {
                    "slots": pick([1, 64, 4096]),
                    "presolve": pick([True, False]),
                    "poison": True,
                    "host_nodes": pick([0, 1, 4096]),
                    "time_limit": pick([0.0, 0.01, 2.0, 2.0]),
                },
            )
        )
        out.append(
            (
                "mkp-batch",
                {
                    "budget": pick([1, 3, 16384]),
                    "split": pick([0, 2, 8]),
                    "presolve": pick([True, False]),
                    "poison": True,
                    "time_limit": pick([0.0, 0.01, 2.0, 2.0]),
                },
            )
        )
    if isinstance(problem, clsolve.Knapsack):  # refuses all but subset-sum problems (profits = weights, m = 1)
        out.append(("subset-sum", {"presolve": pick([True, False]), "poison": True}))
    if isinstance(problem, TSP):
        out.append(
            (
                "tsp-bnb",
                {
                    "batch": pick([None, 1, 4, 64]),
                    "iterations": pick([None, 1, 5, 30]),
                    "kicks": pick([None, 0, 3]),
                    "work_group": pick([None, 8, 32]),
                    "lp": pick([False, True]) and HIGHS,  # the root's subtour LP where HiGHS is installed
                    "time_limit": pick([0.0, 0.01, 2.0, 2.0]),
                },
            )
        )
    for _, options in out:
        if "time_limit" not in options and rng.random() < LIMITED_SHARE:  # the DP solvers' pacing, auto's choice
            options["time_limit"] = pick([0.0, 0.01, 0.1])
        options.setdefault("time_limit", CASE_SECONDS)  # no case may hang the campaign
    return out


def compare(problem, solution, expected: int | None, options: dict) -> str | None:
    """What is wrong with ``solution`` (None: nothing), given the reference value."""
    if expected is None:
        return None
    if isinstance(problem, clsolve.MultipleChoice) and expected == -1:
        return None if not solution.feasible else f"answers {solution.value}, reference: no choice fits"
    if isinstance(problem, clsolve.ChangeMaking):
        if expected == -1:
            return None if not solution.feasible else f"makes change {solution.value}, reference: none"
        return None if solution.feasible and solution.value == expected else f"{solution.value} coins, reference {expected}"
    if solution.optimal and solution.value != expected:
        return f"claims optimal {solution.value}, reference {expected}"
    if not solution.optimal:
        stopped = options.get("time_limit", CASE_SECONDS) < CASE_SECONDS or options.get("max_states")
        if not stopped and not isinstance(problem, clsolve.Knapsack):
            return "not optimal without a time limit"
        low, high = (solution.bound, solution.value) if isinstance(problem, TSP) else (solution.value, solution.bound)
        if (low is not None and low > expected) or (high is not None and high < expected):
            return f"value {solution.value} / bound {solution.bound} do not bracket the reference {expected}"
    return None


KNAPSACK_SOLVERS = (
    "dp-rows",
    "dp-batch",
    "mckp",
    "bnb",
    "dp-states",
    "mkp-bnb",
    "mkp-dfs",
    "mkp-batch",
    "subset-sum",
    "bounded-dp",
)
#: Whether HiGHS is installed (tsp-bnb's root LP).
HIGHS = importlib.util.find_spec("highspy") is not None
#: Solvers that answer under any time limit (their best checked answer and a proven bound).
ANYTIME = ("bnb", "dp-states", "mkp-bnb", "mkp-dfs", "mkp-batch", "choice-states", "multiple-bnb", "tsp-bnb")
REFUSALS = (clsolve.UnsupportedProblemError, clsolve.DoesNotFitError)


def run_case(seed: int, case: int, device, counts: Counter, failures: list, folder: Path, skip: frozenset = frozenset()) -> None:
    """One case: its problem, every solver's draw of options (``skip``: solvers not run, their draws
    still made, so that a case is the same whichever solvers run)."""
    rng = random.Random(f"{seed}:{case}")
    problem = draw(rng)
    expected = reference(problem)
    for solver, options in configurations(rng, problem):
        takes = isinstance(problem, (clsolve.Knapsack, clsolve.BoundedKnapsack))
        if solver in skip or (solver in KNAPSACK_SOLVERS and not takes):
            continue
        label = f"{solver} {options}"
        large = options.pop("large_table_steps", False)
        try:
            solution, late = _timed(problem, solver, device, options, large, counts, f"--seed {seed} --case {case}")
            problem_error = late or (compare(problem, solution, expected, options) if solution is not None else None)
            counts[solver] += 1
        except REFUSALS:
            counts[f"{solver} refused"] += 1
            continue
        except clsolve.TimeLimitError:
            if solver not in ANYTIME:
                counts[f"{solver} time limit"] += 1
                continue
            problem_error = traceback.format_exc(limit=3)
        except Exception:  # noqa: BLE001 - any other exception is what the fuzzer is for
            problem_error = traceback.format_exc(limit=6)
        if problem_error:
            _fail(seed, case, problem, label, problem_error, failures, folder)
    if isinstance(problem, clsolve.Knapsack) and rng.random() < 0.3 and not {"dp-batch", "auto"} <= skip:
        _batch(rng, seed, case, problem, device, counts, failures, folder)


def _timed(problem, solver: str, device, options: dict, large: bool, counts: Counter, case: str):
    """The solution, and what is wrong with its time. A solve under a drawn limit that ends past the
    limit and its margin is run once more without it (so its kernels are built and have run once:
    PoCL compiles each at its first launch, seconds that the promise counts as the build), then again
    under the limit: late again is a failure. A TimeLimitError that ends in time is raised as it is.
    A late first run is printed with its reproducer (``case``: its seed and case) and counted."""
    limit = options["time_limit"]
    promise = limit + Deadline(limit).margin
    for attempt in range(2):
        settle_left_work()  # what an earlier solve left running at its limit: waited for before a call's clock
        began, solution = time.perf_counter(), None
        try:
            with _large_table_steps(large):
                solution = clsolve.solve(problem, solver=solver, device=device, **options)
        except clsolve.TimeLimitError:
            if limit >= CASE_SECONDS or time.perf_counter() - began <= promise:
                raise
        seconds = time.perf_counter() - began
        if limit >= CASE_SECONDS or seconds <= promise:
            return solution, None
        if attempt == 0:
            counts[f"{solver} late once"] += 1
            print(
                f"late once: python ci/fuzz.py {case}  # {solver} {options}: {seconds:.3f} s for a limit of {limit:g} s",
                flush=True,
            )
            with contextlib.suppress(clsolve.ClsolveError), _large_table_steps(large):
                clsolve.solve(problem, solver=solver, device=device, **{**options, "time_limit": CASE_SECONDS})
    return solution, f"late twice: {seconds:.3f} s for a limit of {limit:g} s (margin {Deadline(limit).margin:g} s)"


@contextlib.contextmanager
def _large_table_steps(on: bool):
    """With ``on``, presolve's large-table steps (fixing by dominance or by reduced costs) and dp-rows'
    pruning for tables of every size, which the fuzzer's small problems would never reach."""
    from clsolve.dp import presolve
    from clsolve_plugins.dp_rows import pruned

    threshold, pruned_threshold = presolve.LARGE_TABLE_UPDATES, pruned.PRUNED_UPDATES
    if on:
        presolve.LARGE_TABLE_UPDATES, pruned.PRUNED_UPDATES = 0, {"gpu": 0, "other": 0}
    try:
        yield
    finally:
        presolve.LARGE_TABLE_UPDATES, pruned.PRUNED_UPDATES = threshold, pruned_threshold


def _batch(rng, seed, case, first, device, counts, failures, folder) -> None:
    """A mixed-m batch through solve_many (dp-batch and auto), as objects and as arrays. A member the
    solver refuses comes back in a BatchError holding every other answer: those are checked, and a
    member failing any other way is a failure."""
    problems = [first] + [knapsack(rng, rng.choice(KNAPSACK_FAMILIES)) for _ in range(rng.randint(1, 12))]
    problems = [p for p in problems if p.n <= BRUTE_ITEMS] or [first]
    expected = [reference(p) for p in problems]
    for solver in ("dp-batch", "auto"):
        arrays = rng.random() < 0.5
        label = f"solve_many({solver}, arrays={arrays})"
        try:
            result = clsolve.solve_many(problems, solver=solver, device=device, arrays=arrays)
            values: list[int | None] = [int(v) for v in result.values] if arrays else [s.value for s in result]
        except clsolve.BatchError as exc:
            other = {k: e for k, e in exc.failures.items() if not isinstance(e, REFUSALS)}
            if other:
                k = min(other)
                _fail(seed, case, problems[k], label, f"member {k}: {other[k]!r}", failures, folder)
                continue
            counts[f"{solver} batch members refused"] += len(exc.failures)
            values = [None if s is None else s.value for s in exc.solutions]
        except REFUSALS:
            counts[f"{solver} batch refused"] += 1
            continue
        except Exception:  # noqa: BLE001
            _fail(seed, case, first, f"solve_many({solver})", traceback.format_exc(limit=6), failures, folder)
            continue
        counts[f"{solver} batch members"] += sum(v is not None for v in values)
        wrong = [k for k, (v, e) in enumerate(zip(values, expected)) if v is not None and e is not None and v != e]
        if wrong:
            k = wrong[0]
            _fail(seed, case, problems[k], label, f"member {k}: {values[k]} != {expected[k]}", failures, folder)


def _fail(seed, case, problem, label, error, failures, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    saved = folder / f"fuzz-{seed}-{case}.json"
    saved.write_text(json.dumps(_as_json(problem)))
    line = f"FAIL python ci/fuzz.py --seed {seed} --case {case}  # {problem.describe()}; {label}; saved {saved}"
    print(line, "\n   ", str(error).strip().replace("\n", "\n    "), flush=True)
    failures.append({"seed": seed, "case": case, "solver": label, "error": str(error)[-2000:], "saved": str(saved)})


def _as_json(problem) -> dict:
    if isinstance(problem, clsolve.MultipleKnapsack):
        return {
            "kind": "multiple",
            "profits": problem.profits.tolist(),
            "weights": problem.weights.tolist(),
            "capacities": problem.capacities.tolist(),
            "name": problem.name,
        }
    if isinstance(problem, clsolve.MultipleChoice):
        return {
            "kind": "multiple-choice",
            "profits": problem.profits.tolist(),
            "weights": problem.weights.tolist(),
            "capacity": problem.capacity,
            "classes": problem.classes.tolist(),
            "at_most_one": problem.at_most_one,
            "name": problem.name,
        }
    if isinstance(problem, (clsolve.BoundedKnapsack, clsolve.ChangeMaking)):
        kind = (
            "change-making"
            if isinstance(problem, clsolve.ChangeMaking)
            else "bounded"
            if problem.counts is not None
            else "unbounded"
        )
        out = {"kind": kind, "weights": problem.weights.tolist(), "capacity": problem.capacity, "name": problem.name}
        if kind != "change-making":
            out["profits"] = problem.profits.tolist()
        if problem.counts is not None:
            out["counts"] = problem.counts.tolist()
        return out
    if isinstance(problem, TSP):
        return {"distances": problem.distances.tolist(), "name": problem.name}
    if isinstance(problem, LCS):
        return {"a": problem.a.tolist(), "b": problem.b.tolist(), "name": problem.name}
    return {
        "profits": problem.profits.tolist(),
        "weights": problem.weights.tolist(),
        "capacities": problem.capacities.tolist(),
        "name": problem.name,
        "weights_by": "item",
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=1.0, help="wall-clock budget")
    parser.add_argument(
        "--solves",
        type=int,
        default=None,
        help="stop once every solver has solved this many cases (--minutes still caps the run)",
    )
    parser.add_argument("--seed", type=int, default=None, help="default: a new one, printed")
    parser.add_argument("--case", type=int, default=None, help="run this one case of the seed only")
    parser.add_argument("--device", default=None)
    parser.add_argument("--jobs", type=int, default=1, help="fuzzers run at once (seeds seed, seed + 1, ..)")
    parser.add_argument("--json", default=None, help="write the counts here")
    parser.add_argument("--failures", default=".fuzz-failures", help="folder for failing instances")
    parser.add_argument(
        "--counted",
        default=None,
        help="an earlier run's --json, whose solves count towards --solves (CI's fresh seed after its fixed one)",
    )
    args = parser.parse_args(argv)
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "little") % 2**31
    summary = _parallel(args, seed) if args.jobs > 1 and args.case is None else _campaign(args, seed)
    print(json.dumps({k: v for k, v in summary.items() if k != "failed"}), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=1))
    return 1 if summary["failures"] else 0


def _campaign(args, seed: int) -> dict:
    """One fuzzer in this process: cases of ``seed`` until the budget is spent."""
    device = clsolve.get_device(args.device)
    print(f"fuzz: seed {seed} on {device.label} for {args.minutes} min", flush=True)
    counts: Counter = Counter()
    earlier = Counter(json.loads(Path(args.counted).read_text())["solves"]) if args.counted else Counter()
    failures: list = []
    cases = [args.case] if args.case is not None else itertools.count()
    began = time.monotonic()
    done = 0
    for case in cases:
        if args.case is None and (time.monotonic() - began > 60 * args.minutes or _enough(counts + earlier, args.solves)):
            break
        run_case(seed, case, device, counts, failures, Path(args.failures), _done(counts + earlier, args.solves))
        done += 1
    if args.counted:
        both = counts + earlier
        print("fuzz: with " + args.counted + ": " + ", ".join(f"{s} {both[s]}" for s in SOLVERS), flush=True)
    return {
        "seeds": [seed],
        "device": device.label,
        "date": datetime.date.today().isoformat(),
        "cases": done,
        "seconds": round(time.monotonic() - began, 1),
        "solves": dict(sorted(counts.items())),
        "failures": len(failures),
        "failed": failures,
    }


#: Every solver the fuzzer calls: ``--solves`` waits for each of them.
SOLVERS = ("sequential", "auto", "wavefront") + KNAPSACK_SOLVERS


def _enough(counts: Counter, solves: int | None) -> bool:
    """Whether every solver has solved ``solves`` cases (None: never)."""
    return solves is not None and all(counts[solver] >= solves for solver in SOLVERS)


def _done(counts: Counter, solves: int | None) -> frozenset:
    """The solvers that have solved ``solves`` cases: later cases leave them out (None: none)."""
    return frozenset() if solves is None else frozenset(s for s in SOLVERS if counts[s] >= solves)


def _parallel(args, seed: int) -> dict:
    """``args.jobs`` fuzzers in child processes, seeds seed .. seed + jobs - 1; their counts summed. They
    share the device: each plans within its part of the device's memory (CLSOLVE_DEVICE_MEMORY_SHARE,
    unless set), as processes sharing a device should."""
    env = dict(os.environ)
    env.setdefault("CLSOLVE_DEVICE_MEMORY_SHARE", str(0.9 / args.jobs))
    with tempfile.TemporaryDirectory() as folder:
        children = []
        for job in range(args.jobs):
            out = Path(folder) / f"{job}.json"
            command = [
                sys.executable,
                __file__,
                "--minutes",
                str(args.minutes),
                "--seed",
                str(seed + job),
                "--json",
                str(out),
                "--failures",
                args.failures,
            ]
            if args.solves is not None:
                command += ["--solves", str(-(-args.solves // args.jobs))]
            if args.device is not None:
                command += ["--device", args.device]
            children.append((subprocess.Popen(command, env=env), out))
        parts = []
        for child, out in children:
            child.wait()
            parts.append(
                json.loads(out.read_text())
                if out.exists()
                else {"seeds": [], "failures": 1, "failed": [{"error": f"a fuzzer exited {child.returncode}"}]}
            )
    counts: Counter = Counter()
    for part in parts:
        counts.update(part.get("solves", {}))
    return {
        "seeds": [s for part in parts for s in part["seeds"]],
        "device": parts[0].get("device"),
        "date": datetime.date.today().isoformat(),
        "jobs": args.jobs,
        "cases": sum(part.get("cases", 0) for part in parts),
        "seconds": max(part.get("seconds", 0) for part in parts),
        "solves": dict(sorted(counts.items())),
        "failures": sum(part["failures"] for part in parts),
        "failed": [f for part in parts for f in part["failed"]],
    }


if __name__ == "__main__":
    sys.exit(main())
