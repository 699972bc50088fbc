"""The OpenCL runtime under every device solver: devices and the ICD fix (``devices``, ``icd``), kernel
sources, builds and argument binding (``kernels``), buffers and fills (``buffers``), host memory
(``memory``), time limits (``deadline``) and runtime failures turned into clsolve errors
(``failures``)."""
