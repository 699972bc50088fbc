"""The code is as ``ruff format`` writes it and passes ruff and mypy with the configuration in pyproject.toml
(all in the ``test`` extra)."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(importlib.util.find_spec("ruff") is None, reason="ruff is not installed")
@pytest.mark.skipif(not (ROOT / "pyproject.toml").is_file(), reason="not run from a checkout")
def test_ruff_passes():
    run = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "."], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]


@pytest.mark.skipif(importlib.util.find_spec("ruff") is None, reason="ruff is not installed")
@pytest.mark.skipif(not (ROOT / "pyproject.toml").is_file(), reason="not run from a checkout")
def test_the_code_is_formatted():
    """``ruff format`` (line length 130, pyproject.toml) leaves every file as it is."""
    run = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", "--no-cache", "."],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]


@pytest.mark.skipif(importlib.util.find_spec("mypy") is None, reason="mypy is not installed")
@pytest.mark.skipif(not (ROOT / "pyproject.toml").is_file(), reason="not run from a checkout")
def test_mypy_passes(tmp_path):
    """mypy with the configuration in pyproject.toml, on the packages as they install (engine/ is clsolve)."""
    shutil.copytree(ROOT / "engine", tmp_path / "clsolve", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "plugins", tmp_path / "clsolve_plugins", ignore=shutil.ignore_patterns("__pycache__"))
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--no-incremental",
            "-p",
            "clsolve",
            "-p",
            "clsolve_plugins",
        ],
        cwd=tmp_path,
        env={**os.environ, "MYPYPATH": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
