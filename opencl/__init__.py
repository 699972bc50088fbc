"""The OpenCL C sources of clsolve's kernels, shipped as package data (read by clsolve.kernels)."""
