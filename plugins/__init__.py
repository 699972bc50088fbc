"""The solver plugins that ship with clsolve, one sub-package per algorithm (host code only).

Each is registered under the entry-point group ``clsolve.solvers`` in ``pyproject.toml``; the engine
never imports them by name.
"""
