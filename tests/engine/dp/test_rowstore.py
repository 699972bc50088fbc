"""The row store's host mode: chunks streamed into page-locked arenas made as the sweep first reaches
them (page-locking costs about 0.5 s per GiB), each only where the time limit leaves room for it."""

import numpy as np
import pyopencl as cl
import pytest

import clsolve
from clsolve.dp import rowstore
from clsolve.runtime import deadline


@pytest.fixture
def pinning(monkeypatch):
    """Every arena page-locked, as a GPU's large arenas are (PoCL's would be plain memory)."""
    monkeypatch.setattr(rowstore._PinnedArena, "pins", lambda self, size: True)


def _streamed(device, chunks: list[int]) -> rowstore.RowStore:
    return rowstore.RowStore(device, rowstore.plan_store("test rows", chunks, device, 0, mode="host"))


def test_arenas_are_made_as_the_sweep_reaches_them_and_keep_what_was_copied(device, monkeypatch, pinning):
    monkeypatch.setattr(rowstore, "HOST_ARENA_BYTES", 4096)
    chunks = [4096, 4096, 1000]
    store = _streamed(device, chunks)
    try:
        assert all(array is None for array in store._host._arrays)
        for k, size in enumerate(chunks):
            buffer, offset, wait = store.slot(k)
            data = np.full(size, k + 1, np.uint8)
            event = cl.enqueue_copy(device.queue, buffer, data, dst_offset=offset, wait_for=wait or None)
            store.finished(k, event)
            assert sum(array is not None for array in store._host._arrays) == k + 1
        store.drain()
        for k in range(len(chunks)):
            assert (store.host(k) == k + 1).all()
    finally:
        store.release()


def test_an_arena_the_time_limit_has_no_room_for_is_not_made(device, monkeypatch, pinning):
    monkeypatch.setattr(rowstore, "PIN_BYTES_PER_SECOND", 1.0)  # every arena would take far past the limit
    store = _streamed(device, [4096])
    try:
        buffer, offset, wait = store.slot(0)
        with deadline.limit(5.0), pytest.raises(clsolve.TimeLimitError, match="page-locking"):
            store.finished(0, cl.enqueue_copy(device.queue, buffer, np.zeros(4096, np.uint8), dst_offset=offset))
        assert store._host._arrays == [None]
    finally:
        store.release()


def test_small_arenas_and_a_device_in_host_memory_get_plain_memory_the_limit_need_not_allow(device, monkeypatch):
    monkeypatch.setattr(rowstore, "PIN_BYTES_PER_SECOND", 1.0)  # a page-locked arena would be refused
    arena = rowstore._PinnedArena(device, [4096])
    assert not arena.pins(4096)
    assert arena.pins(rowstore.PIN_MIN_BYTES) is (not device.shares_host_memory)
    store = _streamed(device, [4096])
    try:
        buffer, offset, wait = store.slot(0)
        with deadline.limit(5.0):
            store.finished(0, cl.enqueue_copy(device.queue, buffer, np.full(4096, 7, np.uint8), dst_offset=offset))
            store.drain()
        assert store._host._buffers == []
        assert (store.host(0) == 7).all()
    finally:
        store.release()
