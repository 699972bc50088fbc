"""Loading OpenCL programs from the ``opencl/`` folder, cached per (device, source, options)."""
from __future__ import annotations

import hashlib
import re
from functools import lru_cache
from importlib import resources

import pyopencl as cl

from .devices import Device
from .errors import KernelBuildError

_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"\s*$', re.MULTILINE)
_programs: dict[tuple, cl.Program] = {}


@lru_cache(maxsize=None)
def source(filename: str) -> str:
    """The text of ``opencl/<filename>`` with its local ``#include "..."`` lines expanded."""
    folder = resources.files("clsolve.opencl")
    text = (folder / filename).read_text()

    def expand(match: re.Match) -> str:
        return f'#line 1 "{match.group(1)}"\n' + source(match.group(1)) + f'\n#line 1 "{filename}"\n'

    return _INCLUDE.sub(lambda m: expand(m), text)


def options(defines: dict[str, object]) -> list[str]:
    return [f"-D{key}={value}" for key, value in sorted(defines.items())]


def program(device: Device, filename: str, defines: dict[str, object] | None = None) -> cl.Program:
    """Build (or fetch from this process's cache) ``opencl/<filename>`` for ``device``.

    ``defines`` become ``-D`` options (sizes and types). A build failure raises KernelBuildError with
    the device, the options and the compiler log.
    """
    text = source(filename)
    opts = options(defines or {})
    key = (device.cl_device.int_ptr, hashlib.sha256(text.encode()).hexdigest(), tuple(opts))
    built = _programs.get(key)
    if built is None:
        try:
            built = cl.Program(device.context, text).build(options=opts)
        except cl.Error as exc:
            raise KernelBuildError(
                f"building opencl/{filename} failed on {device.label}\n"
                f"options: {' '.join(opts) or '(none)'}\n"
                f"compiler log:\n{exc}") from None
        _programs[key] = built
    return built
