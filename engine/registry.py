"""Finding solver plugins by name through stevedore (entry-point group ``clsolve.solvers``)."""
from __future__ import annotations

from stevedore import ExtensionManager

from .errors import InvalidOptionError, UnknownSolverError
from .solver import Solver

NAMESPACE = "clsolve.solvers"


def _manager() -> ExtensionManager:
    return ExtensionManager(namespace=NAMESPACE, invoke_on_load=False,
                            on_load_failure_callback=_remember_failure)


_failures: dict[str, str] = {}


def _remember_failure(manager, entrypoint, exception) -> None:
    _failures[entrypoint.name] = f"{type(exception).__name__}: {exception}"


def names() -> list[str]:
    """Names of the installed solvers that load."""
    return sorted(_manager().names())


def solver_classes() -> dict[str, type[Solver]]:
    return {ext.name: ext.plugin for ext in _manager()}


def load(name: str, **options) -> Solver:
    """An instance of the solver registered as ``name``; unknown names list what is installed.

    ``options`` are passed to the solver's constructor; an option it does not take is an error.
    """
    _failures.clear()
    classes = solver_classes()
    cls = classes.get(name)
    if cls is None:
        if name in _failures:
            raise UnknownSolverError(f"solver {name!r} is installed but failed to load: {_failures[name]}")
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
    for name, cls in sorted(solver_classes().items()):
        out.append({"name": name, "summary": getattr(cls, "summary", ""),
                    "problems": list(getattr(cls, "problem_kinds", ())),
                    "uses_device": bool(getattr(cls, "uses_device", True)),
                    "module": cls.__module__})
    return out
