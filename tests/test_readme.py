"""The README's Python examples run as written."""
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"


def test_python_examples_run(device, monkeypatch):
    if not README.is_file():
        pytest.skip("README.md not beside the tests")
    monkeypatch.setenv("CLSOLVE_DEVICE", device.name)
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    assert blocks
    for block in blocks:
        exec(compile(block, str(README), "exec"), {})
