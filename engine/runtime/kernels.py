"""Loading OpenCL programs from the ``opencl/`` folder, cached per (device, source, options)."""
from __future__ import annotations

import concurrent.futures
import hashlib
import re
import threading
from functools import cache
from importlib import resources

import pyopencl as cl

from ..errors import KernelBuildError
from . import deadline
from .devices import Device

_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]+"([^"]+)"[ \t]*$', re.MULTILINE)
_programs: dict[tuple, cl.Program] = {}
#: Builds under a time limit run here (see ``program``).
_builds = concurrent.futures.ThreadPoolExecutor(max_workers=2, thread_name_prefix="clsolve-build")
_building: dict[tuple, concurrent.futures.Future] = {}
_lock = threading.Lock()


@cache
def source(filename: str) -> str:
    """The text of ``opencl/<filename>`` with its local ``#include "..."`` lines expanded."""
    folder = resources.files("clsolve.opencl")
    text = (folder / filename).read_text()

    def expand(match: re.Match) -> str:
        # the directive is followed by the rest of the #include line (its newline), then the next line
        after = text.count("\n", 0, match.end()) + 1
        return f'#line 1 "{match.group(1)}"\n' + source(match.group(1)) + f'\n#line {after} "{filename}"\n'

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
        limit = deadline.current()
        if not limit.limited:
            built = _build(device, filename, text, opts)
        else:
            # a build cannot be interrupted: under a time limit it runs beside the caller, who stops
            # waiting when the limit passes (the build still finishes and is kept for the next call)
            with _lock:
                future = _building.get(key)
                if future is None:
                    future = _building[key] = _builds.submit(_build, device, filename, text, opts)
                    future.add_done_callback(lambda done: _keep(key, done))
            try:
                built = future.result(timeout=max(0.0, limit.remaining()))
            except concurrent.futures.TimeoutError:
                limit.check(f"building opencl/{filename} for {device.label}")
                built = future.result()  # pragma: no cover - the limit passed just after the wait
        _programs[key] = built
    return built


def forget(device: Device) -> None:
    """Drop the programs built for ``device`` (its context is being replaced)."""
    with _lock:
        for key in [k for k in _programs if k[0] == device.cl_device.int_ptr]:
            del _programs[key]


def _keep(key: tuple, future: concurrent.futures.Future) -> None:
    with _lock:
        _building.pop(key, None)
        if future.exception() is None:
            _programs[key] = future.result()


def _build(device: Device, filename: str, text: str, opts: list[str]) -> cl.Program:
    try:
        return cl.Program(device.context, text).build(options=opts)
    except cl.Error as exc:
        raise KernelBuildError(
            f"building opencl/{filename} failed on {device.label}\n"
            f"options: {' '.join(opts) or '(none)'}\n"
            f"compiler log:\n{exc}") from None
