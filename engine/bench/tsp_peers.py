"""The TSP peers ``clsolve bench tsp`` times beside clsolve: the Dantzig-Fulkerson-Johnson model with
subtour elimination constraints added as they are violated, in SCIP (``pyscipopt``: a constraint
handler that cuts every subtour of an integer solution, lazily) and in HiGHS (``highspy``: the MIP
solved again with the cuts of its answer's subtours until that answer is one tour). Both take the
symmetric model (an edge variable per pair, degree 2) for a symmetric problem and the directed one
(an arc variable per ordered pair, in- and out-degree 1) otherwise. Each returns seconds (model building
included), value and whether it proved it, and runs in ``peers.timed``'s child process."""

from __future__ import annotations

import os
import time
from typing import Any

import numpy as np


def _pairs(problem: Any) -> tuple[list[tuple[int, int]], np.ndarray, bool]:
    d, n = problem.distances, problem.n
    symmetric = bool((d == d.T).all())
    pairs = [(i, j) for i in range(n) for j in range(n) if (i < j if symmetric else i != j)]
    return pairs, np.array([d[i, j] for i, j in pairs], dtype=np.float64), symmetric


def _subtours(n: int, pairs: list[tuple[int, int]], chosen: np.ndarray) -> list[list[int]]:
    """The cycles of the chosen edges (one, the tour, where the answer is feasible)."""
    neighbours: list[list[int]] = [[] for _ in range(n)]
    for k in np.flatnonzero(chosen > 0.5).tolist():
        i, j = pairs[k]
        neighbours[i].append(j)
        neighbours[j].append(i)
    seen, out = [False] * n, []
    for start in range(n):
        if seen[start]:
            continue
        stack, part = [start], []
        seen[start] = True
        while stack:
            v = stack.pop()
            part.append(v)
            for w in neighbours[v]:
                if not seen[w]:
                    seen[w] = True
                    stack.append(w)
        out.append(part)
    return out


def _inside(pairs: list[tuple[int, int]], subset: list[int]) -> list[int]:
    members = set(subset)
    return [k for k, (i, j) in enumerate(pairs) if i in members and j in members]


def scip(problem: Any, limit: float) -> dict:
    from pyscipopt import SCIP_RESULT, Conshdlr, Model, quicksum

    start = time.perf_counter()
    n = problem.n
    pairs, cost, symmetric = _pairs(problem)
    model = Model()
    model.hideOutput()
    x = [model.addVar(vtype="B", obj=float(c)) for c in cost]
    for v in range(n):
        if symmetric:
            model.addCons(quicksum(x[k] for k, (i, j) in enumerate(pairs) if v in (i, j)) == 2)
        else:
            model.addCons(quicksum(x[k] for k, (i, _) in enumerate(pairs) if i == v) == 1)
            model.addCons(quicksum(x[k] for k, (_, j) in enumerate(pairs) if j == v) == 1)

    class Subtours(Conshdlr):
        def _parts(self, solution=None) -> list[list[int]]:
            values = np.array([self.model.getSolVal(solution, var) for var in x])
            return _subtours(n, pairs, values)

        def conscheck(self, constraints, solution, *args):
            return {"result": SCIP_RESULT.FEASIBLE if len(self._parts(solution)) == 1 else SCIP_RESULT.INFEASIBLE}

        def consenfolp(self, constraints, nusefulconss, solinfeasible):
            parts = self._parts()
            if len(parts) == 1:
                return {"result": SCIP_RESULT.FEASIBLE}
            for part in parts:
                self.model.addCons(quicksum(x[k] for k in _inside(pairs, part)) <= len(part) - 1, removable=False)
            return {"result": SCIP_RESULT.CONSADDED}

        def conslock(self, *args):
            pass

    model.includeConshdlr(Subtours(), "subtours", "DFJ subtour elimination", enfopriority=-1, chckpriority=-1, needscons=False)
    model.setBoolParam("misc/allowstrongdualreds", False)
    model.setBoolParam("misc/allowweakdualreds", False)
    model.setRealParam("limits/time", max(limit, 0.01))
    model.optimize()
    proved = model.getStatus() == "optimal"
    out: dict = {"seconds": time.perf_counter() - start, "proved": proved}
    if model.getNSols() > 0:
        out.update(value=int(round(model.getObjVal())), bound=int(np.ceil(model.getDualbound() - 1e-6)))
    return out


def highs(problem: Any, limit: float) -> dict:
    import highspy

    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)  # its banner, in this child process only: stdout is the JSON's
    start = time.perf_counter()
    n = problem.n
    pairs, cost, symmetric = _pairs(problem)
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    count = len(pairs)
    h.addVars(count, np.zeros(count), np.ones(count))
    every = np.arange(count, dtype=np.int32)
    h.changeColsCost(count, every, cost)
    h.changeColsIntegrality(count, every, np.array([highspy.HighsVarType.kInteger] * count))
    for v in range(n):
        rows = (
            [[k for k, p in enumerate(pairs) if v in p]]
            if symmetric
            else [
                [k for k, (i, _) in enumerate(pairs) if i == v],
                [k for k, (_, j) in enumerate(pairs) if j == v],
            ]
        )
        for row in rows:
            degree = 2.0 if symmetric else 1.0
            h.addRow(degree, degree, len(row), np.array(row, dtype=np.int32), np.ones(len(row)))
    while True:
        left = limit - (time.perf_counter() - start)
        if left <= 0:
            return {"seconds": time.perf_counter() - start, "proved": False}
        h.setOptionValue("time_limit", left)
        h.run()
        if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            return {"seconds": time.perf_counter() - start, "proved": False}
        parts = _subtours(n, pairs, np.asarray(h.getSolution().col_value))
        if len(parts) == 1:
            value = int(round(h.getInfo().objective_function_value))
            return {"seconds": time.perf_counter() - start, "proved": True, "value": value}
        for part in parts:
            inside = _inside(pairs, part)
            h.addRow(-highspy.kHighsInf, len(part) - 1.0, len(inside), np.array(inside, dtype=np.int32), np.ones(len(inside)))
