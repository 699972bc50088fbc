"""OpenCL devices: listing, choosing by name or rule, and one context and queue per device.

Thread safety: the list of devices, and each device's context and queue, are made once under a lock,
so threads solving at once on one device share one context (kernels built for it, buffers made in it).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

from . import icd, memory

icd.ensure_nvidia_icd()  # must run before pyopencl first lists platforms

import pyopencl as cl  # noqa: E402

from ..errors import DeviceNotFoundError, InvalidOptionError  # noqa: E402

ENV_VAR = "CLSOLVE_DEVICE"


@dataclass(eq=False)
class Device:
    """One OpenCL device with its context and in-order queue (created on first use). Its facts (name,
    type, sizes) are read from OpenCL once: planning asks for them many times a solve, and on the
    H100's host the queries cost about 0.2 ms of a33's 2 ms solve."""

    cl_device: cl.Device
    _cache: dict = field(default_factory=dict, repr=False)
    _handles: tuple[cl.Context, cl.CommandQueue] | None = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @cached_property
    def name(self) -> str:
        return self.cl_device.name.strip()

    @property
    def index(self) -> int:
        """Position among every device of every platform; ``get_device(f"#{index}")`` finds it again,
        in this process or another one on the same host."""
        return next(i for i, d in enumerate(all_devices()) if d is self)

    @cached_property
    def platform(self) -> str:
        return self.cl_device.platform.name.strip()

    @cached_property
    def label(self) -> str:
        return f"{self.name} ({self.platform})"

    @cached_property
    def is_gpu(self) -> bool:
        """A real GPU (a simulator such as Oclgrind reports every device type; it is not one)."""
        return bool(self.cl_device.type & cl.device_type.GPU) and not is_simulator(self)

    @cached_property
    def is_cpu(self) -> bool:
        return bool(self.cl_device.type & cl.device_type.CPU)

    @cached_property
    def shares_host_memory(self) -> bool:
        """Whether the device's buffers live in the host's memory (a CPU device such as PoCL's, or a GPU
        with host-unified memory): a plan counts them against the host budget too."""
        if self.is_cpu:
            return True
        try:
            return bool(self.cl_device.host_unified_memory)
        except cl.Error:
            return False

    @cached_property
    def global_memory(self) -> int:
        return int(self.cl_device.global_mem_size)

    @property
    def memory_limit(self) -> int:
        """Bytes of device memory a solve's plan may hold: ``memory_share()`` of its global memory (the
        rest stays for the driver, and for other processes where several share the device). A plan
        past it is refused."""
        return int(self.global_memory * memory_share())

    @property
    def memory_budget(self) -> int:
        """Bytes of device memory solvers size their optional lists and stores to: ``memory_limit``, and
        on a device in host memory (PoCL's CPU device) no more than HOST_SHARE of the default host
        budget as it was at this device's first read (``host_share``): a plan sized to the device's
        global memory would exceed what the host check allows, and the rest leaves room for the host's
        available memory to shrink while the process runs. It stays the same for the whole process (a solve reads it
        several times, and its layout must not change between the reads)."""
        share = self.host_share
        return self.memory_limit if share is None else min(self.memory_limit, share)

    @cached_property
    def host_share(self) -> int | None:
        """HOST_SHARE of the default host budget when first read, for a device in host memory (None for
        others)."""
        return int(memory.default_budget() * HOST_SHARE) if self.shares_host_memory else None

    @cached_property
    def max_allocation(self) -> int:
        return int(self.cl_device.max_mem_alloc_size)

    @cached_property
    def local_memory(self) -> int:
        return int(self.cl_device.local_mem_size)

    @cached_property
    def compute_units(self) -> int:
        return int(self.cl_device.max_compute_units)

    @cached_property
    def max_work_group_size(self) -> int:
        return int(self.cl_device.max_work_group_size)

    @property
    def context(self) -> cl.Context:
        return self._made()[0]

    @property
    def queue(self) -> cl.CommandQueue:
        return self._made()[1]

    def _made(self) -> tuple[cl.Context, cl.CommandQueue]:
        """The context and its queue, made once under the device's lock (two threads making their first
        solves at once would otherwise each make a context, and one would launch the other's kernels)."""
        handles = self._handles
        if handles is None:
            with self._lock:
                if self._handles is None:
                    context = cl.Context([self.cl_device])
                    self._handles = (context, cl.CommandQueue(context))
                handles = self._handles
        return handles

    def reset(self) -> None:
        """Drop the context and queue (made afresh on next use), and what was made in them (the spare
        buffer): after the runtime lost them."""
        with self._lock:
            self._handles = None
            self._cache.pop("spare buffer", None)

    def info(self) -> DeviceInfo:
        return DeviceInfo(
            name=self.name,
            platform=self.platform,
            type=_type_names(self.cl_device.type),
            global_memory_bytes=self.global_memory,
            max_allocation_bytes=self.max_allocation,
            local_memory_bytes=self.local_memory,
            compute_units=self.compute_units,
            max_work_group_size=self.max_work_group_size,
            opencl=self.cl_device.version.strip(),
            simulator=is_simulator(self),
            spec=f"#{self.index}",
        )

    def describe(self) -> dict:
        """``info()`` as a JSON object (benchmark records hold it)."""
        return self.info().to_dict()


def _type_names(bits: int) -> str:
    """``ALL | GPU``: the device type's names (pyopencl also lists its own ``_is_bitfield`` marker)."""
    names = cl.device_type.to_string(bits).split(" | ")  # type: ignore[operator]  # the stub types the enum as an int
    return " | ".join(name for name in names if not name.startswith("_"))


@dataclass(frozen=True)
class DeviceInfo:
    """What ``clsolve.devices()`` tells of one device; ``spec`` selects it again (``device="#2"``)."""

    name: str
    platform: str
    type: str
    global_memory_bytes: int
    max_allocation_bytes: int
    local_memory_bytes: int
    compute_units: int
    max_work_group_size: int
    opencl: str
    simulator: bool
    spec: str

    def to_dict(self) -> dict:
        """A JSON object (the device's name under ``device``, as benchmark records have it)."""
        out = {"platform": self.platform, "device": self.name}
        out.update((k, v) for k, v in self.__dict__.items() if k not in ("name", "platform"))
        return out


_devices: list[Device] | None = None
_devices_lock = threading.Lock()
#: How to wait for the work calls left running when their time limits passed (``left_work``).
_left: set[Callable[[], object]] = set()


#: Share of a device's global memory a plan may use by default (``CLSOLVE_DEVICE_MEMORY_SHARE`` sets another).
DEVICE_MEMORY_SHARE = 0.9
#: The environment variable that sets the share: several processes sharing one device each take a part.
SHARE_VARIABLE = "CLSOLVE_DEVICE_MEMORY_SHARE"


#: The share of the default host budget a device in host memory sizes its solvers' lists to.
HOST_SHARE = 0.5


def memory_share() -> float:
    """The share of a device's global memory one process's plans may use: ``CLSOLVE_DEVICE_MEMORY_SHARE``
    (a number in (0, 1]) where set, else DEVICE_MEMORY_SHARE."""
    text = os.environ.get(SHARE_VARIABLE, "").strip()
    if not text:
        return DEVICE_MEMORY_SHARE
    try:
        share = float(text)
    except ValueError:
        share = float("nan")
    if not 0 < share <= 1:
        raise InvalidOptionError(
            f"{SHARE_VARIABLE} must be a number in (0, 1] (the share of each device's memory this process may use), got {text!r}"
        )
    return share


def left_work(wait: Callable[[], object]) -> None:
    """Note that a call answered (or stopped) at its time limit while work it queued still runs, and
    how to wait for it (its queue's ``finish``, see ``deadline.finished``)."""
    with _devices_lock:
        _left.add(wait)


def settle_left_work() -> None:
    """Wait for the work earlier calls left running at their time limits (a call does this before its
    own clock starts: its limit is for its own work, which an in-order queue would run after it).

    Work whose queue failed meanwhile (the runtime lost the queue or the context) has nothing left to
    wait for: its error belongs to the call that left it, which has answered already, so it is
    dropped here; a device whose queue no longer runs is found and replaced by the next solve on it."""
    while _left:
        with _devices_lock:
            wait = _left.pop() if _left else None
        if wait is not None:
            try:
                wait()
            except cl.Error:
                pass


def all_devices() -> list[Device]:
    """Every OpenCL device of every platform, in platform order (made once per process, under a lock:
    one ``Device``, so one context, per device)."""
    if _devices is None:
        with _devices_lock:
            return _listed()
    return _devices


def _listed() -> list[Device]:
    global _devices
    if _devices is None:
        found: list[Device] = []
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


#: Platforms that simulate a device for debugging (thousands of times slower than real hardware):
#: never picked by ``auto``, ``gpu`` or ``cpu``, only when named.
SIMULATORS = ("oclgrind",)


def is_simulator(device: Device) -> bool:
    return any(name in f"{device.platform} {device.name}".lower() for name in SIMULATORS)


def gpus() -> list[Device]:
    """Every real GPU of this host, in platform order."""
    return [d for d in all_devices() if d.is_gpu]


def _rank_auto(device: Device) -> int:
    if device.is_gpu:
        return 0
    if not device.is_cpu:
        return 1  # any other accelerator
    return 2 if "portable computing language" in device.platform.lower() else 3


def _real(devices: list[Device]) -> list[Device]:
    return [d for d in devices if not is_simulator(d)]


def _wrapped(spec) -> Device | None:
    """The ``Device`` of a ``pyopencl.Device`` or single-device ``pyopencl.Context`` (None otherwise)."""
    if isinstance(spec, cl.Context):
        found = spec.devices
        if len(found) != 1:
            raise DeviceNotFoundError(f"a pyopencl.Context with {len(found)} devices: pass one device")
        spec = found[0]
    if not isinstance(spec, cl.Device):
        return None
    for device in all_devices():
        if device.cl_device == spec:
            return device
    return Device(spec)


def get_device(spec: str | Device | cl.Device | cl.Context | None = None) -> Device:
    """Choose a device.

    ``spec`` is ``auto`` (GPU first, then any other accelerator, then PoCL's CPU, then other CPUs;
    a simulator such as Oclgrind only when named: ``oclgrind``),
    ``gpu``, ``cpu``, or a case-insensitive fragment of the platform or device name, optionally
    followed by ``:INDEX`` to pick among several matches (``nvidia``, ``pocl``, ``h100:1``), or
    ``#N``, the N-th device of ``clsolve devices`` (0-based, every platform in order).
    ``None`` reads ``CLSOLVE_DEVICE`` and falls back to ``auto``. ``all`` is ``auto`` here, where one
    device is wanted; ``solve_many`` reads it as every GPU (see ``clsolve.scaleout.multidevice``).
    """
    if isinstance(spec, Device):
        return spec
    wrapped = _wrapped(spec)
    if wrapped is not None:
        return wrapped
    if spec is None:
        spec = os.environ.get(ENV_VAR) or "auto"
    if not isinstance(spec, str):
        raise DeviceNotFoundError(
            f"device must be a name such as 'auto', 'gpu', 'cpu', 'pocl' or '#0', a "
            f"clsolve.Device or a pyopencl Device or Context; got {type(spec).__name__} {spec!r}"
        )
    text = spec.strip()
    devices = all_devices()
    if not devices:
        raise DeviceNotFoundError("no OpenCL platform is installed: install PoCL (pip install 'clsolve[pocl]') or a GPU driver")
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
        matches = sorted(_real(devices), key=_rank_auto)
    elif key == "gpu":
        matches = [d for d in _real(devices) if d.is_gpu]
    elif key == "cpu":
        matches = sorted((d for d in _real(devices) if d.is_cpu), key=_rank_auto)
    else:
        aliases = {"pocl": "portable computing language"}
        fragment = aliases.get(key, key)
        matches = [d for d in devices if fragment in f"{d.platform} {d.name}".lower()]
    if not matches:
        listing = "; ".join(d.label for d in devices)
        raise DeviceNotFoundError(f"no OpenCL device matches {spec!r}; available: {listing}")
    if index >= len(matches):
        raise DeviceNotFoundError(f"device index {index} out of range: {len(matches)} device(s) match {base!r}")
    return matches[index]


def list_devices() -> list[DeviceInfo]:
    return [d.info() for d in all_devices()]
