"""clsolve: exact knapsack-family and grid-DP solvers whose algorithms are OpenCL kernels.

>>> import clsolve
>>> problem = clsolve.Knapsack(profits=[10, 7, 5], weights=[4, 3, 2], capacities=5)
>>> clsolve.solve(problem, solver="dp-rows").value
12
"""

from .runtime import icd as _icd

_icd.ensure_nvidia_icd()  # before anything imports pyopencl and lists platforms

from . import datasets, examples, family  # noqa: E402
from .api import choose, devices, load_solver, plan, solve, solve_many, solvers  # noqa: E402
from .batch.arrays import SolutionArrays  # noqa: E402
from .dp import presolve  # noqa: E402
from .errors import (  # noqa: E402
    BatchError,
    ClsolveError,
    DatasetError,
    DeviceError,
    DeviceNotFoundError,
    DoesNotFitError,
    FormatError,
    InvalidOptionError,
    InvalidProblemError,
    KernelBuildError,
    SolutionCheckError,
    TimeLimitError,
    UnknownSolverError,
    UnsupportedProblemError,
)
from .family import BoundedKnapsack, ChangeMaking, MultipleChoice, MultipleKnapsack  # noqa: E402
from .io import formats  # noqa: E402
from .plan import Plan  # noqa: E402
from .plugin.contract import BatchSolver, DeviceSolver, HostSolver, PackedBatchSolver, Solver  # noqa: E402
from .plugin.registry import SolverInfo  # noqa: E402
from .problems import LCS, TSP, Knapsack  # noqa: E402
from .runtime.devices import Device, DeviceInfo, get_device, gpus  # noqa: E402
from .scaleout.chunks import Progress  # noqa: E402
from .solution import Solution, Timings, check, check_many  # noqa: E402

__version__ = "0.1.0"

__all__ = [
    "Knapsack",
    "BoundedKnapsack",
    "ChangeMaking",
    "MultipleChoice",
    "MultipleKnapsack",
    "LCS",
    "TSP",
    "Solution",
    "SolutionArrays",
    "Timings",
    "Plan",
    "Device",
    "DeviceInfo",
    "SolverInfo",
    "formats",
    "examples",
    "family",
    "datasets",
    "Solver",
    "DeviceSolver",
    "HostSolver",
    "BatchSolver",
    "PackedBatchSolver",
    "solve",
    "solve_many",
    "plan",
    "choose",
    "solvers",
    "load_solver",
    "devices",
    "get_device",
    "gpus",
    "check",
    "check_many",
    "ClsolveError",
    "InvalidProblemError",
    "UnsupportedProblemError",
    "DoesNotFitError",
    "UnknownSolverError",
    "DeviceNotFoundError",
    "DeviceError",
    "KernelBuildError",
    "SolutionCheckError",
    "FormatError",
    "InvalidOptionError",
    "TimeLimitError",
    "BatchError",
    "DatasetError",
    "Progress",
    "presolve",
]
