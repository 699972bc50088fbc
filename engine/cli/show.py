"""How the command line writes answers and plans: a few readable lines per problem, or one JSON
object each.

Long answers are summarised unless ``--items`` asks for all of them: a knapsack's chosen items, an
LCS's common subsequence and positions, a long tour. TSP tours are written with cities numbered from
1 as TSPLIB numbers them (JSON keeps the API's 0-based ``tour``). Problems read with ``--scale``
report values in the file's own units beside the exact scaled integers.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ..family.problems import BoundedKnapsack, ChangeMaking, MultipleChoice, MultipleKnapsack
from ..plan import Plan
from ..problems import LCS, TSP, Knapsack
from ..runtime.memory import format_bytes
from ..solution import Solution
from .sources import Source

#: Answers up to this many entries are printed whole; longer ones summarised (``--items``: whole).
SHORT = 20


def in_file_units(value: int, scale: Fraction) -> str:
    """``value`` divided by ``scale``, exactly, as a decimal where it terminates."""
    quotient = Fraction(value) / scale
    if quotient.denominator == 1:
        return str(quotient.numerator)
    text = f"{float(quotient):.12g}"
    return text if Fraction(text) == quotient else f"{text} (about)"


def heading(source: Source) -> str:
    """The problem in a line, led by its name (or its place in its file when it has none)."""
    described = source.problem.describe()
    return described if getattr(source.problem, "name", "") else f"{source.name}: {described}"


def _value_line(solution: Solution, source: Source) -> str:
    if not solution.feasible:
        target = getattr(source.problem, "capacity", "")
        if isinstance(source.problem, MultipleChoice):
            return f"  value    none: the lightest item of every class together weighs more than {target}"
        return f"  value    none: no choice of coins sums to {target} (proved)"
    tail = " (optimal)" if solution.optimal else ""
    if solution.bound is not None and not solution.optimal:
        side = "at least" if isinstance(source.problem, TSP) else "at most"
        tail = f" (best found; the optimum is {side} {solution.bound}, gap {solution.gap})"
    line = f"  value    {solution.value}{tail}"
    if source.scale != 1:
        line += f"\n           = {in_file_units(solution.value, source.scale)} in the file's units (scale {source.scale})"
    return line


def _listed(values: list, everything: bool) -> str:
    if everything or len(values) <= SHORT:
        return " ".join(map(str, values))
    return " ".join(map(str, values[:12])) + f" ... {' '.join(map(str, values[-3:]))} (--items lists all {len(values)})"


def answer_lines(source: Source, solution: Solution, everything: bool) -> list[str]:
    """The answer in words: items (knapsack), the subsequence (LCS) or the tour (TSP)."""
    problem = source.problem
    if isinstance(problem, LCS) and solution.positions is not None:
        sub = problem.subsequence(solution.positions)
        shown = sub if isinstance(sub, str) else " ".join(map(str, sub.tolist()))
        if not everything and len(shown) > 80:
            shown = shown[:60] + f"... (--items shows all {len(solution.positions)})"
        lines = [f"  length   {len(solution.positions)} of {problem.m} x {problem.n}", f"  common   {shown}"]
        if everything:
            lines += [
                f"  in a     {' '.join(str(int(i)) for i in solution.positions[:, 0])}",
                f"  in b     {' '.join(str(int(j)) for j in solution.positions[:, 1])}",
            ]
        return lines
    if isinstance(problem, TSP) and solution.tour is not None:
        cities = [int(c) + 1 for c in solution.tour] + [int(solution.tour[0]) + 1]
        return [f"  tour     {_listed(cities, everything)}", "           (cities numbered from 1, as in TSPLIB)"]
    if isinstance(problem, (BoundedKnapsack, ChangeMaking)):
        return _count_lines(problem, solution, everything)
    if isinstance(problem, MultipleKnapsack) and solution.assignment is not None:
        placed = [f"{int(j)}>{int(solution.assignment[j])}" for j in np.flatnonzero(solution.assignment >= 0)]
        loads = solution.to_dict(problem)["used"]
        return [
            f"  packed   {len(placed)} of {problem.n} items (item>knapsack): {_listed(placed, everything) or '(none)'}",
            f"  used     {' '.join(map(str, loads))} of {' '.join(map(str, problem.capacities.tolist()))}",
        ]
    if isinstance(problem, MultipleChoice):
        if not solution.feasible:
            return []
        chosen = [f"{int(problem.classes[i])}:{int(i)}" for i in solution.items]
        return [
            f"  chosen   {len(chosen)} of {problem.k} classes (class:item): {_listed(chosen, everything) or '(none)'}",
            f"  used     {solution.to_dict(problem)['used']} of {problem.capacity}",
        ]
    if not isinstance(problem, Knapsack):  # an LCS or TSP answer without its decision: the check refuses those
        return []
    items = [int(i) for i in solution.items]
    used = solution.to_dict(problem)["used"]
    return [
        f"  items    {len(items)} of {problem.n} packed: {_listed(items, everything) or '(none)'}",
        f"  used     {' x '.join(map(str, used))} of {' x '.join(map(str, problem.capacities.tolist()))}",
    ]


def solution_lines(source: Source, solution: Solution, everything: bool, batch: int) -> list[str]:
    """Every line of one answer; ``batch`` > 1 when it was solved in one call with that many others."""
    problem = source.problem
    lines = [heading(source), _value_line(solution, source)]
    lines += answer_lines(source, solution, everything)
    lines.append(f"  solver   {solution.solver} on {solution.device}")
    t = solution.timings
    if batch > 1:
        lines.append(f"  time     solved in one batch of {batch} (the batch's time is on its own line)")
    else:
        lines.append(
            f"  time     {_seconds(t.total)} (upload {_seconds(t.upload)}, kernels {_seconds(t.kernels)}, "
            f"download {_seconds(t.download)}, host {_seconds(t.host)}"
            + (f", kernel builds {_seconds(t.build)})" if t.build else ")")
        )
    lines += [f"  note     {note}" for note in solution.notes]
    if problem.known_optimum is not None:
        verdict = "matches" if problem.known_optimum == solution.value else "differs"
        known = f"  known    optimum {problem.known_optimum} ({verdict})"
        if source.scale != 1:
            known += f" = {in_file_units(problem.known_optimum, source.scale)} in the file's units"
        lines.append(known)
    return lines


def solution_json(source: Source, solution: Solution, index: int) -> dict:
    out = {"index": index, **solution.to_dict(source.problem), "name": source.name, "origin": source.origin}
    if source.scale != 1:
        out["scale"] = str(source.scale)
        out["value_in_file_units"] = in_file_units(solution.value, source.scale)
    return out


def _seconds(value: float) -> str:
    if value >= 1:
        return f"{value:.3f} s"
    if value >= 1e-3:
        return f"{value * 1e3:.3f} ms"
    return f"{value * 1e6:.1f} us"


def plan_lines(source: Source, plan: Plan) -> list[str]:
    """A plan in words: where its memory goes, how much work, the solver's estimate."""
    lines = [heading(source), f"  solver   {plan.solver}"]
    for where, buffers in (("device", plan.device_buffers), ("host", plan.host_buffers)):
        if buffers:
            parts = ", ".join(f"{name} {_size(size)}" for name, size in buffers.items())
            lines.append(f"  {where:<8} {_size(sum(buffers.values()))} in {len(buffers)} buffer(s): {parts}")
    lines.append(
        f"  work     {plan.cell_updates:.3g} cell updates, {plan.launches} launches, "
        f"about {_seconds(plan.seconds)} by "
        + ("the device's calibration (`clsolve calibrate`)" if "estimate" in plan.details else "the solver's estimate")
    )
    if plan.details:
        lines.append("  details  " + ", ".join(f"{key} {value}" for key, value in plan.details.items()))
    return lines


def _size(count: int) -> str:
    return format_bytes(count).split(" (")[0]


def batch_line(count: int, solutions: list[Solution]) -> str:
    total = sum(s.timings.total for s in solutions)
    first = solutions[0]
    return f"batch: {count} problems solved in one call by {first.solver} on {first.device} in {_seconds(total)}"


def _count_lines(problem: BoundedKnapsack | ChangeMaking, solution: Solution, everything: bool) -> list[str]:
    """A bounded knapsack's or change-making's answer: each item (coin value) used, with its count."""
    if solution.counts is None:
        return []
    used = [f"{int(j)}x{int(solution.counts[j])}" for j in solution.items]
    what = "coins" if isinstance(problem, ChangeMaking) else "copies"
    total = int(solution.counts.sum())
    return [
        f"  counts   {total} {what} of {len(used)} of {problem.n} items (item x count): {_listed(used, everything) or '(none)'}",
        f"  used     {solution.to_dict(problem)['used']} of {problem.capacity}",
    ]
