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
from contextlib import contextmanager
from typing import Iterator


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
        if gc.get_freeze_count() == 0:
            # what the batch left alive (its results) moves to the oldest generation without being
            # traversed; else the first allocation after enable() would scan all of it at once
            gc.freeze()
            gc.unfreeze()
        gc.enable()
