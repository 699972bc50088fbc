"""dp-rows against brute force and sequential on random instances (hypothesis): its passes, chains,
blocks, pipeline, chunks of decision rows, value types and trace-back."""

import numpy as np
import pytest
from conftest import brute_force
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import knapsacks

import clsolve
from clsolve.dp.table import value_bound
from clsolve.plugin import checked
from clsolve_plugins.dp_rows import RowParallelSolver
from clsolve_plugins.sequential import SequentialSolver

SETTINGS = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@SETTINGS
@given(problem=knapsacks())
def test_dp_rows_matches_brute_force(problem, device):
    expected = brute_force(problem)
    for presolve in (True, False):
        solution = clsolve.solve(problem, solver="dp-rows", device=device, poison=True, presolve=presolve)
        assert solution.value == expected and solution.optimal


@SETTINGS
@given(problem=knapsacks(max_n=30, max_capacity=300, big_profits=True))
def test_dp_rows_64_bit_values_match_sequential(problem, device):
    expected = clsolve.solve(problem, solver="sequential")
    solution = clsolve.solve(problem, solver="dp-rows", device=device, poison=True, presolve=False)
    assert solution.value == expected.value


@SETTINGS
@given(problem=knapsacks(max_n=20, max_capacity=200))
def test_decision_table_is_fully_written_and_equals_sequential(problem, device):
    """Every decision bit of every item and state, read back from poisoned device buffers."""
    values, packed = SequentialSolver().decisions(problem)
    expected = np.unpackbits(packed, axis=1)[:, : problem.cells()].astype(bool)
    for bits in (32, 64):
        for per_launch in (1, 2, 3, 4):
            solver = RowParallelSolver(value_bits=bits, poison=True, items_per_launch=per_launch)
            value, table = solver.decisions(problem, device)
            assert value == values[-1]
            np.testing.assert_array_equal(table, expected)


@SETTINGS
@given(
    problem=knapsacks(max_n=20, max_capacity=200),
    chain=st.integers(2, 6),
    per_launch=st.integers(1, 4),
    local_size=st.sampled_from([1, 2, 32]),
)
def test_chained_passes_write_the_decision_table_of_sequential(problem, device, chain, per_launch, local_size):
    """Passes chained in one launch: every bit of every item and state, from poisoned buffers, with
    tiles of 32 states (local_size 1: many tiles, each waiting on those to its left), launches ending
    in a part pass, and the ring's slots wrapping."""
    _table_of_sequential(problem, device, items_per_launch=per_launch, chain=chain, local_size=local_size)


def _table_of_sequential(problem, device, **options):
    """dp-rows with ``options`` from poisoned buffers writes sequential's value and decision table."""
    values, packed = SequentialSolver().decisions(problem)
    expected = np.unpackbits(packed, axis=1)[:, : problem.cells()].astype(bool)
    value, table = RowParallelSolver(poison=True, **options).decisions(problem, device)
    assert value == values[-1]
    np.testing.assert_array_equal(table, expected)


@pytest.mark.parametrize("per_launch", [1, 3, 4])
def test_chained_passes_on_long_rows_and_heavy_items(device, per_launch):
    """Rows of many tiles, items heavier than many tiles (the waits reach far left), zero weights,
    items that never fit; the answer checked and equal to one launch per pass."""
    rng = np.random.default_rng(per_launch)
    weights = np.concatenate([rng.integers(1, 40_000, 40), [0, 0, 70_000, 5, 3]])
    problem = clsolve.Knapsack(rng.integers(1, 1000, weights.size), weights, 60_000)
    expected = clsolve.solve(problem, solver="dp-rows", device=device, chain=1, items_per_launch=1, presolve=False)
    for chain in (2, 9, 64):
        plan = clsolve.plan(problem, solver="dp-rows", device=device, chain=chain, items_per_launch=per_launch, presolve=False)
        assert plan.details["chain"] == chain and "rows" in plan.device_buffers
        assert plan.launches == -(-problem.n // (chain * per_launch)) + 1  # and the trace-back
        solution = clsolve.solve(
            problem,
            solver="dp-rows",
            device=device,
            chain=chain,
            items_per_launch=per_launch,
            poison=True,
            presolve=False,
            local_size=64,
        )
        assert solution.value == expected.value
        clsolve.solution.check(problem, solution)


@pytest.mark.parametrize("chain", [2, 5])
def test_chained_passes_over_chunks_of_decision_rows(device, monkeypatch, chain):
    """Decision rows in chunks of 7 items: launches stop at each chunk's end (a part pass there)."""
    from clsolve.dp import rowstore

    rng = np.random.default_rng(5)
    problem = clsolve.Knapsack(rng.integers(1, 100, 25), rng.integers(1, 60, 25), 3000)
    monkeypatch.setattr(rowstore, "rows_per_chunk", lambda rows, row_bytes, limit, multiple: 7)
    solver = RowParallelSolver(poison=True, items_per_launch=3, presolve=False, chain=chain)
    plan = checked.plan(solver, problem, device)
    assert plan.details["decision_chunks"] == 4
    solution = solver.solve(problem, device, plan)
    assert solution.value == clsolve.solve(problem, solver="sequential").value
    clsolve.solution.check(problem, solution)


@SETTINGS
@given(problem=knapsacks(max_n=20, max_capacity=300), block=st.sampled_from([2, 5, 16]), local_size=st.sampled_from([1, 2, 32]))
def test_blocks_write_the_decision_table_of_sequential(problem, device, block, local_size):
    """Light items applied on chip, a block at a time: every bit of every item and state, from poisoned
    buffers, with tiles of 1 to 32 words (halos of 16 rows: 16 to 512 states), blocks ended by the
    halo, by their most items and by heavier items, and zero weights."""
    _table_of_sequential(problem, device, block=block, local_size=local_size, presolve=False)


@pytest.mark.parametrize("value_bits", [32, 64])
def test_blocks_on_long_rows_from_each_floor(device, value_bits):
    """Rows of many tiles, light items in runs between heavy ones, zero weights and items past the
    capacity, each pass from its first item's reachable floor: the answer checked and equal to one
    item per pass, in fewer launches; by default blocks are used on a GPU where they pay (here they do:
    the 100 light items hold most of the cell updates), never elsewhere; refused with 1 item."""
    from clsolve_plugins.dp_rows.blocks import launches

    rng = np.random.default_rng(value_bits)
    weights = np.concatenate([rng.integers(1, 20_000, 30), rng.integers(0, 40, 60), [0, 0, 90_000], rng.integers(1, 300, 40)])
    problem = clsolve.Knapsack(rng.integers(1, 1000, weights.size), weights, 60_000)
    options = dict(presolve=False, value_bits=value_bits, local_size=32, poison=True)
    expected = clsolve.solve(problem, solver="dp-rows", device=device, items_per_launch=1, chain=1, **options)
    plan = clsolve.plan(problem, solver="dp-rows", device=device, block=16, chain=1, **options)
    assert plan.details["block"] == 16 and plan.details["halo_rows"] >= 1
    unblocked = clsolve.plan(problem, solver="dp-rows", device=device, block=0, chain=1, **options)
    assert plan.launches < unblocked.launches
    solution = clsolve.solve(problem, solver="dp-rows", device=device, block=16, chain=1, **options)
    assert solution.value == expected.value
    clsolve.solution.check(problem, solution)
    halo = plan.details["halo_rows"] * 32
    blocks = [
        (item, k)
        for item, k, blocked in launches([(0, problem.n)], 4, np.minimum(weights, 60_001), _blocks(16, plan.details["halo_rows"]))
        if blocked
    ]
    assert blocks and all(k >= 2 and weights[item : item + k].sum() <= halo for item, k in blocks)
    default = clsolve.plan(problem, solver="dp-rows", device=device, presolve=False).details
    assert default["block"] == (16 if device.is_gpu else 0) and (default["chain"] == 1 or not device.is_gpu)
    heavy = clsolve.Knapsack(problem.profits, np.maximum(weights, 5_000), 60_000)
    assert clsolve.plan(heavy, solver="dp-rows", device=device, presolve=False).details["block"] == 0
    from clsolve_plugins.dp_rows.blocks import pays

    wide = _blocks(16, 15, local_size=256)  # the H100's halo: 3,840 states
    assert pays(problem, wide) and not pays(heavy, wide) and not pays(problem, _blocks(16, 1))
    # most items light, but last: their rows start near the capacity and hold few of the cell updates
    tail = clsolve.Knapsack(np.ones(130, dtype=np.int64), [20_000] * 30 + [20] * 100, 60_000)
    assert not pays(tail, wide)
    with pytest.raises(clsolve.InvalidOptionError, match="block"):
        clsolve.solve(problem, solver="dp-rows", device=device, block=1)


def test_blocks_over_chunks_of_decision_rows(device, monkeypatch):
    """Decision rows in chunks of 7 items: blocks stop at each chunk's end, one launch list for all."""
    from clsolve.dp import rowstore

    rng = np.random.default_rng(9)
    problem = clsolve.Knapsack(rng.integers(1, 100, 40), rng.integers(1, 30, 40), 400)
    monkeypatch.setattr(rowstore, "rows_per_chunk", lambda rows, row_bytes, limit, multiple: 7)
    _table_of_sequential(problem, device, block=16, local_size=32, presolve=False)
    solution = clsolve.solve(problem, solver="dp-rows", device=device, block=16, presolve=False, poison=True)
    assert solution.value == clsolve.solve(problem, solver="sequential").value
    assert clsolve.plan(problem, solver="dp-rows", device=device, block=16, presolve=False).details["decision_chunks"] == 6


def _blocks(most, rows, local_size=32):
    from clsolve_plugins.dp_rows.blocks import Blocks

    return Blocks(most, rows, local_size)


def test_chain_by_default(device):
    """On a GPU short rows chain CHAIN_PASSES passes (fewer where the ring would pass CHAIN_RING_BYTES or
    a quarter of the device's memory), long rows and other devices one pass per launch; asked for, as
    asked."""
    from types import SimpleNamespace

    from clsolve_plugins.dp_rows.chain import CHAIN_PASSES, CHAIN_RING_BYTES, CHAIN_ROW, CHAIN_SHAPES, SHORT_ROW, choose

    gpu = SimpleNamespace(is_gpu=True, max_work_group_size=1024)
    cpu = SimpleNamespace(is_gpu=False, max_work_group_size=4096)
    int32 = np.dtype(np.int32)
    short, longer = choose(None, None, 10**5, int32, gpu), choose(None, None, SHORT_ROW + 1, int32, gpu)
    assert (short.passes, (short.local_size, short.split)) == (CHAIN_PASSES, CHAIN_SHAPES[True])
    assert (longer.passes, (longer.local_size, longer.split)) == (CHAIN_PASSES, CHAIN_SHAPES[False])
    assert choose(None, None, 10**5, int32, gpu, ring_bytes=3 * 4 * 10**5).passes == 1  # under the device's memory
    assert short.pitch % (32 * short.local_size) == 0 and short.pitch >= 10**5
    assert choose(None, None, CHAIN_ROW + 1, int32, gpu).passes == 1
    assert choose(None, None, 10**5, int32, cpu).passes == 1
    assert choose(7, None, CHAIN_ROW + 1, int32, cpu).passes == 7
    row = (CHAIN_ROW + 32 * CHAIN_SHAPES[False][0]) * 8
    wide = choose(None, None, CHAIN_ROW, np.dtype(np.int64), gpu)
    assert wide.passes == min(CHAIN_PASSES, CHAIN_RING_BYTES // row - 1)
    assert choose(None, 512, 10**5, int32, gpu).split == 2
    with pytest.raises(clsolve.InvalidOptionError, match="chain"):
        clsolve.solve(clsolve.Knapsack([1], [1], 1), solver="dp-rows", device=device, chain=0)


@st.composite
def one_dimension(draw, max_n=40, max_capacity=3000):
    """m = 1: zero weights, items heavier than many tiles and than the capacity, profits up to 2^40."""
    capacity = draw(st.integers(0, max_capacity))
    n = draw(st.integers(1, max_n))
    weights = draw(st.lists(st.integers(0, capacity + 3), min_size=n, max_size=n))
    profits = draw(st.lists(st.integers(0, draw(st.sampled_from([60, 2**40]))), min_size=n, max_size=n))
    return clsolve.Knapsack(profits, weights, capacity)


@SETTINGS
@given(
    problem=one_dimension(),
    stage=st.sampled_from([1, 3, 8, 16, 32]),
    local_size=st.sampled_from([1, 2, 32]),
    value_bits=st.sampled_from([32, 64]),
)
def test_pipeline_writes_the_decision_table_of_sequential(problem, device, stage, local_size, value_bits):
    """A pipeline of stages: every bit of every item and state from poisoned buffers, with tiles of 32
    states and more, items heavier than the row or than many tiles (read back from the rings), zero
    weights, a last stage of fewer items, 32- and 64-bit values."""
    if value_bits == 32 and int(problem.profits.sum()) >= 2**31:
        value_bits = 64
    _table_of_sequential(problem, device, pipeline=stage, local_size=local_size, value_bits=value_bits)


@pytest.mark.parametrize("stage", [1, 4, 16])
def test_pipeline_over_launches_and_chunks_of_decision_rows(device, monkeypatch, stage):
    """Launches of 9 items (the rows' slots alternating across them) in chunks of 20 decision rows;
    the answer checked and equal to sequential's."""
    from clsolve.dp import rowstore
    from clsolve_plugins.dp_rows import pipeline

    rng = np.random.default_rng(stage)
    problem = clsolve.Knapsack(rng.integers(1, 100, 45), rng.integers(0, 900, 45), 3000)
    monkeypatch.setattr(pipeline, "LAUNCH_ITEMS", 9)
    monkeypatch.setattr(rowstore, "rows_per_chunk", lambda rows, row_bytes, limit, multiple: 20)
    solver = RowParallelSolver(poison=True, presolve=False, pipeline=stage, local_size=2)
    plan = checked.plan(solver, problem, device)
    assert plan.details["pipeline"] == stage and plan.details["decision_chunks"] == 3
    assert plan.launches == 3 + 3 + 1 + 3  # launches of 9, 9, 2 | 9, 9, 2 | 5, and the trace-backs
    solution = solver.solve(problem, device, plan)
    assert solution.value == clsolve.solve(problem, solver="sequential").value
    assert solution.stats["pipeline"] == stage and "pipeline of stages" in solution.notes[0]
    clsolve.solution.check(problem, solution)


def test_pipeline_by_default(device):
    """On a GPU rows of at most PIPELINE_ROW states (m = 1) run as a pipeline unless passes are asked
    for; the rings take what the heaviest item that fits needs, and the work-groups fit the budget."""
    from types import SimpleNamespace

    from clsolve_plugins.dp_rows.pipeline import PIPELINE_ROW, RINGS_SHARE, SHAPE, STAGE_ITEMS, choose

    gpu = SimpleNamespace(is_gpu=True, max_work_group_size=1024, compute_units=132, local_memory=49152)
    cpu = SimpleNamespace(is_gpu=False, max_work_group_size=4096, compute_units=2, local_memory=262144)
    int32 = np.dtype(np.int32)
    problem = clsolve.Knapsack(np.ones(2000, dtype=np.int64), np.r_[np.full(1999, 5000), 10**9], 10**5)
    assert choose(None, problem, int32, gpu, 256, 2**34) is None  # a tile of 8,192 states: local memory
    found = choose(None, problem, int32, gpu, None, 2**34)
    tile = 32 * SHAPE[0]
    assert (found.stage, found.local_size, found.split) == (STAGE_ITEMS[4], *SHAPE)
    assert found.ring == -(-(5000 + tile) // tile) * tile and found.pitch >= 10**5 + 1
    assert found.groups == min(-(-2000 // found.stage), -(-(10**5 + 1) // tile) + 1)
    few = clsolve.Knapsack(np.ones(1000, dtype=np.int64), np.full(1000, 5000), 10**5)
    assert choose(None, few, int32, gpu, None, 2**34) is None  # 63 stages, 196 tiles: chained pairs
    assert choose(16, few, int32, gpu, None, 2**34) is not None
    assert choose(None, problem, int32, cpu, None, 2**34) is None
    assert choose(4, problem, int32, cpu, None, 2**34).groups == 2
    assert choose(0, problem, int32, gpu, None, 2**34) is None
    longer = clsolve.Knapsack([1, 1], [1, 1], PIPELINE_ROW)
    assert choose(None, longer, int32, gpu, None, 2**34) is None
    small = choose(None, problem, int32, gpu, None, int(2 * found.stage * found.ring * 4 / RINGS_SHARE))
    assert small.groups == 2  # the rings' budget
    two = clsolve.Knapsack([1, 1], [[1, 1], [1, 1]], [10, 10], weights_by="item")
    assert choose(8, two, int32, gpu, None, 2**34) is None  # m = 1 only
    with pytest.raises(clsolve.InvalidOptionError, match="pipeline"):
        clsolve.solve(clsolve.Knapsack([1], [1], 1), solver="dp-rows", device=device, pipeline=33)
    heavy = clsolve.Knapsack(np.ones(400, dtype=np.int64), 1000 + np.arange(400), 20_000)  # no block of 4 fits a halo
    plan = clsolve.plan(heavy, solver="dp-rows", device=device, presolve=False)
    assert plan.details["pipeline"] == (STAGE_ITEMS[4] if device.is_gpu else 0)
    asked = clsolve.plan(clsolve.Knapsack([1, 2], [1, 2], 1000), solver="dp-rows", device=device, presolve=False, chain=2)
    assert asked.details["pipeline"] == 0 and asked.details["chain"] == 2


@st.composite
def light_last(draw):
    """m = 1, capacities of several tiles (local size 32: 1,024 states a tile), heavy items first and
    light ones last, so that the rows' reachable floors climb across tiles; zero weights and items
    heavier than the capacity (presolve off) among them."""
    n = draw(st.integers(1, 30))
    capacity = draw(st.integers(0, 6000))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    weights = np.sort(rng.integers(0, max(2, capacity // 3), n))[::-1].copy()
    if draw(st.booleans()):
        weights[rng.integers(0, n)] = capacity + 1 + rng.integers(0, 5)
    return clsolve.Knapsack(rng.integers(0, 500, n), weights, capacity)


@SETTINGS
@given(problem=light_last(), per_launch=st.integers(1, 4), store=st.sampled_from(["device", "host"]))
def test_rows_from_their_reachable_floor_match_sequential(problem, device, per_launch, store):
    """Each pass launches the tiles from the one holding C - (the weight of the items after it): the
    states below are never read back, on the device's trace-back or the host's."""
    solver = RowParallelSolver(poison=True, items_per_launch=per_launch, presolve=False, chain=1, local_size=32, store=store)
    solution = solver.solve(problem, device, checked.plan(solver, problem, device))
    assert solution.value == clsolve.solve(problem, solver="sequential").value
    clsolve.solution.check(problem, solution)


def test_reachable_floors_shorten_the_plan():
    """Light items last: the plan counts only the states from each pass's first tile on."""
    from clsolve.dp.table import reachable_floors

    assert reachable_floors(clsolve.Knapsack([5] * 6, [900, 800, 700, 30, 20, 10], 1000)).tolist() == [
        0,
        240,
        940,
        970,
        990,
        1000,
    ]
    problem = clsolve.Knapsack([7] * 55, [30_000] * 5 + [10] * 50, 100_000)
    device = clsolve.runtime.devices.get_device(None)
    plan = clsolve.plan(problem, "dp-rows", device, presolve=False, chain=1, items_per_launch=1, local_size=32)
    assert plan.cell_updates < 0.2 * problem.n * problem.cells()


@SETTINGS
@given(problem=knapsacks(big_profits=True))
def test_value_bound_is_never_below_the_optimum_nor_a_profit(problem):
    assert value_bound(problem) >= brute_force(problem)
    assert value_bound(problem) >= int(problem.profits.max())


@pytest.mark.parametrize("per_launch", [1, 2, 4])
def test_32_bit_values_where_the_lp_bound_fits_though_the_profits_do_not(device, per_launch):
    """Profits summing to about 6e9 but at most ~15 of 60 items fit: every state is a feasible set's
    profit, below the LP bound, so 32-bit values suffice and the answer is exact."""
    rng = np.random.default_rng(7)
    for m in (1, 2):
        weights = rng.integers(100, 1000, (60, m))
        profits = 10**8 + rng.integers(0, 10**6, 60)
        problem = clsolve.Knapsack(profits, weights, [5000] * m, weights_by="item")
        assert problem.total_profit > 2**31 and value_bound(problem) < 2**31
        plan = clsolve.plan(problem, solver="dp-rows", device=device, items_per_launch=per_launch)
        assert plan.details["value_type"] == "int"
        solution = clsolve.solve(problem, solver="dp-rows", device=device, poison=True, items_per_launch=per_launch)
        assert solution.value == clsolve.solve(problem, solver="dp-rows", device=device, value_bits=64).value
        if m == 1:
            assert solution.value == clsolve.solve(problem, solver="sequential").value
            assert solution.value == clsolve.solve(problem, solver="wavefront", device=device).value


def test_values_that_need_64_bits(device):
    profits = [2**40 + 1, 2**40 + 3, 2**41, 7]
    problem = clsolve.Knapsack(profits, [3, 4, 6, 1], 8)
    solution = clsolve.solve(problem, solver="dp-rows", device=device, poison=True)
    assert solution.value == brute_force(problem) == 2**41 + 11
    assert solution.notes and solution.notes[0].startswith("long")


def test_edge_cases(device):
    cases = [
        clsolve.Knapsack([5, 6], [0, 0], 0),  # capacity 0, zero-weight items all fit
        clsolve.Knapsack([5, 6], [9, 10], 3),  # nothing fits
        clsolve.Knapsack([0, 0], [1, 1], 3),  # zero profits
        clsolve.Knapsack([4], [[1, 2, 3]], [1, 2, 3]),  # exactly fits in 3 dimensions
    ]
    for problem in cases:
        for solver in ("dp-rows", "sequential"):
            assert clsolve.solve(problem, solver=solver, device=device).value == brute_force(problem)


def test_local_size_and_forced_value_bits(device):
    rng = np.random.default_rng(7)
    problem = clsolve.Knapsack(rng.integers(1, 100, 40), rng.integers(1, 50, 40), 700)
    expected = clsolve.solve(problem, solver="sequential").value
    for local_size in (1, 32, 64):
        for bits in (32, 64):
            for per_launch in (1, 2, 3, 4):
                assert (
                    clsolve.solve(
                        problem,
                        solver="dp-rows",
                        device=device,
                        local_size=local_size,
                        value_bits=bits,
                        items_per_launch=per_launch,
                        poison=True,
                    ).value
                    == expected
                )


# items per chunk -> chunks of 25 items, all packed into one device buffer at 256-byte aligned
# offsets (the kernels' decisions_offset); 3 leaves a single item at the end of every chunk
@pytest.mark.parametrize("items, chunks", [(4, 7), (3, 9)])
@pytest.mark.parametrize("per_launch", [1, 2, 3, 4])
def test_decision_rows_in_chunks_at_offsets(device, monkeypatch, items, chunks, per_launch):
    from clsolve.dp import rowstore

    rng = np.random.default_rng(3)
    problem = clsolve.Knapsack(rng.integers(1, 100, 25), rng.integers(1, 60, 25), 3000)
    solver = RowParallelSolver(poison=True, items_per_launch=per_launch, presolve=False)
    monkeypatch.setattr(rowstore, "rows_per_chunk", lambda rows, row_bytes, limit, multiple: items)
    plan = checked.plan(solver, problem, device)
    assert plan.details["decision_chunks"] == chunks and plan.details["store"] == "device"
    assert [name for name in plan.device_buffers if name.startswith("decisions")] == ["decisions"]
    solution = solver.solve(problem, device, plan)
    assert solution.value == clsolve.solve(problem, solver="sequential").value
    clsolve.solution.check(problem, solution)


@SETTINGS
@given(problem=knapsacks(max_n=40, max_capacity=120), items=st.integers(1, 40))
def test_trace_back_takes_the_items_of_sequentials_walk(problem, device, items):
    """The device's trace-back (8 items a round, each read at every state the walk may reach) takes
    exactly the items of sequential's walk over the same decision table, with chunks of decision rows
    ending anywhere in a round."""
    from unittest import mock

    from clsolve.dp import rowstore

    reference = SequentialSolver()  # its own walk: the engine answers a problem presolve settles alone
    expected = reference.solve(problem, None, reference.plan(problem))
    with mock.patch.object(rowstore, "rows_per_chunk", lambda rows, row_bytes, limit, multiple: items):
        solution = clsolve.solve(problem, solver="dp-rows", device=device, poison=True, presolve=False, items_per_launch=1)
    np.testing.assert_array_equal(solution.selected, expected.selected)


@pytest.mark.parametrize("m", [1, 2])
def test_trace_back_through_windows_of_weights(device, m):
    """More items than the trace-back's window of weights (128), two dimensions included."""
    rng = np.random.default_rng(m)
    n = 300
    capacities = [600] if m == 1 else [60, 40]
    weights = np.stack([rng.integers(0, c // 6, n) for c in capacities], axis=1)
    problem = clsolve.Knapsack(rng.integers(1, 500, n), weights, capacities, weights_by="item")
    expected = clsolve.solve(problem, solver="sequential")
    solution = clsolve.solve(problem, solver="dp-rows", device=device, poison=True, presolve=False)
    assert solution.value == expected.value
    np.testing.assert_array_equal(solution.selected, expected.selected)


def test_rows_per_chunk_keeps_pairs_whole():
    from clsolve.dp.rowstore import chunk_rows, rows_per_chunk

    assert rows_per_chunk(25, 100, 500, multiple=2) == 4
    assert rows_per_chunk(25, 100, 10**6, multiple=2) == 25
    assert rows_per_chunk(25, 100, 150, multiple=2) == 1  # one row per allocation: singles
    assert chunk_rows(25, 4)[-1] == (24, 1) and len(chunk_rows(25, 4)) == 7


@given(
    count=st.integers(0, 40),
    size=st.sampled_from([0, 1, 100, 256, 300, 1000, 5000]),
    last=st.integers(0, 10**4),
    limit=st.sampled_from([1, 255, 256, 1000, 4096, 10**4]),
)
def test_buffer_sizes_match_pack(count, size, last, limit):
    """The closed form a plan uses gives the buffers ``pack`` lays out, last chunk of any size included."""
    from clsolve.dp.rowstore import buffer_sizes, pack

    chunks = [size] * count + [last]
    assert buffer_sizes(chunks, limit) == pack(chunks, limit)[1]


@SETTINGS
@given(problem=knapsacks(max_n=30, max_capacity=400))
def test_decision_rows_streamed_to_host_match_sequential(problem, device):
    """Rows streamed through the ring (chunks of a few rows, more chunks than ring slots) and walked
    back on the host, from poisoned buffers, for every dimension count the strategy draws."""
    from clsolve.dp import rowstore
    from clsolve.dp.table import DecisionLayout

    solver = RowParallelSolver(poison=True, presolve=False, store="host")
    original = rowstore.HOST_CHUNK_BYTES
    try:
        local_size = int(checked.plan(solver, problem, device).details["local_size"])
        rowstore.HOST_CHUNK_BYTES = 3 * DecisionLayout(problem.cells(), local_size).row_bytes
        solution = solver.solve(problem, device, checked.plan(solver, problem, device))
        clsolve.solution.check(problem, solution)
        values, packed = SequentialSolver().decisions(problem)
        expected = np.unpackbits(packed, axis=1)[:, : problem.cells()].astype(bool)
        value, table = solver.decisions(problem, device)
    finally:
        rowstore.HOST_CHUNK_BYTES = original
    assert solution.value == value == values[-1] and solution.stats["store"] == "host"
    np.testing.assert_array_equal(table, expected)


def test_device_memory_limit_streams_the_rows_and_says_so(device):
    rng = np.random.default_rng(5)
    problem = clsolve.Knapsack(rng.integers(1, 100, 60), rng.integers(1, 60, 60), 20_000)
    wide = clsolve.plan(problem, solver="dp-rows", device=device, presolve=False, chain=2)
    assert wide.details["store"] == "device" and not wide.host_buffers
    decisions = sum(size for name, size in wide.device_buffers.items() if name.startswith("decisions"))
    narrow = clsolve.plan(
        problem, solver="dp-rows", device=device, presolve=False, chain=2, device_memory_limit=wide.device_bytes - decisions // 2
    )
    assert narrow.details["store"] == "host" and narrow.host_buffers["decisions"] >= decisions
    solution = clsolve.solve(
        problem, solver="dp-rows", device=device, presolve=False, chain=2, device_memory_limit=wide.device_bytes - decisions // 2
    )
    assert solution.value == clsolve.solve(problem, solver="sequential").value
    assert solution.stats["store"] == "host" and "kept on the host" in solution.notes[0]


def test_decision_rows_refused_with_numbers_when_nothing_holds_them(device):
    problem = clsolve.Knapsack(list(range(1, 201)), list(range(1, 201)), 50_000)
    with pytest.raises(clsolve.DoesNotFitError, match=r"decision rows: the trace-back needs .* more than this host allows"):
        clsolve.plan(
            problem, solver="dp-rows", device=device, presolve=False, device_memory_limit=1_000_000, host_memory_limit=10**5
        )
    with pytest.raises(clsolve.DoesNotFitError, match="does not fit"):
        clsolve.plan(problem, solver="dp-rows", device=device, presolve=False, store="device", device_memory_limit=1_000_000)
