import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import clsolve
from clsolve.cli import main

HERE = Path(__file__).resolve().parents[1]  # tests/


def run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def instance(tmp_path):
    path = tmp_path / "small"
    path.write_text("4 10\n10 5\n40 4\n30 6\n50 3\n")
    return path


def test_solve_text_and_json(instance, capsys, device):
    spec = os.environ.get("CLSOLVE_DEVICE", "auto")
    code, out, _ = run(["solve", str(instance), "--solver", "dp-rows", "--device", spec], capsys)
    assert code == 0 and "value    90 (optimal)" in out and "items    2 of 4 packed: 1 3" in out
    code, out, _ = run(["solve", str(instance), "--solver", "sequential", "--json"], capsys)
    result = json.loads(out)
    assert code == 0 and result["value"] == 90 and result["items"] == [1, 3] and result["used"] == [7]
    assert set(result["timings"]) >= {"upload", "kernels", "download", "host", "total"}


def test_plan_option_and_instance_filter(tmp_path, capsys):
    path = tmp_path / "a.txt"
    path.write_text("x1;1;30;20;5,4\nx2;2;30;20;17,11;16,10\n")
    code, out, _ = run(["solve", str(path), "--instance", "x2", "--solver", "dp-rows", "--plan", "--json"], capsys)
    plan = json.loads(out)
    assert code == 0 and plan["name"] == "x2" and plan["cell_updates"] == 2 * 21 * 31
    code, out, _ = run(["solve", str(path), "--solver", "dp-rows", "-o", "value_bits=64", "--json"], capsys)
    assert code == 0 and [json.loads(line)["value"] for line in out.splitlines()] == [20, 187]


@pytest.mark.parametrize(
    "argv, code, words",
    [
        (["solve", "MISSING", "--solver", "sequential"], 2, "No such file"),
        (["solve", "{instance}", "--solver", "nope"], 2, "installed solvers"),
        (["solve", "{instance}", "--device", "no-such-device"], 2, "no OpenCL device matches"),
        (["solve", "{instance}", "--solver", "dp-rows", "-o", "colour=1"], 2, "does not take"),
        (["solve", "{instance}", "--instance", "zz"], 2, "no instance named zz"),
    ],
)
def test_errors_exit_codes(argv, code, words, instance, capsys):
    argv = [a.replace("{instance}", str(instance)) for a in argv]
    got, out, err = run(argv, capsys)
    assert got == code and words in err and out == ""


def test_too_large_exits_3_before_any_output(tmp_path, capsys):
    path = tmp_path / "big.json"
    path.write_text(
        json.dumps(
            {
                "problems": [
                    {"profits": [1], "weights": [1], "capacities": 1},
                    {"profits": [1] * 50000, "weights": [10**5 + i for i in range(50000)], "capacities": 4_000_000_000},
                ]
            }
        )
    )
    code, out, err = run(["solve", str(path), "--solver", "dp-rows"], capsys)
    assert code == 3 and "error: problem 1 " in err and "needs" in err and "1 of 2 problems failed" in err
    assert "value    1 (optimal)" in out and "n = 50000" not in out  # refused before solving, the other solved


def test_solvers_and_devices_listings(capsys):
    code, out, _ = run(["solvers", "--json"], capsys)
    names = {s["name"] for s in json.loads(out)}
    assert code == 0 and {"sequential", "dp-rows"} <= names
    code, out, _ = run(["devices", "--json"], capsys)
    listing = json.loads(out)
    assert code == 0 and listing and {"global_memory_bytes", "compute_units", "local_memory_bytes"} <= set(listing[0])
    code, out, _ = run(["devices"], capsys)
    assert code == 0 and "compute units" in out


def test_help_and_console_script():
    result = subprocess.run([sys.executable, "-m", "clsolve.cli", "--help"], capture_output=True, text=True)
    assert result.returncode == 0 and "solve" in result.stdout
    result = subprocess.run([sys.executable, "-m", "clsolve.cli"], capture_output=True, text=True)
    assert result.returncode == 2


def test_bench_quick_writes_json(tmp_path, capsys):
    out = tmp_path / "bench.json"
    code, _, err = run(["bench", "dp-rows", "--quick", "--repeats", "1", "--out", str(out)], capsys)
    result = json.loads(out.read_text())
    assert code == 0 and result["device"]["device"] and result["copy_bandwidth_bytes_per_second"] > 0
    case = result["cases"][0]
    # the plan's count: the states from each row's reachable floor on, at most every item x state
    assert 0.9 * case["n"] * case["states"] < case["cell_updates"] <= case["n"] * case["states"]
    assert case["ratio_to_floor"] > 0


def test_solver_from_another_distribution_is_found_by_name(tmp_path):
    """Install a tiny plugin package with pip (no index, no network) and use it by name."""
    target = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "--target",
            str(target),
            str(HERE / "third_party_solver"),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(target), os.environ.get("PYTHONPATH", "")])}
    listing = subprocess.run(
        [sys.executable, "-m", "clsolve.cli", "solvers"], env=env, capture_output=True, text=True, check=True
    ).stdout
    assert "exhaustive" in listing
    problem = tmp_path / "p.json"
    problem.write_text(
        json.dumps({"profits": [10, 40, 30, 50], "weights": [[5, 1], [4, 1], [6, 1], [3, 1]], "capacities": [10, 2]})
    )
    result = subprocess.run(
        [sys.executable, "-m", "clsolve.cli", "solve", str(problem), "--solver", "exhaustive", "--json"],
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert answer["solver"] == "exhaustive" and answer["value"] == 90 and answer["device"] == "host CPU"
    assert "exhaustive" not in {s.name for s in clsolve.solvers()}  # not installed in this process


def test_python_m_clsolve_is_the_command_line():
    result = subprocess.run([sys.executable, "-m", "clsolve", "solvers"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "dp-rows" in result.stdout and "sequential" in result.stdout


def test_problem_kinds_and_formats_from_the_top_level():
    assert clsolve.LCS("abc", "abd").m == 3 and clsolve.TSP([[0, 1], [1, 0]]).n == 2
    assert callable(clsolve.formats.read)


def test_bench_without_its_data_is_a_usage_error(tmp_path, capsys):
    code = main(["bench", "msb", "--data", str(tmp_path)])
    assert code == 2 and "MSB-630 folder not found" in capsys.readouterr().err


@pytest.mark.parametrize(
    "flag, message",
    [("--kinds", "--kinds: knapsack not among bounded, unbounded"), ("--peers", "--peers: knapsack not among mt, cpsat")],
)
def test_bench_family_names_a_wrong_kind_or_peer(flag, message, capsys):
    code = main(["bench", "family", "--quick", flag, "knapsack", "--device", "cpu"])
    assert code == 2 and message in capsys.readouterr().err


def test_bench_family_peers_without_a_code_give_no_row():
    """The MT codes have no multiple-choice solver, MTC2 takes unlimited coins only and MTM at most 10
    knapsacks: those rows have no MT entry, and no child process is started for them."""
    from clsolve.bench import peers
    from clsolve.family.generators import change, choice, multiple

    assert peers.timed("mt", "multiple-choice", choice("uncorrelated", 3, 3, 100, seed=1), 1.0) is None
    assert peers.timed("mt", "change", change(5, 100, 3, seed=1), 1.0) is None
    assert peers.timed("mt", "multiple", multiple("uncorrelated", 30, 11, 100, seed=1), 1.0) is None
    assert not peers._mt_refuses("multiple", multiple("uncorrelated", 30, 10, 100, seed=1))


def test_bench_family_with_solver_none_runs_the_peers_alone(tmp_path, monkeypatch):
    """``--solver none``: no clsolve solver runs; each row holds what the peers answered, and the
    summary counts the peers' proofs."""
    import json

    from clsolve.bench import family

    monkeypatch.setattr(family, "_warm", lambda device: None)
    monkeypatch.setattr(family.peers, "available", lambda name: name == "cpsat")
    monkeypatch.setattr(family.peers, "timed", lambda name, kind, problem, limit: {"seconds": 0.5, "proved": True, "value": 7})
    out = tmp_path / "peers.json"
    assert (
        main(["bench", "family", "--quick", "--kinds", "change", "--solver", "none", "--peers", "cpsat", "--out", str(out)]) == 0
    )
    found = json.loads(out.read_text())
    assert found["rows"] and all(row["solvers"] == {} and row["cpsat"]["proved"] for row in found["rows"])
    assert found["summary"]["change"]["cpsat"]["proved"] == len(found["rows"])


def test_bench_family_times_each_solver_from_a_cold_problem():
    """A solver timed after another on the same instance gets none of its cached work (the binary
    split, presolve, a probe): a new object, equal data."""
    from clsolve.bench.family import cold
    from clsolve.family.generators import bounded

    problem = bounded("uncorrelated", 50, 100, 5, seed=1)
    clsolve.solve(problem, solver="dp-states")
    assert problem.memo  # the binary split, and with it the split problem's presolve
    fresh = cold(problem)
    assert fresh is not problem and not fresh.memo and "_derived" not in vars(fresh)
    assert (fresh.weights == problem.weights).all() and fresh.capacity == problem.capacity
    assert clsolve.solve(fresh, solver="dp-states").value == clsolve.solve(problem, solver="dp-states").value


def test_solvers_listing_lines_up(capsys):
    assert main(["solvers"]) == 0
    table, legend = capsys.readouterr().out.split("\n\n", 1)  # the rows, then what "anytime" means
    lines = table.splitlines()
    anytime = sum(info.anytime for info in clsolve.solvers())
    assert "anytime" in legend and anytime >= 5 and sum("anytime" in line for line in lines) == anytime
    starts = {len(line) - len(line[line.index("  ") :].lstrip()) for line in lines}  # where the kinds column starts
    assert len(starts) == 1


def _hard_file(tmp_path) -> Path:
    """A strongly correlated knapsack of 3,000 items and a capacity of about 7.6e8: past a dense DP's
    time on a CPU, a search answers it with a proven bound under a short limit."""
    weights = np.random.default_rng(1).integers(1, 10**6, 3000)
    path = tmp_path / "hard.json"
    path.write_text(
        json.dumps({"profits": (weights + 100).tolist(), "weights": weights.tolist(), "capacities": int(weights.sum()) // 2})
    )
    return path


def test_a_batch_under_a_time_limit_prints_every_answer(tmp_path, capsys):
    hard = _hard_file(tmp_path)
    run(["solve", "--example", "gr17", "--example", "knapPI_1_100_1000_1"], capsys)  # kernels built beforehand
    argv = ["solve", "--example", "gr17", "--example", "knapPI_1_100_1000_1", str(hard), "--time-limit", "1", "--json"]
    code, out, err = run(argv, capsys)
    lines = [json.loads(line) for line in out.splitlines()]
    assert [line["name"] for line in lines[:2]] == ["gr17", "knapPI_1_100_1000_1"]
    assert lines[0]["value"] == 2085 and lines[0]["optimal"] and lines[1]["optimal"]
    assert len(lines) == 3
    if "error" in lines[2]:  # the hard one: its own error, or an answer with its bound
        assert code == 4 and lines[2]["kind"] == "TimeLimitError" and "1 of 3 problems failed" in err
    else:
        assert code == 0 and lines[2]["value"] <= lines[2].get("bound", lines[2]["value"])


def test_a_time_limit_of_0_answers_from_an_anytime_solver_as_python_does(tmp_path, capsys):
    code, out, err = run(["solve", str(_hard_file(tmp_path)), "--solver", "dp-states", "--time-limit", "0"], capsys)
    assert code == 0 and "solver   dp-states" in out and ("best found" in out or "optimal" in out)


def test_format_and_scale_with_only_examples_are_refused(capsys):
    for extra in (["--format", "tsplib"], ["--scale", "10"]):
        code, out, err = run(["solve", "--example", "gr17", *extra], capsys)
        assert code == 2 and out == "" and "apply to files only" in err


def test_no_device_says_how_to_get_one(monkeypatch, capsys):
    from clsolve import api

    monkeypatch.setattr(api, "devices", lambda: [])
    code, _, err = run(["devices"], capsys)
    assert code == 1 and "pip install 'clsolve[pocl]'" in err
