"""Python's cyclic garbage collector paused while a batch runs.

A batch of tens of thousands of problems makes several objects per problem (problems, reductions,
solutions, their arrays); the collector then runs its full pass over every live object of the
process again and again, and in a process with a large heap (a Dask worker, a client holding
earlier results) one pass costs a tenth of a second or more. Nothing the batch code makes forms
reference cycles, so reference counting frees it all the same; the collector is switched back on
(and runs on its own schedule) when the batch ends, with the batch's surviving objects counted as
old ones rather than scanned at once as young ones.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

#: Objects in the permanent generation when clsolve was imported, when they are few: the
#: interpreter's own (CPython 3.12 starts with a few hundred of its static tuples frozen), which a
#: batch's end may move to the oldest generation with the rest. More than this, or any frozen
#: after the import, are a program's own: left frozen (the batch's survivors are then scanned once
#: as young objects, ~15 ms for 63,000 solutions).
INTERPRETER_FROZEN_AT_MOST = 1000
_frozen_at_import = gc.get_freeze_count()
if _frozen_at_import > INTERPRETER_FROZEN_AT_MOST:
    _frozen_at_import = 0


@contextmanager
def paused_gc() -> Iterator[None]:
    """Disable the cyclic collector inside the block, unless it already was (nesting is free)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        if gc.get_freeze_count() in (0, _frozen_at_import):
            # what the batch left alive (its results) moves to the oldest generation without being
            # traversed; else the first allocation after enable() would scan all of it at once
            gc.freeze()
            gc.unfreeze()
        gc.enable()
