"""Benchmark figures: every committed result draws, from the command line, without running anything."""

from __future__ import annotations

from pathlib import Path

import pytest

from clsolve.cli import main

RESULTS = Path(__file__).resolve().parents[2] / "ci" / "results"
FIGURES = {
    "msb": "bench-msb-h100",
    "class-a": "bench-class-a-h100",
    "dp-rows": "bench-dp-rows-h100",
    "bnb": "bench-bnb-h100",
    "mckp": "bench-mckp-h100",
    "wavefront": "bench-wavefront-h100",
    "scale": "bench-scale-h200x2",
    "hard-kp": "bench-hard-kp-h100",
    "kpm": "bench-kpm-h100",
    "small-rows": "bench-small-rows-h100",
    "tsp": "bench-tsp-h200",
}
#: Results of other modes of a benchmark (``bench mckp --searches``).
MODES = [("mckp", "bench-mckp-searches-cpu"), ("wavefront", "bench-wavefront-kp-h100"), ("tsp", "bench-tsp-large-h200")]


@pytest.mark.parametrize(("name", "result"), sorted(FIGURES.items()) + MODES)
def test_a_stored_result_draws(name, result, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    stored = RESULTS / f"{result}.json"
    if not stored.is_file():
        pytest.skip("ci/results not beside the tests")
    out = tmp_path / f"{name}.svg"
    assert main(["bench", name, "--from", str(stored), "--plot", str(out)]) == 0
    text = out.read_text()
    assert text.startswith("<?xml") and "<svg" in text and len(text) > 10_000


def test_from_needs_a_figure_and_a_readable_file(tmp_path, capsys):
    assert main(["bench", "msb", "--from", str(tmp_path / "none.json")]) == 2
    assert "give --plot" in capsys.readouterr().err
    assert main(["bench", "msb", "--from", str(tmp_path / "none.json"), "--plot", str(tmp_path / "x.svg")]) == 2
    assert "No such file" in capsys.readouterr().err
    (tmp_path / "bad.json").write_text("{not json")
    assert main(["bench", "msb", "--from", str(tmp_path / "bad.json"), "--plot", str(tmp_path / "x.svg")]) == 2
    assert "not a benchmark result" in capsys.readouterr().err
