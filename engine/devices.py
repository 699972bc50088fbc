"""OpenCL devices: listing, choosing by name or rule, and one context and queue per device."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cached_property

from . import icd

icd.ensure_nvidia_icd()  # must run before pyopencl first lists platforms

import pyopencl as cl  # noqa: E402

from .errors import DeviceNotFoundError  # noqa: E402

ENV_VAR = "CLSOLVE_DEVICE"


@dataclass(eq=False)
class Device:
    """One OpenCL device with its context and in-order queue (created on first use)."""

    cl_device: cl.Device
    _cache: dict = field(default_factory=dict, repr=False)

    @property
    def name(self) -> str:
        return self.cl_device.name.strip()

    @property
    def index(self) -> int:
        """Position among every device of every platform; ``get_device(f"#{index}")`` finds it again,
        in this process or another one on the same host."""
        return next(i for i, d in enumerate(all_devices()) if d is self)

    @property
    def platform(self) -> str:
        return self.cl_device.platform.name.strip()

    @property
    def label(self) -> str:
        return f"{self.name} ({self.platform})"

    @property
    def is_gpu(self) -> bool:
        return bool(self.cl_device.type & cl.device_type.GPU)

    @property
    def is_cpu(self) -> bool:
        return bool(self.cl_device.type & cl.device_type.CPU)

    @property
    def global_memory(self) -> int:
        return int(self.cl_device.global_mem_size)

    @property
    def max_allocation(self) -> int:
        return int(self.cl_device.max_mem_alloc_size)

    @property
    def local_memory(self) -> int:
        return int(self.cl_device.local_mem_size)

    @property
    def compute_units(self) -> int:
        return int(self.cl_device.max_compute_units)

    @property
    def max_work_group_size(self) -> int:
        return int(self.cl_device.max_work_group_size)

    @cached_property
    def context(self) -> cl.Context:
        return cl.Context([self.cl_device])

    @cached_property
    def queue(self) -> cl.CommandQueue:
        return cl.CommandQueue(self.context)

    def describe(self) -> dict:
        return {
            "platform": self.platform,
            "device": self.name,
            "type": cl.device_type.to_string(self.cl_device.type),
            "global_memory_bytes": self.global_memory,
            "max_allocation_bytes": self.max_allocation,
            "local_memory_bytes": self.local_memory,
            "compute_units": self.compute_units,
            "max_work_group_size": self.max_work_group_size,
            "opencl": self.cl_device.version.strip(),
        }


_devices: list[Device] | None = None


def all_devices() -> list[Device]:
    """Every OpenCL device of every platform, in platform order (cached per process)."""
    global _devices
    if _devices is None:
        found = []
        try:
            platforms = cl.get_platforms()
        except cl.Error:
            platforms = []
        for platform in platforms:
            try:
                found.extend(Device(d) for d in platform.get_devices())
            except cl.Error:
                continue
        _devices = found
    return _devices


def _rank_auto(device: Device) -> int:
    if device.is_gpu:
        return 0
    if not device.is_cpu:
        return 1  # any other accelerator
    return 2 if "portable computing language" in device.platform.lower() else 3


def get_device(spec: str | Device | None = None) -> Device:
    """Choose a device.

    ``spec`` is ``auto`` (GPU first, then any other accelerator, then PoCL's CPU, then other CPUs),
    ``gpu``, ``cpu``, or a case-insensitive fragment of the platform or device name, optionally
    followed by ``:INDEX`` to pick among several matches (``nvidia``, ``pocl``, ``h100:1``), or
    ``#N``, the N-th device of ``clsolve devices`` (0-based, every platform in order).
    ``None`` reads ``CLSOLVE_DEVICE`` and falls back to ``auto``. ``all`` is ``auto`` here, where one
    device is wanted; ``solve_many`` reads it as every GPU (see ``clsolve.multidevice``).
    """
    if isinstance(spec, Device):
        return spec
    if spec is None:
        spec = os.environ.get(ENV_VAR) or "auto"
    text = spec.strip()
    devices = all_devices()
    if not devices:
        raise DeviceNotFoundError(
            "no OpenCL platform is installed: install PoCL (pip install 'clsolve[pocl]') or a GPU driver")
    if text.startswith("#") and text[1:].isdigit():
        if int(text[1:]) >= len(devices):
            raise DeviceNotFoundError(f"device {text} out of range: this host shows {len(devices)} device(s)")
        return devices[int(text[1:])]
    index = 0
    base = text
    if ":" in text and text.rsplit(":", 1)[1].isdigit():
        base, number = text.rsplit(":", 1)
        index = int(number)
    key = base.lower()
    if key in ("auto", "all"):
        matches = sorted(devices, key=_rank_auto)
    elif key == "gpu":
        matches = [d for d in devices if d.is_gpu]
    elif key == "cpu":
        matches = sorted((d for d in devices if d.is_cpu), key=_rank_auto)
    else:
        aliases = {"pocl": "portable computing language"}
        fragment = aliases.get(key, key)
        matches = [d for d in devices if fragment in f"{d.platform} {d.name}".lower()]
    if not matches:
        listing = "; ".join(d.label for d in devices)
        raise DeviceNotFoundError(f"no OpenCL device matches {spec!r}; available: {listing}")
    if index >= len(matches):
        raise DeviceNotFoundError(
            f"device index {index} out of range: {len(matches)} device(s) match {base!r}")
    return matches[index]


def list_devices() -> list[dict]:
    return [d.describe() for d in all_devices()]
