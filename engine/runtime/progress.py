"""Progress of long work, for whoever listens: a solver's launches (through ``Pacer``), the problems
of a batch solved one at a time. Nothing is reported unless a listener is installed for the calling
thread (``listening``); the command line installs one that draws a bar on stderr.

A report is ``(what, done, total)``: ``what`` names the work ("dp-rows rows", "problems"), ``done``
of ``total`` units are finished (``total`` None when it is not known in advance).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextvars import ContextVar

from . import log

Listener = Callable[[str, int, "int | None"], None]

_listener: ContextVar[Listener | None] = ContextVar("clsolve_progress", default=None)


@contextlib.contextmanager
def listening(listener: Listener | None) -> Iterator[None]:
    """Inside the block, ``report`` calls ``listener`` (None: nobody listens)."""
    token = _listener.set(listener)
    try:
        yield
    finally:
        _listener.reset(token)


def report(what: str, done: int, total: int | None) -> None:
    """Tell the listener, if any, that ``done`` of ``total`` units of ``what`` are finished (and the
    solve's log, ``clsolve.runtime.log``, if one is kept)."""
    listener = _listener.get()
    if listener is not None:
        listener(what, done, total)
    log.worked(what, done)
