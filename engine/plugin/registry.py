"""Finding solver plugins by name through stevedore (entry-point group ``clsolve.solvers``).

``load(name)`` loads that one plugin through stevedore's ``DriverManager`` (only its package is
imported), once per name and process. Listing every plugin (``names``, ``describe``, ``auto``) uses
one ``ExtensionManager``, built on first use. ``refresh()`` forgets both, for a plugin installed
while the process runs. A name that two installed packages both register is refused when it is
asked for, naming both, instead of one silently taking it. ``testing({"name": SolverClass})``
replaces the installed plugins inside a ``with`` block (stevedore's ``make_test_instance``), so tests
need not install a package.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from typing import TypeGuard

from stevedore import DriverManager, ExtensionManager
from stevedore.exception import MultipleMatches, NoMatches
from stevedore.extension import Extension

from ..errors import InvalidOptionError, UnknownSolverError
from .contract import BatchSolver, DeviceSolver, HostSolver, Solver

NAMESPACE = "clsolve.solvers"

_lock = threading.Lock()
# "manager" (the listing), "drivers" (name -> class or None, loaded one by one), "failures" (name -> why
# it did not load), "conflicts" (name -> entry points), "testing" (True inside ``testing``)
_state: dict = {}


def _remember_failure(manager, entrypoint, exception) -> None:
    _state.setdefault("failures", {})[entrypoint.name] = f"{type(exception).__name__}: {exception}"


def _build() -> ExtensionManager:
    _state.setdefault("failures", {})
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
    extensions: list[Extension] = [
        Extension(name, EntryPoint(name, f"{cls.__module__}:{cls.__qualname__}", NAMESPACE), cls, None)
        for name, cls in classes.items()
    ]
    with _lock:
        saved = dict(_state)
        _state.clear()
        _state.update(
            manager=ExtensionManager.make_test_instance(extensions, namespace=NAMESPACE),
            drivers=dict(classes),
            failures={},
            conflicts={},
            testing=True,
        )
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


def _entry_points(name: str) -> list[str]:
    """The installed entry points registering ``name`` (read from package metadata, nothing imported)."""
    return sorted({ep.value for ep in entry_points(group=NAMESPACE, name=name)})


def _driver(name: str) -> object | None:
    """The class registered as ``name``, loaded alone through stevedore's ``DriverManager`` (once per
    name); None when nothing registers it or it failed to load (the failure is remembered)."""
    with _lock:
        drivers = _state.setdefault("drivers", {})
        if name in drivers or _state.get("testing"):
            return drivers.get(name)
    found = _entry_points(name)
    if len(found) > 1:
        raise UnknownSolverError(
            f"solver {name!r} is registered by more than one installed package ({', '.join(found)}); uninstall all but one"
        )
    cls: object | None = None
    if found:
        try:
            cls = DriverManager(NAMESPACE, name, on_load_failure_callback=_remember_failure).driver
        except NoMatches:  # it failed to load: _remember_failure has the reason
            pass
        except MultipleMatches as exc:  # pragma: no cover - the metadata check above sees these first
            raise UnknownSolverError(f"solver {name!r} is registered more than once: {exc}") from None
    with _lock:
        _state.setdefault("drivers", {})[name] = cls
    return cls


def load(name: str, **options) -> Solver:
    """An instance of the solver registered as ``name``; unknown names list what is installed.

    ``options`` are passed to the solver's constructor; an option it does not take is an error.
    """
    cls = _driver(name)
    if cls is None:
        failures = _state.get("failures", {})
        if name in failures:
            raise UnknownSolverError(f"solver {name!r} is installed but failed to load: {failures[name]}")
        installed = ", ".join(names()) or "(none)"
        raise UnknownSolverError(f"unknown solver {name!r}; installed solvers: {installed}")
    if not _is_solver(cls):
        raise UnknownSolverError(f"entry point {name!r} ({cls!r}) is neither a clsolve.DeviceSolver nor a clsolve.HostSolver")
    if getattr(cls, "name", None) != name:  # answers and errors would name it otherwise
        raise UnknownSolverError(
            f"entry point {name!r} registers {cls.__module__}.{cls.__qualname__}, whose name is "
            f"{getattr(cls, 'name', None)!r}: a solver's class name and its entry point's must be "
            "the same"
        )
    unknown = sorted(set(options) - set(valid_options(cls))) if options else []
    if unknown and not _takes_any_keyword(cls):
        valid = ", ".join(valid_options(cls)) or "none"
        raise InvalidOptionError(
            f"solver {name!r} does not take option{'s' * (len(unknown) > 1)} {', '.join(unknown)}; its options: {valid}"
        )
    try:
        return cls(**options)
    except InvalidOptionError as exc:  # a value the solver refuses: its own message says which and why
        raise InvalidOptionError(f"solver {name!r}: {exc}") from None
    except TypeError as exc:  # a constructor that checks no types itself
        raise InvalidOptionError(f"solver {name!r} cannot take these options {sorted(options)}: {exc}") from None


def _is_solver(cls: object) -> TypeGuard[type[Solver]]:
    return isinstance(cls, type) and issubclass(cls, (DeviceSolver, HostSolver))


@functools.cache  # per class: load runs once per problem in a batch solved one problem at a time
def valid_options(cls: type) -> tuple[str, ...]:
    """The keyword options a solver class's constructor takes, in its order."""
    parameters = inspect.signature(cls).parameters.values()
    return tuple(p.name for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))


def _takes_any_keyword(cls: type) -> bool:
    return any(p.kind is p.VAR_KEYWORD for p in inspect.signature(cls).parameters.values())


@dataclass(frozen=True)
class SolverInfo:
    """What ``clsolve.solvers()`` tells of one installed solver."""

    name: str
    summary: str
    problems: tuple[str, ...]
    uses_device: bool
    batches: bool
    anytime: bool
    options: tuple[str, ...]
    module: str
    conflict: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in self.__dict__.items()}


def describe() -> list[SolverInfo]:
    """Name, summary, accepted problem kinds and options of every installed solver."""
    out = []
    conflicts = _state.get("conflicts", {})
    for name, cls in sorted(solver_classes().items()):
        if not _is_solver(cls):
            continue
        out.append(
            SolverInfo(
                name=name,
                summary=getattr(cls, "summary", ""),
                problems=tuple(getattr(cls, "problem_kinds", ())),
                uses_device=issubclass(cls, DeviceSolver),
                batches=issubclass(cls, BatchSolver),
                anytime=bool(getattr(cls, "anytime", False)),
                options=valid_options(cls),
                module=cls.__module__,
                conflict=tuple(conflicts.get(name, ())),
            )
        )
    return out
