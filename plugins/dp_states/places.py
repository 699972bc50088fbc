"""Where each level of a dp-states search runs: on the host (NumPy) while the list is short, on the
device once it is long."""

from __future__ import annotations

from collections.abc import Callable

from clsolve.sdk import TimeLimitError

from .device import DeviceLists
from .host import HostLists


class Places:
    """Where each level runs: lists longer than ``host_states`` go to the device (its buffers made
    at the first such list), and come back to the host once they are a quarter of that or less."""

    def __init__(self, host: HostLists, make_device: Callable[[], DeviceLists], host_states: int):
        self.host, self.make_device, self.host_states = host, make_device, host_states
        self.device: DeviceLists | None = None

    def next(self, lists: HostLists | DeviceLists) -> HostLists | DeviceLists:
        """Where the next level runs. Lists stay on the host while the device's kernels are still
        being built when the time limit passes: the search then stops with its incumbent and bound."""
        if isinstance(lists, HostLists) and lists.count > self.host_states:
            if self.device is None:
                try:
                    self.device = self.make_device()
                except TimeLimitError:
                    return lists
            self.device.upload(lists.fields())
            return self.device
        if isinstance(lists, DeviceLists) and lists.count <= self.host_states // 4:
            self.host.load(*lists.download())
            return self.host
        return lists
