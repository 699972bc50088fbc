"""Every code block of the README and docs/ runs as written, and the README's first command works in
a bare clone with nothing beside it.

A ``python`` block runs as a script of its own (so that one spawning worker processes has its
``__main__``); a ``bash`` block runs with the installed ``clsolve`` on PATH, in a scratch folder
that sees the repository's ``ci/``. A
block below a ``<!-- not run in CI ...: why -->`` comment (a GPU, a Dask cluster of GPU hosts, the
benchmarks' data, CI's own command) is not run; each ``clsolve`` command in it must still parse. A
block with a ``title=`` is a file of the plugin tutorial, which ``test_plugin_tutorial`` checks.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from clsolve.cli import parser

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"(<!-- not run in CI[^>]*-->\n)?```(python|bash)( title=\"[^\"]*\")?\n(.*?)```", re.S)
BIN = str(Path(sys.executable).parent)


def _blocks() -> list:
    found = []
    for page in PAGES:
        if not page.is_file():
            continue
        for number, match in enumerate(BLOCK.finditer(page.read_text()), start=1):
            skipped, language, title, code = match.groups()
            if not title:
                found.append(pytest.param(language, code, bool(skipped), id=f"{page.name}-{number}-{language}"))
    return found


def _commands(code: str) -> list[list[str]]:
    """The clsolve command lines of a shell block (continuations joined, comments dropped)."""
    lines = code.replace("\\\n", " ").splitlines()
    out = []
    for line in lines:
        for part in re.split(r"&&|\|", line):
            words = shlex.split(part, comments=True)
            while words and re.match(r"[A-Za-z_][A-Za-z0-9_]*=", words[0]):  # VAR=value prefixes
                words.pop(0)
            redirect = next((k for k, w in enumerate(words) if w.startswith((">", "<", "2>"))), len(words))
            if words and words[0] == "clsolve":
                out.append(words[1:redirect])
    return out


@pytest.mark.parametrize("language, code, skipped", _blocks())
def test_block_runs_as_written(language, code, skipped, device, tmp_path):
    env = {**os.environ, "CLSOLVE_DEVICE": f"#{device.index}", "PATH": BIN + os.pathsep + os.environ["PATH"]}
    if skipped:
        for argv in _commands(code):
            parser().parse_args(argv)  # SystemExit (exit 2) on an option that does not exist
        return
    if language == "python":
        script = tmp_path / "block.py"
        script.write_text(code)
        command = [sys.executable, str(script)]
    else:
        command = ["bash", "-e", "-o", "pipefail", "-c", code]
        (tmp_path / "ci").symlink_to(ROOT / "ci")  # the blocks name ci/results/... as from the repository
    result = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, f"{code}\n--- stdout\n{result.stdout[-3000:]}\n--- stderr\n{result.stderr[-3000:]}"


def test_every_page_has_its_blocks_found():
    assert len(_blocks()) >= 15  # a fence the pattern misses would silently go untested


@pytest.mark.slow
def test_the_first_command_in_a_bare_clone(tmp_path):
    """The README's first command, exactly as written, in a fresh clone with nothing beside it (no
    ../shared, no data folder): it installs from the package index and solves a bundled instance."""
    if os.environ.get("CLSOLVE_OFFLINE") == "1":
        pytest.skip("CLSOLVE_OFFLINE=1: no package index to install from")
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        pytest.skip("not a git checkout")
    clone = tmp_path / "bare" / "clsolve"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True, timeout=120)
    first = re.search(r"```bash\n(.*?)```", (clone / "README.md").read_text(), re.S).group(1)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLSOLVE_DATA", "VIRTUAL_ENV", "PYTHON"))}
    result = subprocess.run(["bash", "-e", "-c", first], cwd=clone, env=env, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    assert "a33: KP2 with n = 134" in result.stdout and "value    3050317 (optimal)" in result.stdout
    assert not (tmp_path / "bare" / "shared").exists()


def test_the_plugin_guide_lists_every_field_of_plan_timings_and_solution():
    import dataclasses

    from clsolve.sdk import Plan, Solution, Timings

    page = (ROOT / "docs" / "plugins.md").read_text()
    for cls in (Plan, Timings, Solution):
        section = page.split(f"`{cls.__name__}` (", 1)[1].split("\n\n", 2)[1]  # the table after its heading line
        missing = [f.name for f in dataclasses.fields(cls) if f"`{f.name}`" not in section]
        assert not missing, f"{cls.__name__}: {missing}"
