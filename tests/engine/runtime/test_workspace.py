"""A solve's workspace: buffers by the names its plan counts, kernels by the names it declares, and
the launches the engine reports."""

import numpy as np
import pyopencl as cl
import pytest

import clsolve
from clsolve.sdk import Plan, PlanError, Workspace, kernels

SOURCE = """
__kernel void twice(__global const uint *input, __global uint *output, const uint count)
{
    const size_t i = get_global_id(0);
    if (i < count) output[i] = 2 * input[i];
}
__kernel void clear(__global uint *output) { output[get_global_id(0)] = 0; }
"""


@pytest.fixture
def program(device, tmp_path):
    (tmp_path / "twice.cl").write_text(SOURCE)
    return kernels.program(device, kernels.KernelSource.path(tmp_path / "twice.cl"))


def test_buffers_are_made_within_what_the_plan_counts_by_name(device):
    work = Workspace(device, Plan("test", {"rows": 4096, "items": 64}))
    first = work.empty("rows", 4096)
    with pytest.raises(PlanError, match=r"test: device buffer 'rows': .* made, the plan counted 4096 bytes"):
        work.empty("rows", 1)
    with pytest.raises(PlanError, match=r"'scratch' of .* its plan does not count \(the plan counts 'rows', 'items'\)"):
        work.empty("scratch", 8)
    work.release("rows", first)
    work.empty("rows", 4096)  # released bytes count no more
    work.upload("items", np.arange(16, dtype=np.uint32))
    with pytest.raises(PlanError, match="'items'"):
        work.upload("items", np.zeros(1, np.uint8))


def test_a_poisoned_workspace_fills_what_it_makes(device):
    work = Workspace(device, Plan("test", {"rows": 64}), poison=0xA5)
    out = np.zeros(64, np.uint8)
    cl.enqueue_copy(device.queue, out, work.empty("rows", 64))
    assert (out == 0xA5).all()


def test_kernels_are_the_plans_and_their_launches_are_counted(device, program):
    work = Workspace(device, Plan("test", {"io": 512}, kernels=("twice",)))
    with pytest.raises(PlanError, match=r"test: kernel 'clear' of .* is not among the kernels its plan launches \('twice'\)"):
        work.kernel(program, "clear")
    data = np.arange(64, dtype=np.uint32)
    source, target = work.upload("io", data), work.empty("io", data.nbytes)
    kernel = work.kernel(program, "twice").set(input=source, output=target, count=64)
    for _ in range(3):
        kernel.enqueue(device.queue, (64,), None)
    out = np.empty_like(data)
    cl.enqueue_copy(device.queue, out, target)
    assert (out == 2 * data).all()
    assert work.launches == {"twice": 3}


def test_a_plan_without_kernels_makes_none(device, program):
    with pytest.raises(PlanError, match=r"its plan launches \(none\)"):
        Workspace(device, Plan("test")).kernel(program, "twice")


#: Options that keep each solver on the device for a problem this small.
ON_DEVICE = {
    "dp-rows": {"presolve": False},
    "wavefront": {},
    "mckp": {"presolve": False},
    "bnb": {"presolve": False, "host_threshold": 0},
    "dp-states": {"host_states": 0},
    "mkp-dfs": {"presolve": False, "host_nodes": 0},
    "mkp-batch": {"presolve": False},
    "dp-batch": {"presolve": False},
}


@pytest.mark.parametrize("solver", sorted(ON_DEVICE))
def test_a_solves_launches_are_reported_by_kernel_and_are_its_plans(device, solver):
    from clsolve.generators import chu_beasley, pisinger

    problem = chu_beasley(12, 2, 0.5, seed=3) if solver.startswith("mkp") else pisinger("strongly", 40, 1000, seed=3)
    plan = clsolve.plan(problem, solver=solver, device=device)
    solution = clsolve.solve(problem, solver=solver, device=device, **ON_DEVICE[solver])
    launches = solution.stats["launches"]
    assert launches and set(launches) <= set(plan.kernels)
    assert all(count > 0 for count in launches.values())
    assert solution.to_dict()["stats"]["launches"] == launches
