"""``mkp-dfs``: branch and bound for the multidimensional 0-1 knapsack on the device, depth first."""

from .solver import DeviceDepthFirst

__all__ = ["DeviceDepthFirst"]
