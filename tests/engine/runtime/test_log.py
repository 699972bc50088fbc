"""A solve's log: a start line, progress lines with a valid incumbent and bound, builds apart, an end
line; from Python (``log=``) and the CLI (``--log``)."""

import time

import numpy as np

import clsolve
from clsolve.cli import main
from clsolve.generators import jooken
from clsolve.runtime import log


def _records(problem, **options) -> list:
    records: list = []
    with log.logging(records.append, every=0.0):  # a line at every report
        clsolve.solve(problem, **options)
    return records


def test_a_search_logs_its_incumbent_and_bound_between_start_and_end(device):
    problem = jooken(400, 10**6, 4, 0.1, 0.01, 40, seed=3)
    optimum = clsolve.solve(problem, solver="dp-rows", device=device).value
    records = _records(problem, solver="bnb", device=device, host_threshold=0, presolve=False)
    assert records[0].event == "start" and "bnb" in records[0].solver and problem.describe() in records[0].text
    assert records[-1].event == "end" and str(optimum) in records[-1].text
    progress = [r for r in records if r.event == "progress" and r.value is not None]
    assert progress, [str(r) for r in records]
    for record in progress:
        assert record.value <= optimum <= record.bound and record.gap is not None and record.gap >= 0
        assert str(record.value) in str(record)
    assert all(r.elapsed >= 0 for r in records)


def test_a_solve_with_presolve_logs_in_the_original_values(device):
    """Fixing takes items before the search: the log adds their profit to what the search reports."""
    problem = jooken(300, 10**6, 4, 0.1, 0.01, 40, seed=5)
    optimum = clsolve.solve(problem, solver="dp-rows", device=device).value
    records = _records(problem, solver="bnb", device=device, host_threshold=0)
    for record in (r for r in records if r.event == "progress" and r.value is not None):
        assert record.value <= optimum <= record.bound


def test_the_log_keeps_its_rhythm_while_the_solver_reports_nothing():
    """A long launch or transfer: no report from the solver, and still a progress line every period
    between the start and the end lines, none after the end."""
    records: list = []
    with log.logging(records.append, every=0.05):
        log.start("sleeper", "a solve that reports nothing")
        log.found(5, 9)
        time.sleep(0.4)
        log.event("end", "5 (best found)")
        time.sleep(0.2)
    events = [r.event for r in records]
    assert events[0] == "start" and events[-1] == "end"
    beats = [r for r in records if r.event == "progress"]
    assert len(beats) >= 4 and all(r.value == 5 and r.bound == 9 for r in beats)
    gaps = np.diff([r.elapsed for r in records])
    assert gaps.max() < 0.05 + 0.1, gaps


def test_no_log_is_kept_without_a_listener(device):
    assert log.current() is None
    clsolve.solve(clsolve.Knapsack([3, 4], [2, 3], 4), solver="sequential")  # nothing to hear it: no error


def test_the_python_callback_and_the_cli(device, tmp_path, capsys):
    lines: list = []
    problem = clsolve.Knapsack(np.arange(1, 30), np.arange(1, 30), 100)
    clsolve.solve(problem, solver="dp-rows", device=device, log=lines.append)
    assert [r.event for r in lines][0] == "start" and lines[-1].event == "end" and "(optimal)" in str(lines[-1])
    code = main(["solve", "--example", "knapPI_1_100_1000_1", "--solver", "dp-rows", "--log"])
    err = capsys.readouterr().err
    assert code == 0 and "dp-rows     start: " in err and "end: 9147 (optimal)" in err
    main(["solve", "--example", "knapPI_1_100_1000_1", "--solver", "dp-rows", "--log", "--quiet"])
    assert "start: " not in capsys.readouterr().err
