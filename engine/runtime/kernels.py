"""OpenCL programs: where a kernel's source lives, building it (cached per device, text and options),
and kernels whose arguments are set by the names the source gives them.

A plugin names its own source with :class:`KernelSource`: a file shipped in any installed package
(``KernelSource.resource("my_solver", "greedy.cl")``) or one on disk (``KernelSource.path(...)``).
``#include "x.h"`` lines are expanded from the source's own folder first, then from the folders it
lists in ``include``, then from clsolve's own kernels (``clsolve.opencl``), with ``#line`` markers so
that compiler messages name the right file and line.

Every solver's kernels sit beside its Python (``plugins/<solver>/*.cl``, package data); clsolve's own
folder keeps the headers several solvers share and the engine's own kernels. Structs shared with the
host are declared from NumPy dtypes (:func:`struct_declaration`: the dtype's natural layout, which
OpenCL C gives its fields; the tests compare each declaration with ``pyopencl.tools.
match_dtype_to_c_struct`` on the device) and given to :func:`program` as a ``preamble``, so host and
kernel cannot drift apart.
"""

# long module: kernel sources, their builds and cache, and kernels bound by name are one concept

from __future__ import annotations

import concurrent.futures
import hashlib
import re
import sys
import threading
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pyopencl as cl
import pyopencl.tools

from ..errors import KernelBuildError
from ..solution import building
from . import deadline, log
from .devices import Device

#: clsolve's own kernels and headers, searched last for includes.
BUILTIN_PACKAGE = "clsolve.opencl"

_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]+"([^"]+)"[ \t]*$', re.MULTILINE)
_KERNEL = re.compile(r"__kernel\b[^;{]*?\b(\w+)\s*\(([^)]*)\)\s*\{", re.DOTALL)
_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.DOTALL)
_programs: dict[tuple, Program] = {}
_declarations: dict[tuple, str] = {}
#: Builds under a time limit run here (see ``program``).
_builds = concurrent.futures.ThreadPoolExecutor(max_workers=2, thread_name_prefix="clsolve-build")
_building: dict[tuple, concurrent.futures.Future] = {}
_lock = threading.Lock()


@dataclass(frozen=True)
class KernelSource:
    """An OpenCL C file: ``filename`` in ``package`` (a package resource) or in ``folder`` (a path),
    and more places (package names or folder paths) searched for its ``#include "..."`` files."""

    filename: str
    package: str | None = None
    folder: str | None = None
    include: tuple[str, ...] = ()

    @classmethod
    def resource(cls, package: str, filename: str, include: Sequence[str] = ()) -> KernelSource:
        """``filename`` shipped as package data of ``package`` (``[tool.setuptools.package-data]``)."""
        return cls(filename, package=package, include=tuple(include))

    @classmethod
    def path(cls, path: str | Path, include: Sequence[str | Path] = ()) -> KernelSource:
        """A file on disk."""
        path = Path(path)
        return cls(path.name, folder=str(path.parent.resolve()), include=tuple(str(p) for p in include))

    @property
    def label(self) -> str:
        """How messages name the file: ``package/filename`` or its path."""
        return f"{self.package}/{self.filename}" if self.package else str(Path(self.folder or ".") / self.filename)

    def text(self) -> str:
        """The source with its local ``#include "..."`` lines expanded."""
        return _expanded(self)

    def _places(self) -> list[str]:
        own = [self.package] if self.package else [self.folder or "."]
        return own + list(self.include) + [BUILTIN_PACKAGE]


def builtin(filename: str) -> KernelSource:
    """One of clsolve's own kernel files (``opencl/`` in the repository: the shared headers and the
    engine's own kernels)."""
    return KernelSource.resource(BUILTIN_PACKAGE, filename)


def _read(place: str, filename: str) -> str | None:
    if "/" in place or place == "." or Path(place).is_dir():
        file = Path(place) / filename
        return file.read_text() if file.is_file() else None
    try:
        resource = resources.files(place) / filename
    except ModuleNotFoundError:
        return None
    return resource.read_text() if resource.is_file() else None


@cache
def _expanded(source: KernelSource) -> str:
    text = _read(source._places()[0], source.filename)
    if text is None:
        raise KernelBuildError(f"kernel source {source.label} not found")
    return _expand(text, source.filename, source._places())


def _expand(text: str, filename: str, places: list[str]) -> str:
    def one(match: re.Match) -> str:
        name = match.group(1)
        found = next((t for t in (_read(p, name) for p in places) if t is not None), None)
        if found is None:
            raise KernelBuildError(f'{filename}: #include "{name}" not found in {", ".join(places)}')
        # the directive is followed by the rest of the #include line (its newline), then the next line
        after = text.count("\n", 0, match.end()) + 1
        return f'#line 1 "{name}"\n' + _expand(found, name, places) + f'\n#line {after} "{filename}"\n'

    return _INCLUDE.sub(one, text)


#: OpenCL C scalar types and the NumPy type a value of each is passed as.
SCALAR_TYPES: dict[str, type[np.generic]] = {
    "char": np.int8,
    "uchar": np.uint8,
    "short": np.int16,
    "ushort": np.uint16,
    "int": np.int32,
    "uint": np.uint32,
    "long": np.int64,
    "ulong": np.uint64,
    "float": np.float32,
    "double": np.float64,
}
_QUALIFIERS = {"const", "__private", "private", "restrict", "volatile"}


def parameters(text: str) -> dict[str, tuple[str, ...]]:
    """Each kernel's parameter names, in order, as the source declares them."""
    return {kernel: tuple(name for name, _ in declared) for kernel, declared in _declarations_of(text).items()}


def scalar_types(text: str) -> dict[str, dict[str, np.dtype]]:
    """Each kernel's scalar parameters of a type in :data:`SCALAR_TYPES`, with the NumPy type a value is
    passed as (a parameter of a type the preprocessor defines, such as ``value_t``, is left out)."""
    out: dict[str, dict[str, np.dtype]] = {}
    for kernel, declared in _declarations_of(text).items():
        out[kernel] = {
            name: np.dtype(SCALAR_TYPES[words[0]]) for name, words in declared if len(words) == 1 and words[0] in SCALAR_TYPES
        }
    return out


def _declarations_of(text: str) -> dict[str, list[tuple[str, list[str]]]]:
    """Each kernel's parameters: (name, the words of its type without qualifiers; a pointer's
    includes ``*``)."""
    out = {}
    for match in _KERNEL.finditer(_COMMENT.sub(" ", text)):
        declared = []
        for part in match.group(2).split(","):
            words = re.findall(r"\w+|\*", part.split("[")[0])
            if words:
                declared.append((words[-1], [w for w in words[:-1] if w not in _QUALIFIERS]))
        out[match.group(1)] = declared
    return out


#: The values each integer scalar type holds, (least, most).
_RANGES: dict[type, tuple[int, int]] = {
    t: (int(np.iinfo(t).min), int(np.iinfo(t).max))  # type: ignore[type-var]  # the stub takes integer types only; the filter below keeps those
    for t in SCALAR_TYPES.values()
    if np.dtype(t).kind in "iu"
}


def _typed(kernel: Kernel, name: str, value: Any, scalar: Any) -> np.generic:
    """``value`` as the C type ``kernel`` declares for ``name`` (``scalar``: its NumPy type); a value
    that type cannot hold exactly is an error naming both."""
    limits = _RANGES.get(scalar)
    number = isinstance(value, (int, np.integer)) and not isinstance(value, bool)
    if limits is None and (number or isinstance(value, (float, np.floating))):
        return scalar(value)
    if limits is not None and number and limits[0] <= int(value) <= limits[1]:
        return scalar(int(value))
    c_type = next(c for c, t in SCALAR_TYPES.items() if t is scalar)
    raise TypeError(f"kernel {kernel.name} ({kernel.label}): parameter {name} is a {c_type}, which cannot hold {value!r}")


#: pyopencl's setter of an argument from its bytes (what its generated invokers call), where present.
_SET_BYTES = getattr(cl.Kernel, "_set_arg_buf", None)


@dataclass(frozen=True)
class Signature:
    """A kernel's parameters as its source declares them: their names in order, each name's index, and
    the NumPy type of each scalar of a type in :data:`SCALAR_TYPES`. Made once per program and kernel."""

    names: tuple[str, ...]
    index: dict[str, int]
    scalars: dict[str, type]

    @classmethod
    def of(cls, names: tuple[str, ...], types: Mapping[str, np.dtype]) -> Signature:
        return cls(names, {n: i for i, n in enumerate(names)}, {key: dtype.type for key, dtype in types.items()})


class Kernel:
    """One kernel whose arguments are set by name (``kernel.set(rows=..., item=np.uint32(3))``) and
    kept between launches; launching with an argument never set is an error naming it. The kernel
    holds a reference to each argument it was given, so a buffer made inline in the call lives as
    long as the kernel may still read it."""

    def __init__(self, cl_kernel: cl.Kernel, name: str, signature: Signature, label: str):
        self.name, self.names, self.label = name, signature.names, label
        #: Where each launch is counted under the kernel's name (a workspace's ``launches``), if anywhere.
        self.launches: dict[str, int] | None = None
        self.cl_kernel = cl_kernel
        self._index, self._scalars = signature.index, signature.scalars
        self._unset = set(signature.names)
        self._held: dict[str, object] = {}

    def set(self, **arguments) -> Kernel:
        for name, value in arguments.items():
            index = self._index.get(name)
            if index is None:
                raise TypeError(
                    f"kernel {self.name} ({self.label}) has no parameter {name!r}; its parameters: {', '.join(self.names)}"
                )
            scalar = self._scalars.get(name)
            if scalar is not None and type(value) is not scalar:
                value = _typed(self, name, value, scalar)
            if isinstance(value, np.generic) and _SET_BYTES is not None:
                # a scalar's bytes, as pyopencl's own invoker passes them: set_arg takes about 9 us
                # for a NumPy scalar (0.1 us for a buffer), which a launch per item would pay each time
                _SET_BYTES(self.cl_kernel, index, value.tobytes())
            else:
                self.cl_kernel.set_arg(index, value)
            self._held[name] = value
            self._unset.discard(name)
        return self

    def enqueue(
        self,
        queue: cl.CommandQueue,
        global_size: tuple[int, ...],
        local_size: tuple[int, ...] | None,
        wait_for: Sequence[cl.Event] | None = None,
    ) -> cl.Event:
        if self._unset:
            raise TypeError(f"kernel {self.name} ({self.label}) launched before {', '.join(sorted(self._unset))} set")
        if self.launches is not None:
            self.launches[self.name] = self.launches.get(self.name, 0) + 1
        return cl.enqueue_nd_range_kernel(queue, self.cl_kernel, global_size, local_size, wait_for=wait_for)


class Program:
    """A built program and the parameter names of its kernels. OpenCL kernel objects are made once and
    reused: making one costs pyopencl about 0.1 ms (its argument handling), which every solve would
    pay per kernel. A ``Kernel`` has its object to itself while it lives, and hands it back when it is
    collected; every argument is set again before the next launch (a command keeps the arguments it
    was enqueued with)."""

    def __init__(self, built: cl.Program, text: str, label: str):
        self.built, self.label = built, label
        self.parameters = parameters(text)
        self.scalar_types = scalar_types(text)
        self._signatures = {name: Signature.of(names, self.scalar_types.get(name, {})) for name, names in self.parameters.items()}
        self._free: dict[str, list[cl.Kernel]] = {}

    def kernel(self, name: str) -> Kernel:
        """A kernel with no argument set, its object to itself while it lives."""
        signature = self._signatures.get(name)
        if signature is None:
            raise KernelBuildError(f"{self.label} has no kernel {name!r}; its kernels: {', '.join(self.parameters)}")
        free = self._free.setdefault(name, [])
        try:
            cl_kernel = free.pop()  # atomic: solves in other threads never share an object
        except IndexError:
            cl_kernel = cl.Kernel(self.built, name)
        kernel = Kernel(cl_kernel, name, signature, self.label)
        weakref.finalize(kernel, free.append, cl_kernel)
        return kernel


def options(defines: Mapping[str, object]) -> list[str]:
    return [f"-D{key}={value}" for key, value in sorted(defines.items())]


def struct_declaration(name: str, dtype: np.dtype) -> str:
    """The C declaration ``typedef struct {...} name;`` of ``dtype``, field by field. OpenCL C aligns
    each scalar to its size (OpenCL C 1.2, 6.1.5), so the declaration matches ``dtype`` exactly where
    every field sits at a multiple of its size and the whole is padded to its largest field; raises
    otherwise. (No build at solve time: ``pyopencl.tools.match_dtype_to_c_struct`` checks the
    declarations on each test device, ``tests/engine/runtime/test_kernels.py``.)"""
    key = (name, dtype.str, str(dtype.descr))
    declaration = _declarations.get(key)
    if declaration is None:
        fields = []
        for field, (kind, offset, *_) in (dtype.fields or {}).items():
            if kind.fields is not None or kind.subdtype is not None or offset % kind.itemsize:
                raise KernelBuildError(f"struct {name}: field {field} ({kind} at byte {offset}) has no natural C layout")
            fields.append(f"    {pyopencl.tools.dtype_to_ctype(kind)} {field};")
        largest = max((kind.itemsize for kind, *_ in (dtype.fields or {}).values()), default=1)
        if not fields or dtype.itemsize % largest:
            raise KernelBuildError(f"struct {name}: {dtype} is not padded to its largest field ({largest} bytes)")
        declaration = "typedef struct {\n" + "\n".join(fields) + f"\n}} {name};\n"
        _declarations[key] = declaration
    return declaration


@lru_cache(maxsize=256)
def _digest(text: str) -> str:
    """The SHA-256 of a program's text, kept: a solve looks its programs up several times, and a
    source's text is one string object (``_expanded``), whose lookup here costs no hashing."""
    return hashlib.sha256(text.encode()).hexdigest()


def program(device: Device, source: KernelSource, defines: Mapping[str, object] | None = None, preamble: str = "") -> Program:
    """Build (or fetch from this process's cache) ``source`` for ``device``.

    ``defines`` become ``-D`` options (sizes and types); ``preamble`` (struct declarations) goes
    before the source. A build failure raises KernelBuildError with the device, the options and the
    compiler log. Programs are kept per context, text and options, and each is built once: threads
    asking for one being built wait for that build. Without a time limit the first caller builds in
    its own thread; under one the build runs beside the caller, who stops waiting when the limit
    passes (the build still finishes and is kept for the next call).
    """
    text = (preamble + f'\n#line 1 "{source.filename}"\n' if preamble else "") + source.text()
    opts = options(defines or {})
    context = device.context
    key = (context.int_ptr, _digest(text), tuple(opts))
    built = _programs.get(key)
    if built is not None:
        return built
    watch = deadline.Stopwatch()
    log.event("build", f"building {source.label} for {device.label}")
    try:
        return _built_or_waited(device, source, context, key, text, opts)
    finally:  # the caller's wait for a build, reported apart from its phases (``Timings.build``)
        building.add(watch.seconds)
        log.event("build", f"{source.label} ready after {watch.seconds:.3f} s")


def _built_or_waited(
    device: Device, source: KernelSource, context: cl.Context, key: tuple, text: str, opts: list[str]
) -> Program:
    """``program``'s build: made here, or waited for where another thread (or the build pool, under a
    limit) makes it."""
    limit = deadline.current()
    with _lock:
        built = _programs.get(key)
        if built is not None:
            return built
        future = _building.get(key)
        mine = future is None
        if future is None:  # under a limit beside the caller, who may stop waiting; else in the caller's thread
            future = (
                _builds.submit(_build, device, context, source.label, text, opts)
                if limit.limited
                else concurrent.futures.Future()
            )
            _building[key] = future
            future.add_done_callback(lambda done: _keep(key, done))
    if mine and not limit.limited:
        try:
            built = _build(device, context, source.label, text, opts)
        except BaseException as exc:
            future.set_exception(exc)
            raise
        future.set_result(built)
        return built
    try:
        return future.result(timeout=max(0.0, limit.remaining()) if limit.limited else None)
    except concurrent.futures.TimeoutError:
        limit.check(f"building {source.label} for {device.label}")
        return future.result()  # pragma: no cover - the limit passed just after the wait


def build_cache() -> tuple[Path, int, int]:
    """Where pyopencl keeps built programs between processes (the folder ``pyopencl.cache`` uses), and
    how many files and bytes it holds: a build found there costs a load, not a compile."""
    import platformdirs

    base = platformdirs.user_cache_dir("pyopencl", "pyopencl")
    folder = Path(base) / f"pyopencl-compiler-cache-v2-py{'.'.join(str(i) for i in sys.version_info)}"
    files = [f for f in folder.rglob("*") if f.is_file()] if folder.is_dir() else []
    return folder, len(files), sum(f.stat().st_size for f in files)


def forget(device: Device) -> None:
    """Drop the programs built for ``device``'s context (it is being replaced)."""
    with _lock:
        context = device.context.int_ptr
        for key in [k for k in _programs if k[0] == context]:
            del _programs[key]


def _keep(key: tuple, future: concurrent.futures.Future) -> None:
    with _lock:
        _building.pop(key, None)
        if future.exception() is None:
            _programs[key] = future.result()


def _build(device: Device, context: cl.Context, label: str, text: str, opts: list[str]) -> Program:
    try:
        return Program(cl.Program(context, text).build(options=opts), text, label)
    except cl.Error as exc:
        raise KernelBuildError(
            f"building {label} failed on {device.label}\noptions: {' '.join(opts) or '(none)'}\ncompiler log:\n{exc}"
        ) from None
