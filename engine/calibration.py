"""The calibration behind ``clsolve calibrate``: every installed solver timed on a fixed set of problems on one device, its
estimates fitted to the times (``clsolve.runtime.costs.fit``) and kept for that device; and the same
timing over any set of problems, with the solver ``auto`` picks, for ``clsolve bench auto``.

A solve is timed after one untimed solve of the same problem (which builds its kernels); its time is
the wall time of ``clsolve.solve`` less any kernel build it waited for, the best of up to three runs
for solves under ``REPEAT_BELOW`` seconds. A solver that does not prove a problem within ``cap``
seconds gives that problem no point."""

from __future__ import annotations

import datetime
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np

from . import generators
from .errors import ClsolveError
from .plugin import checked, registry
from .problems import LCS, TSP, Knapsack
from .runtime import costs as model
from .runtime.devices import Device

#: Solves faster than this are timed up to three times (the best counts).
REPEAT_BELOW = 0.2
#: The longest a calibration solve may take, seconds.
CAP_SECONDS = 5.0


def _multidimensional(n: int, m: int, top: int, share: float, seed: int) -> Knapsack:
    rng = np.random.default_rng(seed)
    weights = rng.integers(1, top + 1, (n, m))
    profits = weights.sum(axis=1) + rng.integers(0, top, n)
    return Knapsack(
        profits, weights, (share * weights.sum(axis=0)).astype(np.int64), weights_by="item", name=f"kp{m} n={n} seed={seed}"
    )


def _lcs(length: int, alphabet: int, seed: int) -> LCS:
    rng = np.random.default_rng(seed)
    return LCS(rng.integers(0, alphabet, length), rng.integers(0, alphabet, length), name=f"lcs {length}x{length} seed={seed}")


def _tsp(n: int, seed: int) -> TSP:
    points = np.random.default_rng(seed).integers(0, 1000, (n, 2))
    distances = np.rint(np.hypot(*(points[:, None, :] - points[None, :, :]).transpose(2, 0, 1))).astype(np.int64)
    return TSP(distances, name=f"tsp {n} seed={seed}")


def panel(seed: int = 0) -> list:
    """The calibration problems (``seed`` 0), or another draw of the same shapes (``clsolve bench auto``
    and the tests use seed 1): one-dimensional knapsacks of Pisinger's and Jooken's families, small
    and medium multidimensional ones, LCS and TSP."""
    return [
        generators.pisinger("uncorrelated", 100, 1000, seed=seed),
        generators.pisinger("weakly", 300, 10_000, seed=seed),
        generators.pisinger("strongly", 1000, 1000, seed=seed),
        generators.jooken(400, 10**6, 10, 0.1, 0, 100, seed=seed),
        _multidimensional(28, 2, 60, 0.4, seed),
        _multidimensional(100, 2, 30, 0.2, seed),
        _multidimensional(30, 5, 100, 0.25, seed),
        _lcs(500, 4, seed),
        _lcs(4000, 20, seed),
        _tsp(10, seed),
        _tsp(14, seed),
    ]


@dataclass
class Timed:
    """One solver's time on one problem: its raw estimate, its corrected one, the measured seconds (None
    where it did not prove the problem within the cap; ``reason`` says why) and its plan's features
    (``clsolve.runtime.costs.FEATURES``)."""

    solver: str
    problem: str
    estimate: float
    corrected: float
    seconds: float | None
    reason: str = ""
    features: tuple[float, ...] = ()
    measured: bool = False  # the plan's seconds were measured by planning: no point for the fit


@dataclass
class Case:
    """Every solver timed on one problem, and ``auto``'s pick."""

    problem: str
    timed: list[Timed] = field(default_factory=list)
    chosen: str = ""

    @property
    def best(self) -> Timed | None:
        done = [t for t in self.timed if t.seconds is not None]
        return min(done, key=lambda t: t.seconds or 0.0) if done else None

    @property
    def ratio(self) -> float | None:
        """The chosen solver's time over the best solver's (None where either is unknown)."""
        best = self.best
        mine = next((t for t in self.timed if t.solver == self.chosen and t.seconds is not None), None)
        if best is None or mine is None or mine.seconds is None or best.seconds is None:
            return None
        return mine.seconds / max(best.seconds, 1e-9)

    def to_dict(self) -> dict:
        return {
            "problem": self.problem,
            "chosen": self.chosen,
            "best": self.best.solver if self.best else None,
            "ratio": self.ratio,
            "solvers": [vars(t) for t in self.timed],
        }


def _seconds(solve: Callable[[], object], cap: float) -> float:
    from .solution import Solution

    best = None
    for _ in range(3):
        began = time.perf_counter()
        solution = solve()
        assert isinstance(solution, Solution)
        if not solution.optimal:
            raise TimeoutError(f"not proved within {cap:g} s")
        seconds = time.perf_counter() - began - solution.timings.build
        best = seconds if best is None else min(best, seconds)
        if best >= REPEAT_BELOW:
            break
    return float(best or 0.0)


def time_solver(name: str, problem, device: Device | None, cap: float = CAP_SECONDS) -> Timed | None:
    """``name`` timed on ``problem`` (None where it does not accept the problem)."""
    from .solving import solve

    solver = registry.load(name)
    if solver.accepts(problem) is not None:
        return None
    dev = device if checked.uses_device(solver) else None
    label = getattr(problem, "name", "") or problem.describe()
    try:
        plan = solver.plan(problem, dev)
    except ClsolveError as exc:
        return Timed(name, label, 0.0, 0.0, None, str(exc).split("\n")[0])
    timed = Timed(name, label, plan.seconds, model.corrected(name, dev, plan), None, "", model.features(plan), plan.measured)
    timed.reason = plan.refusal(dev) or ""
    if timed.reason:
        return timed
    run = lambda: solve(problem, solver=name, device=dev, time_limit=cap)  # noqa: E731
    try:
        run()  # builds its kernels
        timed.seconds = _seconds(run, cap)
    except (ClsolveError, TimeoutError) as exc:
        timed.reason = str(exc).split("\n")[0]
    return timed


def cases(
    problems: Iterable,
    device: Device | None,
    solvers: list[str] | None = None,
    cap: float = CAP_SECONDS,
    report: Callable[[Timed], None] | None = None,
) -> list[Case]:
    """Every solver (or those named) timed on every problem, with the solver ``auto`` picks."""
    from .solving import choose

    names = solvers or registry.names()
    out = []
    for problem in problems:
        case = Case(getattr(problem, "name", "") or problem.describe())
        for name in names:
            timed = time_solver(name, problem, device, cap)
            if timed is not None:
                case.timed.append(timed)
                if report is not None:
                    report(timed)
        case.chosen = choose(problem, device)[0].name
        out.append(case)
    return out


def quick(problems: list) -> list:
    """Five of the panel's eleven problems, one of each kind: the quick runs of ``clsolve bench auto``
    and the tests."""
    return [problems[i] for i in (0, 2, 4, 7, 9)]


def calibrate(
    device: Device | None,
    solvers: list[str] | None = None,
    cap: float = CAP_SECONDS,
    report: Callable[[Timed], None] | None = None,
    problems: list | None = None,
) -> dict[str, model.Correction]:
    """Time every solver on the calibration panel (or ``problems``) on ``device`` (and the host solvers
    on the host), fit each solver's correction and keep them for the device. Returns the corrections."""
    timed = [t for case in cases(problems or panel(0), device, solvers, cap, report) for t in case.timed]
    corrections = {}
    for name in sorted({t.solver for t in timed}):
        points = [(t.features, t.seconds) for t in timed if t.solver == name and t.seconds is not None and not t.measured]
        if points:
            corrections[name] = model.fit(points)
    on_device = {k: v for k, v in corrections.items() if checked.uses_device(registry.load(k))}
    on_host = {k: v for k, v in corrections.items() if k not in on_device}
    today = datetime.date.today().isoformat()
    if device is not None:
        model.save(device, on_device, today)
    if on_host:
        model.save(None, on_host, today)
    return corrections


def entry(device: Device | None) -> dict | None:
    """What is kept for ``device`` (the date and the corrections), or None where it is not calibrated."""
    return model.entry(device)
