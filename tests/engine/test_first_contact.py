"""The command line as a new user meets it: folders of folders, files beside instances, standard
input, listing and selecting instances, batches where some problems fail, progress, and answers
written to be read (compact items, readable plans, the file's units, TSPLIB city numbers)."""

from __future__ import annotations

import io
import json

import pytest

import clsolve
from clsolve.cli import main
from clsolve.cli import progress as bar_module

KNAPSACK = {"profits": [10, 40, 30, 50], "weights": [5, 4, 6, 3], "capacities": 10}


def run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _write(path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def test_folders_are_walked_and_other_files_skipped_with_a_reason(tmp_path, capsys):
    _write(tmp_path / "top.json", {**KNAPSACK, "name": "top"})
    _write(tmp_path / "deeper" / "still" / "low.json", {**KNAPSACK, "name": "low"})
    (tmp_path / "SOURCE.md").write_text("# Where these come from\n\nA citation.\n")
    (tmp_path / ".hidden.json").write_text("not read")
    code, out, err = run(["solve", str(tmp_path), "--solver", "sequential"], capsys)
    assert code == 0 and "top: KP1" in out and "low: KP1" in out
    assert "skipped, not an instance: " in err and "SOURCE.md" in err and ".hidden" not in err
    code, out, err = run(["solve", str(tmp_path), "--solver", "sequential", "--quiet"], capsys)
    assert code == 0 and err == ""


def test_an_invalid_instance_in_a_folder_is_an_error_even_quiet(tmp_path, capsys):
    _write(tmp_path / "good.json", {**KNAPSACK, "name": "good"})
    _write(tmp_path / "bad.json", {"profits": [1, -2], "weights": [1, 1], "capacities": 1})
    _write(tmp_path / "results.json", {"benchmark": "not a problem"})
    (tmp_path / "worse.kp").write_text("2 10\n-1 2\n3 4\n")
    for quiet in ([], ["--quiet"]):
        code, out, err = run(["solve", str(tmp_path), "--list", *quiet], capsys)
        assert code == 2 and out == "" and "2 invalid instance files" in err
        assert "bad.json: problem.profits[1]: -2 is negative" in err and "worse.kp:2" in err
        assert ("skipped, not an instance: " in err and "results.json" in err) is not bool(quiet)
    (tmp_path / "worse.kp").unlink()
    code, _, err = run(["solve", str(tmp_path), "--list"], capsys)
    assert code == 2 and "error: " in err and "bad.json" in err and "invalid instance files" not in err


def test_a_folder_without_instances_is_an_error(tmp_path, capsys):
    (tmp_path / "README.md").write_text("nothing here\n")
    code, _, err = run(["solve", str(tmp_path)], capsys)
    assert code == 2 and "no instance files in this folder or below (1 other files)" in err


def test_list_and_select_by_name_index_or_position(tmp_path, capsys):
    path = tmp_path / "three.json"
    _write(path, {"problems": [{**KNAPSACK, "name": f"k{i}", "capacities": 10 + i} for i in range(3)]})
    code, out, _ = run(["solve", str(path), "--list"], capsys)
    assert code == 0 and [line.split()[:2] for line in out.splitlines()] == [["0", "k0"], ["1", "k1"], ["2", "k2"]]
    for wanted in ("k1", "1", "#2"):
        code, out, _ = run(["solve", str(path), "--instance", wanted, "--solver", "sequential"], capsys)
        assert code == 0 and "k1: KP1" in out and "k0" not in out
    code, _, err = run(["solve", str(path), "--instance", "k9"], capsys)
    assert code == 2 and "no instance named k9; the instances are k0, k1, k2" in err


def test_one_name_and_index_everywhere(tmp_path, capsys):
    """Unnamed problems are FILE#position in text, JSON and errors; indices count the run from 0, in
    --list, --json, errors and --instance alike, also after a selection."""
    _write(tmp_path / "a.json", {"problems": [KNAPSACK, {"a": "ACGTTGCA", "b": "AGTTCA"}]})
    _write(tmp_path / "b.json", {"problems": [KNAPSACK, KNAPSACK]})
    code, out, _ = run(["solve", str(tmp_path), "--list"], capsys)
    assert [line.split()[:2] for line in out.splitlines()] == [
        ["0", "a.json#1"],
        ["1", "a.json#2"],
        ["2", "b.json#1"],
        ["3", "b.json#2"],
    ]
    code, out, err = run(["solve", str(tmp_path), "--instance", "1", "--instance", "3", "--solver", "dp-rows", "--json"], capsys)
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 3 and [(line["index"], line["name"]) for line in lines] == [(1, "a.json#2"), (3, "b.json#2")]
    assert "error" in lines[0] and "value" in lines[1]
    assert "error: problem 1 (a.json#2)" in err
    code, out, _ = run(["solve", str(tmp_path), "--instance", "#2", "--list"], capsys)
    assert [line.split()[:2] for line in out.splitlines()] == [["1", "a.json#2"], ["3", "b.json#2"]]


def test_standard_input(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps({**KNAPSACK, "name": "piped"})))
    code, out, _ = run(["solve", "-", "--solver", "sequential", "--json"], capsys)
    assert code == 0 and json.loads(out)["value"] == 90 and json.loads(out)["origin"] == "<stdin>"


def test_a_batch_keeps_its_answers_and_reports_every_failure(tmp_path, capsys):
    _write(tmp_path / "a.json", {**KNAPSACK, "name": "fine"})
    # four dimensions (no dense DP) and profits summing past 2^62 (nor mkp-bnb, mkp-dfs): no solver takes them
    four = {"profits": [2**61, 2**61, 7], "weights": [[2, 1, 3, 1], [1, 2, 1, 3], [3, 3, 1, 1]], "capacities": [4, 4, 4, 4]}
    _write(tmp_path / "b.json", {"problems": [{**four, "name": f"four{i}"} for i in range(3)]})
    code, out, err = run(["solve", str(tmp_path / "a.json"), str(tmp_path / "b.json"), "--json"], capsys)
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 3 and lines[0]["name"] == "fine" and lines[0]["value"] == 90
    assert [(line["index"], line["exit_code"]) for line in lines[1:]] == [(1, 3), (2, 3), (3, 3)]
    assert all(f"error: problem {k} (four{k - 1}): " in err for k in (1, 2, 3)) and "3 of 4 problems failed" in err


def test_a_refusal_after_presolve_names_both_dimension_counts():
    # dimension 3 never binds (its weights sum to 2, below its capacity): presolve drops it
    weights = [[2, 1, 3, 1, 1], [1, 2, 1, 3, 0], [3, 3, 1, 1, 1], [1, 1, 2, 0, 1], [2, 2, 2, 2, 0], [1, 0, 2, 1, 1]]
    problem = clsolve.Knapsack([5, 6, 7, 8, 9, 4], weights, [4, 4, 4, 4, 9])
    with pytest.raises(clsolve.UnsupportedProblemError, match="this problem has m = 5, 4 of them binding after presolve"):
        clsolve.plan(problem, solver="dp-rows")
    with pytest.raises(clsolve.UnsupportedProblemError, match=r"this problem has m = 5 \("):
        clsolve.plan(clsolve.Knapsack(problem.profits, weights, [4, 4, 4, 4, 2]), solver="dp-rows")


def test_items_are_summarised_unless_asked_for(tmp_path, capsys):
    path = tmp_path / "many.json"
    _write(path, {"profits": [1] * 60, "weights": [1] * 60, "capacities": 50, "name": "many"})
    code, out, _ = run(["solve", str(path), "--solver", "sequential"], capsys)
    assert code == 0 and "items    50 of 60 packed: " in out and "(--items lists all 50)" in out
    code, out, _ = run(["solve", str(path), "--solver", "sequential", "--items"], capsys)
    listed = next(line for line in out.splitlines() if line.startswith("  items"))
    assert len(listed.split(": ", 1)[1].split()) == 50


def test_a_plan_reads_in_human_units_and_as_json(capsys):
    code, out, _ = run(["solve", "--example", "a33", "--solver", "dp-rows", "--plan"], capsys)
    assert code == 0 and "  device   " in out and "MiB in 5 buffer(s): row_a 20.45 MiB" in out
    # reduced costs fix 76 of the 134 items: 58 in pairs, the states kept first, the trace-back
    assert "3.11e+08 cell updates, 31 launches" in out and "reduced costs fixed" in out and "{" not in out
    assert "pruning True" in out
    code, out, _ = run(["solve", "--example", "a33", "--solver", "dp-rows", "--plan", "--json"], capsys)
    assert code == 0 and json.loads(out)["device_buffers"]["row_a"] == 2100 * 2550 * 4 + 4 * (2100 + 2550 + 1)


def test_scaled_answers_in_the_file_units(tmp_path, capsys):
    path = tmp_path / "decimals.json"
    _write(path, {"profits": [1.5, 2.25, 0.125], "weights": [1, 1, 1], "capacities": 2, "name": "decimals"})
    code, out, _ = run(["solve", str(path), "--scale", "1000", "--solver", "sequential"], capsys)
    assert code == 0 and "value    3750 (optimal)" in out and "= 3.75 in the file's units (scale 1000)" in out
    code, out, _ = run(["solve", str(path), "--scale", "1e3", "--solver", "sequential", "--json"], capsys)
    assert json.loads(out)["value_in_file_units"] == "3.75"


def test_tsp_tours_are_numbered_from_one(capsys):
    code, out, _ = run(["solve", "--example", "gr17"], capsys)
    tour = next(line for line in out.splitlines() if line.startswith("  tour")).split()[1:]
    assert code == 0 and tour[0] == tour[-1] == "1" and sorted(map(int, tour[:-1])) == list(range(1, 18))
    code, out, _ = run(["solve", "--example", "gr17", "--json"], capsys)
    assert sorted(json.loads(out)["tour"]) == list(range(17))  # the API's tour stays 0-based


def test_progress_on_stderr_when_asked(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(bar_module, "DELAY", 0.0)
    monkeypatch.setattr(bar_module, "REDRAW", 0.0)
    path = tmp_path / "rows.json"
    _write(path, {"profits": list(range(1, 41)), "weights": list(range(3, 43)), "capacities": 300, "name": "rows"})
    code, _, err = run(["solve", str(path), "--solver", "dp-rows", "-o", "presolve=false", "--progress"], capsys)
    assert code == 0 and "dp-rows rows [" in err and "/s" in err
    code, _, err = run(["solve", str(path), "--solver", "dp-rows", "-o", "presolve=false"], capsys)
    assert code == 0 and err == ""  # stderr is not a terminal here: quiet unless --progress


def test_the_bar_estimates_time_left():
    stream = io.StringIO()
    bar = bar_module.Bar(stream, in_place=False)
    bar.start -= 10  # past the delay
    bar.report("problems", 1, 4)
    text = stream.getvalue()
    assert "problems [######" in text and "1/4 25%" in text and "left)" in text


def test_devices_and_solvers_are_records():
    devices = clsolve.devices()
    assert devices and all(isinstance(d, clsolve.DeviceInfo) for d in devices)
    assert json.loads(json.dumps([d.to_dict() for d in devices]))[0]["device"] == devices[0].name
    assert clsolve.get_device(devices[0].spec).name == devices[0].name
    solvers = {s.name: s for s in clsolve.solvers()}
    assert solvers["dp-batch"].batches and not solvers["sequential"].uses_device
    assert "store" in solvers["dp-rows"].options and json.dumps([s.to_dict() for s in solvers.values()])
