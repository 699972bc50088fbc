"""The plugin SDK: everything a solver plugin uses from clsolve, in one module.

A plugin, built-in or not, imports ``clsolve.sdk`` and nothing else of clsolve
(``tests/project/test_structure.py`` holds the built-in plugins to it). What is here:

- the contract (:class:`DeviceSolver`, :class:`HostSolver`, the batch capabilities) and the
  :class:`Plan` a solver returns before anything is allocated;
- the problems, :class:`Solution` and :class:`Timings`, the packed batch arrays, and the errors a
  solver raises;
- ``options`` (checked option values), :class:`Workspace` (the device buffers a plan counted, made by
  name: the only way a plugin allocates), ``kernels`` (sources, builds, kernels with arguments by
  name, structs from dtypes), ``buffers``, ``deadline`` (the solve's time limit: ``allows``,
  ``expired``, ``check``, ``stop``, ``remaining``, ``grace``; ``Stopwatch``, the one clock; ``drain``,
  ``finished``, :class:`Pacer`, ``Rate``), ``memory`` (the host budget), ``progress`` and ``cache``
  (per-problem results), and :class:`Device`;
- the algorithm helpers more than one solver needs: the dense DP's table layout and value types, row
  stores that keep a DP's decisions on the device or stream them to the host, presolve (reduction,
  fixing, ratio orders, pruning), blocking of rows, and the multidimensional knapsack's surrogate
  bounds, walks, greedy fills and outcomes.

The names are the engine's own objects, re-exported: their documentation is where they are defined.
"""

from __future__ import annotations

from . import options
from .batch.packed import PackedProblems, PackedSolutions, concatenated_ranges
from .dp.blocking import fits, runs
from .dp.bounds import Bound, excess_sizes, upper_bound
from .dp.fixing import Stages, greedy, stages
from .dp.presolve import (
    PackedReduction,
    Reduction,
    identity,
    identity_packed,
    least,
    planned,
    presolved,
    reduce_many,
    reduce_packed,
    reduction,
)
from .dp.pruning import Pruning
from .dp.ratios import ratio_order, sort_by_ratio
from .dp.rowstore import HOST_CHUNK_BYTES, RING_SLOTS, RowStore, StorePlan, device_budget, plan_rows, plan_store
from .dp.table import (
    BACK_DEPTH,
    INT32_MAX,
    MAX_DIMS,
    MAX_STATES,
    MODEL_BANDWIDTH,
    MODEL_COPY_BANDWIDTH,
    MODEL_DP_STEP_SECONDS,
    MODEL_LAUNCH_SECONDS,
    MODEL_SUBSETS_PER_SECOND,
    POISON_BYTE,
    Concatenated,
    DecisionLayout,
    clamped_weights,
    dp_accepts,
    opencl_type,
    reachable_floors,
    spans,
    value_bound,
    value_dtype,
    work_group_size,
)
from .errors import (
    ClsolveError,
    DoesNotFitError,
    InvalidOptionError,
    InvalidProblemError,
    PlanError,
    SolutionCheckError,
    TimeLimitError,
    UnsupportedProblemError,
    problem_label,
)
from .family.choice import kept, lightest
from .family.dominance import needed
from .family.problems import BoundedKnapsack, ChangeMaking, MultipleChoice, MultipleKnapsack
from .family.splitting import piece_arrays, pieces
from .mkp import greedy as mkp_greedy
from .mkp import walk
from .mkp.outcome import Outcome, branch_and_bound, refusal
from .mkp.surrogate import REFIT_LEVELS, Relaxation, Suffix, Tables, cheap_bounds
from .mkp.walk import HOST_NODES
from .plan import Plan, host_memory_bytes
from .plugin.contract import BatchSolver, DeviceSolver, HostSolver, PackedBatchSolver, Solver
from .problems import LCS, TSP, Knapsack, exact_sum
from .runtime import buffers, cache, deadline, kernels, log, memory, progress
from .runtime.buffers import copy_later, fill
from .runtime.deadline import Pacer
from .runtime.devices import Device
from .runtime.kernels import KernelSource, Program
from .runtime.memory import format_bytes
from .runtime.workspace import Workspace
from .solution import Solution, Timings

__all__ = [
    # the contract and the plan
    "Solver",
    "DeviceSolver",
    "HostSolver",
    "BatchSolver",
    "PackedBatchSolver",
    "Plan",
    "host_memory_bytes",
    "format_bytes",
    # problems, answers, errors
    "Knapsack",
    "BoundedKnapsack",
    "ChangeMaking",
    "MultipleChoice",
    "MultipleKnapsack",
    "kept",
    "lightest",
    "needed",
    "pieces",
    "piece_arrays",
    "LCS",
    "TSP",
    "exact_sum",
    "Solution",
    "Timings",
    "PackedProblems",
    "PackedSolutions",
    "concatenated_ranges",
    "ClsolveError",
    "DoesNotFitError",
    "InvalidOptionError",
    "InvalidProblemError",
    "PlanError",
    "SolutionCheckError",
    "TimeLimitError",
    "UnsupportedProblemError",
    "problem_label",
    # the runtime: options, kernels, buffers, time limits, memory, progress, per-problem caches
    "options",
    "kernels",
    "KernelSource",
    "Program",
    "Workspace",
    "buffers",
    "fill",
    "copy_later",
    "deadline",
    "Pacer",
    "memory",
    "progress",
    "log",
    "cache",
    "Device",
    # the dense DP's table and its row stores
    "BACK_DEPTH",
    "INT32_MAX",
    "MAX_DIMS",
    "MAX_STATES",
    "MODEL_BANDWIDTH",
    "MODEL_COPY_BANDWIDTH",
    "MODEL_DP_STEP_SECONDS",
    "MODEL_LAUNCH_SECONDS",
    "MODEL_SUBSETS_PER_SECOND",
    "POISON_BYTE",
    "Concatenated",
    "DecisionLayout",
    "clamped_weights",
    "dp_accepts",
    "opencl_type",
    "reachable_floors",
    "spans",
    "value_bound",
    "value_dtype",
    "work_group_size",
    "HOST_CHUNK_BYTES",
    "RING_SLOTS",
    "RowStore",
    "StorePlan",
    "device_budget",
    "plan_rows",
    "plan_store",
    "fits",
    "runs",
    # presolve: reduction, fixing, ratio orders, pruning
    "PackedReduction",
    "Reduction",
    "identity",
    "identity_packed",
    "least",
    "planned",
    "presolved",
    "reduce_many",
    "reduce_packed",
    "reduction",
    "Stages",
    "greedy",
    "stages",
    "ratio_order",
    "sort_by_ratio",
    "Pruning",
    "Bound",
    "excess_sizes",
    "upper_bound",
    # the multidimensional knapsack's bounds and searches
    "REFIT_LEVELS",
    "Relaxation",
    "Suffix",
    "Tables",
    "cheap_bounds",
    "Outcome",
    "branch_and_bound",
    "refusal",
    "HOST_NODES",
    "walk",
    "mkp_greedy",
]
