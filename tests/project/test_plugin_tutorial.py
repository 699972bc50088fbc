"""docs/plugins.md: its files are the example package's files, and that package installs and runs by name."""

import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "example-plugin"
BLOCK = re.compile(r'```\w+ title="([^"]+)"\n(.*?)```\n', re.DOTALL)


def test_the_tutorial_shows_the_example_files_unchanged():
    blocks = dict(BLOCK.findall((ROOT / "docs" / "plugins.md").read_text()))
    assert set(blocks) == {"clsolve_subsets/subsets.cl", "clsolve_subsets/__init__.py", "pyproject.toml", "test_subsets.py"}
    for name, text in blocks.items():
        assert text == (EXAMPLE / name).read_text(), name


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    target = tmp_path_factory.mktemp("site")
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
            str(EXAMPLE),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(target), os.environ.get("PYTHONPATH", "")])}


def test_the_installed_example_solves_by_name(installed, tmp_path):
    listing = subprocess.run(
        [sys.executable, "-m", "clsolve.cli", "solvers"], env=installed, capture_output=True, text=True, check=True
    ).stdout
    assert "subsets" in listing
    small = tmp_path / "small.json"
    small.write_text(json.dumps({"profits": [10, 40, 30, 50], "weights": [5, 4, 6, 3], "capacities": [10]}))
    result = subprocess.run(
        [sys.executable, "-m", "clsolve.cli", "solve", str(small), "--solver", "subsets", "--json"],
        env=installed,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert answer["solver"] == "subsets" and answer["value"] == 90 and answer["optimal"]
    refused = subprocess.run(
        [sys.executable, "-m", "clsolve.cli", "solve", "--example", "knapPI_1_100_1000_1", "--solver", "subsets"],
        env=installed,
        capture_output=True,
        text=True,
    )
    assert refused.returncode != 0 and "n = 100 > 24" in refused.stderr


def test_the_example_passes_its_own_tests(installed):
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(EXAMPLE / "test_subsets.py")],
        env=installed,
        capture_output=True,
        text=True,
        cwd=EXAMPLE,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 passed" in result.stdout
