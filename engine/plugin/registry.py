"""Finding solver plugins by name through stevedore (entry-point group ``clsolve.solvers``).

The installed plugins are listed once per process (one ``ExtensionManager``, built on first use;
``refresh()`` lists them again, for a plugin installed while the process runs). A name that two
installed packages both register is refused when it is asked for, naming both, instead of one
silently taking it. ``testing({"name": SolverClass})`` replaces the installed plugins inside a
``with`` block (stevedore's ``make_test_instance``), so tests need not install a package.
"""
from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from importlib.metadata import EntryPoint

from stevedore import ExtensionManager
from stevedore.extension import Extension

from ..errors import InvalidOptionError, UnknownSolverError
from .contract import Solver

NAMESPACE = "clsolve.solvers"

_lock = threading.Lock()
_state: dict = {}  # "manager", "failures" (name -> why it did not load), "conflicts" (name -> entry points)


def _remember_failure(manager, entrypoint, exception) -> None:
    _state.setdefault("failures", {})[entrypoint.name] = f"{type(exception).__name__}: {exception}"


def _build() -> ExtensionManager:
    _state["failures"] = {}
    manager = ExtensionManager(namespace=NAMESPACE, on_load_failure_callback=_remember_failure)
    seen: dict[str, list[str]] = {}
    for ext in manager.extensions:  # every entry point of the group, one per registering package
        seen.setdefault(ext.name, []).append(ext.entry_point.value)
    _state["conflicts"] = {name: values for name, values in seen.items() if len(values) > 1}
    return manager


def _manager() -> ExtensionManager:
    with _lock:
        if "manager" not in _state:
            _state["manager"] = _build()
        return _state["manager"]


def refresh() -> None:
    """List the installed plugins again (after installing one into the running process)."""
    with _lock:
        _state.clear()


@contextlib.contextmanager
def testing(classes: dict[str, type]) -> Iterator[None]:
    """Inside the block, the solvers are exactly ``classes`` (name -> class), as if installed."""
    extensions = [Extension(name, EntryPoint(name, f"{cls.__module__}:{cls.__qualname__}", NAMESPACE), cls, None)
                  for name, cls in classes.items()]
    with _lock:
        saved = dict(_state)
        _state.clear()
        _state.update(manager=ExtensionManager.make_test_instance(extensions, namespace=NAMESPACE),
                      failures={}, conflicts={})
    try:
        yield
    finally:
        with _lock:
            _state.clear()
            _state.update(saved)


def names() -> list[str]:
    """Names of the installed solvers that load."""
    return sorted(set(_manager().names()))


def solver_classes() -> dict[str, type[Solver]]:
    return {ext.name: ext.plugin for ext in _manager()}


def load(name: str, **options) -> Solver:
    """An instance of the solver registered as ``name``; unknown names list what is installed.

    ``options`` are passed to the solver's constructor; an option it does not take is an error.
    """
    classes = solver_classes()
    conflict = _state.get("conflicts", {}).get(name)
    if conflict:
        raise UnknownSolverError(f"solver {name!r} is registered by more than one installed package "
                                 f"({', '.join(conflict)}); uninstall all but one")
    cls = classes.get(name)
    if cls is None:
        failures = _state.get("failures", {})
        if name in failures:
            raise UnknownSolverError(f"solver {name!r} is installed but failed to load: {failures[name]}")
        installed = ", ".join(sorted(classes)) or "(none)"
        raise UnknownSolverError(f"unknown solver {name!r}; installed solvers: {installed}")
    if not (isinstance(cls, type) and issubclass(cls, Solver)):
        raise UnknownSolverError(f"entry point {name!r} ({cls!r}) does not implement clsolve.Solver")
    try:
        return cls(**options)
    except InvalidOptionError as exc:  # a value the solver refuses: its own message says which and why
        raise InvalidOptionError(f"solver {name!r}: {exc}") from None
    except TypeError as exc:
        raise InvalidOptionError(f"solver {name!r} does not take these options {sorted(options)}: {exc}") from None


def describe() -> list[dict]:
    """Name, summary and accepted problem kinds of every installed solver."""
    out = []
    conflicts = _state.get("conflicts", {})
    for name, cls in sorted(solver_classes().items()):
        out.append({"name": name, "summary": getattr(cls, "summary", ""),
                    "problems": list(getattr(cls, "problem_kinds", ())),
                    "uses_device": bool(getattr(cls, "uses_device", True)),
                    "module": cls.__module__,
                    **({"conflict": conflicts[name]} if name in conflicts else {})})
    return out
