"""dp-states ([Pisinger97] on the device): random instances against brute force and sequential with
poisoned buffers, with and without fixing and at several work-group sizes; lists longer than a block
of levels (items walked back through the block records); lists past max_states, the records' memory
limit and time limits (anytime answers that bracket the optimum); capacities near 2^62; Jooken-style
and Pisinger instances against dense DP and published optima."""

import time

import numpy as np
import pytest
from conftest import brute_force
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import clsolve
from clsolve.generators import jooken, pisinger
from clsolve.io import formats
from clsolve_plugins.dp_states.core import Core
from clsolve_plugins.dp_states.records import BLOCK, Records

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@st.composite
def small(draw, max_n=14):
    n = draw(st.integers(1, max_n))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    spread = draw(st.sampled_from([3, 60, 10**6]))
    weights = rng.integers(0 if spread > 3 else 1, spread, n)
    kind = draw(st.sampled_from(["uncorrelated", "strong", "equal"]))
    profits = {"uncorrelated": rng.integers(0, spread, n), "strong": weights + spread // 10, "equal": weights.copy()}[kind]
    capacity = draw(st.integers(0, int(weights.sum()) + 3))
    return clsolve.Knapsack(profits, weights, capacity)


@SETTINGS
@given(
    problem=small(), fixing=st.booleans(), local_size=st.sampled_from([None, 32, 64]), host_states=st.sampled_from([0, 2, 4096])
)
def test_random_instances_match_brute_force(problem, fixing, local_size, host_states, device):
    """On the device (host_states = 0), on the host, and moving between them (2)."""
    solution = clsolve.solve(
        problem, solver="dp-states", device=device, poison=True, fixing=fixing, local_size=local_size, host_states=host_states
    )
    assert solution.optimal and solution.value == brute_force(problem)


@pytest.mark.parametrize("kind", ["uncorrelated", "weak", "strong", "subset"])
def test_longer_than_a_block_matches_sequential(kind, device):
    """Several blocks of levels: the incumbent's items walk back through the block records."""
    rng = np.random.default_rng(3)
    n = 3 * BLOCK + 17
    weights = rng.integers(1, 400, n)
    profits = {
        "uncorrelated": rng.integers(1, 400, n),
        "weak": np.maximum(1, weights + rng.integers(-40, 41, n)),
        "strong": weights + 40,
        "subset": weights.copy(),
    }[kind]
    problem = clsolve.Knapsack(profits, weights, int(weights.sum()) // 3)
    expected = clsolve.solve(problem, solver="sequential").value
    for fixing, host_states, relaxation in (
        (True, 0, 0),
        (False, 0, 0),
        (False, 64, 0),
        (False, 4096, 0),
        (False, 0, 97),
        (True, 64, 2**20),
    ):
        solution = clsolve.solve(
            problem,
            solver="dp-states",
            device=device,
            poison=True,
            fixing=fixing,
            host_states=host_states,
            relaxation=relaxation,
            relaxation_states=0,
            strengthen=0,  # equal items grouped as 1, 2, 4, ... copies would be proved at once by their bound
        )
        assert solution.optimal and solution.value == expected
        if not fixing and not relaxation and kind != "subset":  # subset sums: an exact fill is found at once
            assert solution.stats["levels"] > BLOCK


def test_block_records_on_the_device_in_host_memory_and_both(device):
    """Records kept on the device (the default), in host memory (device_records = 0), and both (a share
    that holds part of them): the walk back reads each, and the items are the optimum's."""
    rng = np.random.default_rng(4)
    n = 3 * BLOCK + 17
    weights = rng.integers(1, 400, n)
    problem = clsolve.Knapsack(weights + 40, weights, int(weights.sum()) // 3)  # strongly correlated
    expected = clsolve.solve(problem, solver="sequential").value
    options = {"solver": "dp-states", "device": device, "poison": True, "fixing": False, "host_states": 0, "relaxation": 0}
    options["strengthen"] = 0  # its equal items as copies: the strengthened incumbent would prove it at once
    everywhere = clsolve.solve(problem, **options)
    total = everywhere.stats["record_bytes"]
    assert total > 0 and everywhere.stats["device_record_bytes"] == total
    for share in (0, total // 2):
        solution = clsolve.solve(problem, device_records=share, **options)
        assert solution.optimal and solution.value == expected == everywhere.value
        assert solution.stats["record_bytes"] == total and solution.stats["device_record_bytes"] <= share
        assert (solution.stats["device_record_bytes"] > 0) == (share > 0)


@SETTINGS
@given(problem=small(), fixing=st.booleans(), relaxation=st.sampled_from([1, 2, 3, 7, 64, 2**20]))
def test_rounded_relaxation_matches_brute_force(problem, fixing, relaxation, device):
    """Lists on the device bounded by the rounded relaxation's rows, grains from 1 (exact) to past the
    capacity (every weight rounds to 0), weights that round past the row."""
    solution = clsolve.solve(
        problem,
        solver="dp-states",
        device=device,
        poison=True,
        fixing=fixing,
        host_states=0,
        relaxation=relaxation,
        relaxation_states=0,
    )
    assert solution.optimal and solution.value == brute_force(problem)


def test_rounded_relaxation_prunes_what_dantzig_keeps(device):
    """Weights in groups around C / 2^k (Jooken et al.): the rows see which sums of weights exist."""
    problem = jooken(120, 10**8, 6, 0.2, 0.0, 100, seed=1)
    plain = clsolve.solve(problem, solver="dp-states", device=device, host_states=0, relaxation=0)
    relaxed = clsolve.solve(
        problem, solver="dp-states", device=device, host_states=0, relaxation=2**12, relaxation_states=0, poison=True
    )
    assert plain.optimal and relaxed.optimal and relaxed.value == plain.value
    assert relaxed.stats["states_made"] < 0.8 * plain.stats["states_made"]
    assert relaxed.stats["relaxed_grain"] == -(-(10**8 + 1) // 2**12)


def test_rounded_relaxation_rows_fit_their_memory():
    from clsolve_plugins.dp_states.relaxed import Shape

    shape = Shape.of(10**10, 1200, 2**20, 2**30)
    assert shape.width <= 2**20 and (shape.width - 1) * shape.grain <= 10**10 < shape.width * shape.grain
    assert shape.nbytes <= 2**30 and shape.stride == 16
    tiny = Shape.of(10**10, 1200, 2**20, 2**20)  # a memory share smaller than three rows: narrower rows
    assert tiny.nbytes <= 2**20 and tiny.width <= 2**20 // 24
    assert Shape.of(100, 10, 2**20, 2**30).grain == 1  # small capacities: the exact DP
    assert Shape.of(10**10, 2000, 2**22, 2**40, cells=2**32).width <= 2**32 // 2000  # many items: narrower rows


def test_first_level_on_a_device_does_not_set_the_time_model(monkeypatch, device):
    """The first level of a place may build its kernels (PoCL compiles at the first launch): it must
    not make the search stop far ahead of its time limit."""
    import time

    from clsolve_plugins.dp_states.device import DeviceLists

    level, calls = DeviceLists.level, []

    def slow_first(self, *args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            time.sleep(0.5)
        return level(self, *args, **kwargs)

    monkeypatch.setattr(DeviceLists, "level", slow_first)
    problem = _hard(200)
    solution = clsolve.solve(problem, solver="dp-states", device=device, host_states=0, fixing=False, relaxation=0, time_limit=8)
    assert solution.optimal and len(calls) > 2


@pytest.mark.parametrize(
    ("place", "method", "device_records"), [("host", "record", None), ("device", "record", 0), ("device", "device_record", None)]
)
def test_a_slow_record_is_counted_before_the_level_that_ends_its_block(monkeypatch, device, place, method, device_records):
    """A block's record (a copy of the list to host memory, or within the device's) follows the level
    that ends the block: once a record has shown its cost, a level whose record would end past the
    limit is not started."""
    import time

    from clsolve_plugins.dp_states.device import DeviceLists
    from clsolve_plugins.dp_states.host import HostLists

    kind = DeviceLists if place == "device" else HostLists
    record, calls = getattr(kind, method), []
    options = {
        "host_states": 0 if place == "device" else 2**40,
        "fixing": False,
        "relaxation": 0,
        "descent": False,
        "strengthen": 0,
        "device_records": device_records,
    }
    clsolve.solve(_hard(400), solver="dp-states", device=device, **options)  # kernels built beforehand

    def slow(self):
        calls.append(1)
        time.sleep(0.7)
        return record(self)

    monkeypatch.setattr(kind, method, slow)
    problem = _hard(400)  # made before the clock starts: the limit is the solve's
    began = time.perf_counter()
    solution = clsolve.solve(problem, solver="dp-states", device=device, time_limit=1.2, **options)
    assert time.perf_counter() - began <= 1.2 + 0.12  # the deadline's margin: max(10 %, 50 ms)
    assert len(calls) == 1 and not solution.optimal and solution.value <= solution.bound


def test_records_walk_back_across_blocks():
    """A state at level 2 * BLOCK + 3 whose ancestors toggled levels 5, BLOCK + 1 and 2 * BLOCK + 3."""
    records = Records()
    records.add(np.array([0, 1 << 4], np.uint64), np.array([0, 0], np.uint32))  # end of block 0
    records.add(np.array([1, 0, 0], np.uint64), np.array([1, 0, 0], np.uint32))  # end of block 1
    toggled = records.toggled(2 * BLOCK + 3, 1 << 2, 0)
    assert sorted(toggled) == [5, BLOCK + 1, 2 * BLOCK + 3]


def test_core_grows_around_the_break_item():
    problem = clsolve.Knapsack([10, 9, 8, 7, 6], [1, 1, 1, 1, 1], 2)
    core = Core.of(problem)
    assert core.breaking == 2 and core.start() == (2, 19)
    items = [(lvl.item, lvl.add) for lvl in (core.advance() for _ in range(5))]
    assert items == [(2, True), (1, False), (3, True), (0, False), (4, True)] and core.done()


@pytest.mark.parametrize("scale", [10**9, 2**40, 2**58])
def test_capacities_no_dense_dp_can_hold(scale, device):
    rng = np.random.default_rng(5)
    small_weights = rng.integers(1, 40, 14)
    weights = small_weights * (scale // 64) + rng.integers(0, 7, 14)
    profits = rng.integers(1, 10**6, 14)
    problem = clsolve.Knapsack(profits, weights, int(weights.sum()) // 2)
    for host_states in (0, 4096):
        solution = clsolve.solve(problem, solver="dp-states", device=device, poison=True, host_states=host_states)
        assert solution.optimal and solution.value == brute_force(problem)


def test_capacity_near_two_to_the_62(device):
    c = 2**62 - 5
    problem = clsolve.Knapsack([2**60, 2**60 - 1, 2**59, 3], [2**61, 2**61 + 1, 2**60 + 7, 2], c)
    for host_states in (0, 4096):
        solution = clsolve.solve(problem, solver="dp-states", device=device, host_states=host_states)
        assert solution.optimal and solution.value == brute_force(problem)


def test_host_and_device_levels_agree_state_for_state(device):
    """One level at a time on both sides, from the same list: the same states, bounds and best."""
    from clsolve_plugins.dp_states.device import DeviceLists
    from clsolve_plugins.dp_states.host import HostLists

    problem = _hard(200, seed=4)
    core, twin = Core.of(problem), Core.of(problem)
    start = core.start()
    host = HostLists(np.array([start[0]]), np.array([start[1]]), np.zeros(1, np.uint64), np.zeros(1, np.uint32))
    lists = DeviceLists(device, 64, 2**16, poison=True)
    lists.upload(host.fields())
    best = core.greedy()[0]
    for number in range(1, 40):
        level, _ = core.advance(), twin.advance()
        reset, flag = (number - 1) % BLOCK == 0, 1 << ((number - 1) % BLOCK)
        on_host = host.level(core, level, best, reset, flag)
        on_device = lists.level(twin, level, best, reset, flag)
        assert (on_host.count, on_host.best) == (on_device.count, on_device.best)
        assert on_host.top >= on_device.top >= on_host.top - 2**-40 * abs(on_host.top) - 3
        for mine, theirs in zip(host.fields(), lists.download()):
            np.testing.assert_array_equal(mine, theirs)
        best = max(best, on_host.best)
        if not host.count:
            break


def test_sums_past_two_to_the_62_are_refused(device):
    problem = clsolve.Knapsack([2**61, 2**61, 2**61], [2, 3, 4], 8)
    with pytest.raises(clsolve.UnsupportedProblemError, match="profits below 2\\^62"):
        clsolve.solve(problem, solver="dp-states", device=device)


def _hard(n=300, seed=1):
    return jooken(n, 10**6, 10, 0.2, 0.001, 100, seed=seed)


def test_list_past_max_states_stops_with_a_bracketing_answer(device):
    problem = _hard()
    optimum = clsolve.solve(problem, solver="dp-rows", device=device).value
    solution = clsolve.solve(problem, solver="dp-states", device=device, max_states=64, fixing=False)
    assert not solution.optimal and solution.value <= optimum <= solution.bound
    assert any("max_states = 64" in note for note in solution.notes)


def test_records_past_memory_limit_stop_with_a_bracketing_answer(device):
    problem = _hard(600)
    optimum = clsolve.solve(problem, solver="dp-rows", device=device).value
    solution = clsolve.solve(problem, solver="dp-states", device=device, memory_limit=2**16, fixing=False, device_records=0)
    assert not solution.optimal and solution.value <= optimum <= solution.bound
    assert any("memory_limit" in note for note in solution.notes)


@pytest.mark.parametrize("seconds", [0.0, 0.05])
def test_time_limit_returns_a_checked_answer_and_a_bound(seconds, device):
    problem = _hard(600)
    optimum = clsolve.solve(problem, solver="dp-rows", device=device).value
    solution = clsolve.solve(problem, solver="dp-states", device=device, time_limit=seconds)
    assert solution.value <= optimum <= solution.bound
    if not solution.optimal:
        assert any("time limit" in note for note in solution.notes)


def test_the_relaxation_rows_of_many_items_keep_the_time_limit(device):
    """3,000 items: the rounded relaxation's DP takes a launch per item (PoCL: about 1.8 s), paced
    under the limit; the search answers with its bound in time, with or without the rows."""
    from clsolve.runtime.deadline import Deadline

    weights = np.random.default_rng(1).integers(1, 10**6, 3000)
    problem = clsolve.Knapsack(weights + 100, weights, int(weights.sum()) // 2)
    clsolve.solve(clsolve.Knapsack([3, 4], [2, 3], 4), solver="dp-states", device=device, host_states=0)  # kernels built
    for limit in (0.3, 1.0):
        for _attempt in range(2):  # a late first run may be PoCL building a kernel at its first launch: late twice fails
            began = time.perf_counter()
            solution = clsolve.solve(problem, solver="dp-states", device=device, time_limit=limit)
            late = time.perf_counter() - began > limit + Deadline(limit).margin
            assert solution.bound is None or solution.bound >= solution.value
            if not late:
                break
        assert not late


@pytest.mark.parametrize("seed", [1, 2])
def test_jooken_style_matches_dense_dp(seed, device):
    problem = jooken(120, 10**5, 6, 0.2, 0.0, 60, seed=seed)
    expected = clsolve.solve(problem, solver="dp-rows", device=device).value
    solution = clsolve.solve(problem, solver="dp-states", device=device, poison=True)
    assert solution.optimal and solution.value == expected


@pytest.mark.parametrize("family", ["uncorrelated", "weakly", "almost-strongly", "similar-weights"])
def test_pisinger_families_at_large_ranges_match_bnb(family, device):
    problem = pisinger(family, 400, 10**9, seed=2)
    solution = clsolve.solve(problem, solver="dp-states", device=device, poison=True)
    reference = clsolve.solve(problem, solver="bnb", device=device, time_limit=60)
    assert solution.optimal
    assert solution.value == reference.value if reference.optimal else solution.value <= reference.bound


def test_jooken_development_sample_to_its_optimum(data, device):
    folder = data / "kp01" / "jooken-dev"
    name = "n_1000_c_10000000000_g_2_f_0.1_eps_0_s_200"
    path = folder / f"{name}.in"
    if not path.exists():
        pytest.skip(f"{path} not present")
    problem = formats.read_jooken(str(path), path.read_text())[0]
    solution = clsolve.solve(problem, solver="dp-states", device=device)
    assert solution.optimal and solution.value == 5000009608


def _multi_class(n, classes, seed):
    """[HC22]'s Table 2 shape: random weights in 1..1000, values from a few classes, C = sum / 10."""
    rng = np.random.default_rng(seed)
    weights = rng.integers(1, 1001, n)
    values = rng.choice(np.arange(1, 10**6 + 1), size=classes, replace=False)
    return clsolve.Knapsack(values[rng.integers(0, classes, n)], weights, int(weights.sum()) // 10)


def test_probe_estimates_short_lists_from_its_own_levels(device):
    """Random multi-class lists shrink after their first levels: the plan's probe sees it and
    estimates from its measured levels, below the open-gap model; the estimate is what auto compares."""
    from clsolve_plugins.dp_states.probe import PROBE_LEVELS, probe
    from clsolve_plugins.dp_states.solver import LEVEL_SECONDS, OPEN_GAP_MARGIN

    problem = _multi_class(20000, 1000, seed=3)
    plan = clsolve.plan(problem, solver="dp-states", device=device)
    seen = plan.details["probe"]
    assert seen["short"] and not seen["finished"] and seen["levels"] <= PROBE_LEVELS
    kind = "gpu" if device.is_gpu else "other"
    assert plan.seconds < plan.cell_updates * LEVEL_SECONDS[kind] * OPEN_GAP_MARGIN
    staged = _stages(problem)
    assert probe(staged.searched, staged.floor, 4096) is probe(staged.searched, staged.floor, 4096)  # once a problem
    solution = clsolve.solve(problem, solver="dp-states", device=device)
    assert solution.optimal and solution.stats["levels"] > seen["levels"]


def test_probe_of_growing_lists_keeps_the_open_gap_model(device):
    """Jooken-style lists grow through the probe: it does not count as short, and the plan keeps the
    margin for an open gap."""
    from clsolve_plugins.dp_states.solver import LEVEL_SECONDS, OPEN_GAP_MARGIN

    problem = jooken(400, 10**10, 10, 0.2, 1e-5, 100, seed=1)
    plan = clsolve.plan(problem, solver="dp-states", device=device)
    assert plan.details["root_gap"] > 0 and not plan.details["probe"]["short"]
    kind = "gpu" if device.is_gpu else "other"
    assert plan.seconds == pytest.approx(plan.cell_updates * LEVEL_SECONDS[kind] * OPEN_GAP_MARGIN + 0.001)


def test_probe_that_ends_the_search_is_the_estimate(monkeypatch):
    """A core of fewer items than the probe's levels is searched to its end within the probe, and the
    estimate is the probe's own time."""
    from clsolve_plugins.dp_states import probe as probing

    monkeypatch.setattr(probing, "PROBE_SECONDS", 60.0)
    rng = np.random.default_rng(5)
    weights = rng.integers(1, 1000, 20)
    problem = clsolve.Knapsack(rng.integers(1, 1000, 20), weights, int(weights.sum()) // 2)
    seen = probing.probe(problem, -1, 4096)
    assert seen.finished and seen.short and seen.levels <= 20
    assert seen.estimate() == pytest.approx(seen.seconds)  # the solve repeats the probe's levels


def _stages(problem):
    from clsolve.dp.fixing import stages

    return stages(problem, True, True)


@SETTINGS
@given(
    problem=small(),
    split=st.sampled_from([1, 2, 256]),
    host_states=st.sampled_from([0, 4096]),
    states=st.sampled_from([1, 8, 2**25]),
)
def test_descent_matches_brute_force(problem, split, host_states, states, device):
    """Guessed incumbents from any gap (DESCENT_GAP 0): each failed guess proves a smaller bound, the
    last is the plain search; a guess past its budget of states gives way to the plain search."""
    from clsolve_plugins.dp_states import descent as solver

    gap, old_split, budget = solver.DESCENT_GAP, solver.DESCENT_SPLIT, dict(solver.DESCENT_STATES)
    solver.DESCENT_GAP, solver.DESCENT_SPLIT = 0, split
    solver.DESCENT_STATES.update(gpu=states, other=states)
    try:
        solution = clsolve.solve(problem, solver="dp-states", device=device, poison=True, fixing=False, host_states=host_states)
    finally:
        solver.DESCENT_GAP, solver.DESCENT_SPLIT = gap, old_split
        solver.DESCENT_STATES.update(budget)
    assert solution.optimal and solution.value == brute_force(problem)
    assert solution.bound in (None, solution.value)


def test_descent_proves_what_the_plain_search_proves(device):
    problem = jooken(200, 10**8, 6, 0.2, 0.0, 100, seed=1)
    plain = clsolve.solve(problem, solver="dp-states", device=device, descent=False, relaxation=0)
    descended = clsolve.solve(problem, solver="dp-states", device=device, relaxation=0)
    assert plain.optimal and descended.optimal and descended.value == plain.value
    assert descended.stats["descent_guesses"] and any("descent:" in note for note in descended.notes)


@SETTINGS
@given(problem=small(), width=st.sampled_from([1, 3, 16, 2**20]))
def test_the_relaxed_root_bound_is_at_least_the_optimum(problem, width, device):
    """The rounded relaxation's bound of the whole problem, from rows of ``width`` entries (grain 1 at
    2^20: the exact optimum)."""
    from clsolve_plugins.dp_states.solver import StateListSolver

    rows = StateListSolver(relaxation=width, poison=True)._rows(problem, clsolve.get_device(device))
    bound = rows.root_bound()
    rows.release()
    optimum = brute_force(problem)
    assert bound is not None and bound >= optimum
    if width == 2**20:
        assert bound == optimum


def test_the_descent_guesses_below_the_relaxed_bound(device):
    """Where the rounded relaxation's bound is below Dantzig's, the guesses start below it (Jooken et
    al.'s groups: the optimum lies far below Dantzig's bound)."""
    from clsolve_plugins.dp_states.solver import StateListSolver

    problem = jooken(200, 10**8, 10, 0.2, 1e-5, 100, seed=1)
    searched = _stages(problem).searched
    rows = StateListSolver()._rows(searched, clsolve.get_device(device))
    relaxed = rows.root_bound()
    rows.release()
    assert relaxed is not None and relaxed < Core.of(searched).root_bound()
    plain = clsolve.solve(problem, solver="dp-states", device=device, descent=False)
    descended = clsolve.solve(problem, solver="dp-states", device=device, poison=True)
    assert plain.optimal and descended.optimal and descended.value == plain.value
    assert any("descent:" in note for note in descended.notes)
    assert all(guess < relaxed + _stages(problem).floor for guess in descended.stats.get("descent_guesses", []))


def test_the_descent_asks_for_the_rows_bound_only_where_the_probe_saw_lists_growing(monkeypatch, device):
    from clsolve_plugins.dp_states import solver as module
    from clsolve_plugins.dp_states.shared import Shared

    problem = jooken(200, 10**8, 10, 0.2, 1e-5, 100, seed=1)
    staged = _stages(problem)
    asked = []
    monkeypatch.setattr(Shared, "root_bound", lambda rows: asked.append(rows.core.n))
    dp_states, found = module.StateListSolver(), clsolve.get_device(device)
    for growing in (False, True):
        solution = dp_states._descend(staged.searched, found, staged.floor, growing=growing)
        assert solution.optimal
    assert asked == [staged.searched.n]


def test_descent_under_a_time_limit_keeps_a_valid_bound(device):
    problem = jooken(200, 10**8, 6, 0.2, 0.0, 100, seed=1)
    optimum = clsolve.solve(problem, solver="dp-states", device=device).value
    for seconds in (0.0, 0.2):
        solution = clsolve.solve(problem, solver="dp-states", device=device, time_limit=seconds)
        assert solution.value <= optimum <= solution.bound


def test_a_guess_out_of_room_gives_way_to_the_plain_search(monkeypatch, device):
    """A guess whose search runs out of room (max_states, records) does not end the solve: the plain
    search follows, with its strengthening."""
    from dataclasses import replace

    from clsolve_plugins.dp_states.solver import STRENGTHEN_STATES, StateListSolver

    search, calls = StateListSolver._search, []

    def recorded(self, problem, device, floor, strengthen, states=None, rows=None, clusters=None, guessed=False):
        calls.append((strengthen, states))
        if states is None:
            return search(self, problem, device, floor, strengthen, rows=rows, clusters=clusters, guessed=guessed)
        solution = search(self, problem, device, floor, strengthen, states=0, rows=rows, clusters=clusters, guessed=guessed)
        return replace(solution, stats={**solution.stats, "stopped": "room"})

    monkeypatch.setattr(StateListSolver, "_search", recorded)
    # the plan's probe runs its levels whatever the host's load (within its 4 ms, a loaded host saw a
    # short list and planned no guess)
    monkeypatch.setattr("clsolve_plugins.dp_states.probe.PROBE_SECONDS", 60.0)
    problem = jooken(200, 10**8, 6, 0.2, 0.0, 100, seed=1)
    solution = clsolve.solve(problem, solver="dp-states", device=device)
    assert solution.optimal and [strengthen for strengthen, _ in calls] == [0, STRENGTHEN_STATES]
