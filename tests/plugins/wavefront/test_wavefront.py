"""The wavefront plugin ([OM]): LCS against a plain CPU DP, TSP against brute force and the
TSPLIB optima, KP1 against dp-rows; rows kept on the device and streamed to host memory."""

import itertools
import time

import numpy as np
import pyopencl as cl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import knapsacks

import clsolve
from clsolve.errors import DoesNotFitError, InvalidOptionError, InvalidProblemError, SolutionCheckError
from clsolve.plugin import registry
from clsolve.problems import LCS, TSP, Knapsack
from clsolve.solution import Solution, check

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
#: Small blocks, so that a short string still spans many block diagonals and ring slots; 3 rows per
#: inner step, so that blocks end in part-filled row groups.
SMALL_BLOCKS = {"words_per_block": 2, "rows_per_block": 8, "rows_per_step": 3}
#: One row per inner step (one barrier per row) and the most rows a step may take.
STEP_EXTREMES = (
    {"words_per_block": 3, "rows_per_block": 40, "rows_per_step": 1},
    {"words_per_block": 2, "rows_per_block": 70, "rows_per_step": 32},
)
#: Stripes: the default, one word and one row per step, and the most rows a step may take (31).
STRIPES = (
    {"schedule": "stripes"},
    {"schedule": "stripes", "words_per_block": 1, "rows_per_step": 1},
    {"schedule": "stripes", "words_per_block": 3, "rows_per_step": 31},
)


def plain_lcs(a, b) -> int:
    """The textbook O(mn) DP (eq. 2 of [OM]), row by row."""
    a, b = list(a), list(b)
    previous = [0] * (len(b) + 1)
    for x in a:
        current = [0]
        for j, y in enumerate(b, start=1):
            current.append(previous[j - 1] + 1 if x == y else max(previous[j], current[j - 1]))
        previous = current
    return previous[-1]


def brute_force_tour(distances: np.ndarray) -> int:
    n = len(distances)
    return min(
        sum(int(distances[t[i], t[(i + 1) % n]]) for i in range(n))
        for p in itertools.permutations(range(1, n))
        for t in [(0,) + p]
    )


@st.composite
def sequences(draw, max_length=200):
    alphabet = draw(st.sampled_from([2, 3, 4, 20, 256]))
    m = draw(st.integers(0, max_length))
    n = draw(st.integers(0, max_length))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    return rng.integers(0, alphabet, m), rng.integers(0, alphabet, n)


@settings(SETTINGS, max_examples=15)  # every example runs 11 tilings: each new shape builds kernels
@given(pair=sequences())
def test_lcs_matches_plain_dp(pair, device):
    a, b = pair
    expected = plain_lcs(a, b)
    problem = LCS(a, b)
    for method in ("bits", "cells"):
        for blocks in ({}, SMALL_BLOCKS) + STEP_EXTREMES + (STRIPES if method == "bits" else ()):
            solution = clsolve.solve(problem, solver="wavefront", device=device, method=method, poison=True, **blocks)
            assert solution.value == expected  # and the engine checked the positions: common, increasing
            assert solution.positions.shape == (expected, 2)
    assert clsolve.solve(problem, solver="sequential").value == expected


@pytest.mark.parametrize("method", ["bits", "cells"])
def test_lcs_streams_rows_to_host(method, device):
    rng = np.random.default_rng(7)
    a, b = rng.integers(0, 4, 1500), rng.integers(0, 4, 1300)
    problem = LCS(a, b)
    options = {"method": method, "words_per_block": 4, "rows_per_block": 32, "rows_per_step": 5, "poison": True}
    bit_rows = clsolve.plan(problem, "wavefront", device, **options).details["bit_row_bytes"]
    limit = 200_000  # well below the bit rows, above what the sweep itself needs
    assert bit_rows > limit
    streamed = clsolve.solve(problem, solver="wavefront", device=device, device_memory_limit=limit, **options)
    assert streamed.stats["store"] == "host" and streamed.stats["copied_bytes"] == bit_rows
    kept = clsolve.solve(problem, solver="wavefront", device=device, **options)
    assert kept.stats["store"] == "device"
    assert streamed.value == kept.value == plain_lcs(a, b)
    np.testing.assert_array_equal(streamed.positions, kept.positions)


@pytest.mark.parametrize("words_per_block, rows_per_step", [(2, 7), (1, 31), (5, 1), (64, 16)])
def test_lcs_stripes_trace_the_same_pairs_as_diagonals(words_per_block, rows_per_step, device):
    """Many stripes (up to 24), row groups that do not fill the last stage or the last group, and
    poisoned bit rows: the stripes' bit rows are those of the block diagonals, and the stripes'
    walks in parallel (from the path's entries, found with the reversed sweep) find the pairs the
    one walk from (m, n) finds; the length-only sweep the same length."""
    rng = np.random.default_rng(words_per_block * 100 + rows_per_step)
    a, b = rng.integers(0, 4, 3000), rng.integers(0, 4, 2001)
    problem = LCS(a, b)
    stripes = {"schedule": "stripes", "words_per_block": words_per_block, "rows_per_step": rows_per_step}
    got = clsolve.solve(problem, solver="wavefront", device=device, poison=True, **stripes)
    want = clsolve.solve(problem, solver="wavefront", device=device, schedule="diagonals", poison=True)
    assert got.stats["schedule"] == "stripes" and want.stats["schedule"] == "diagonals"
    words = -(-3000 // 64)
    several = words > words_per_block  # more than one stripe
    assert got.stats["trace"] == ("stripes" if several else "serial") and want.stats["trace"] == "serial"
    assert got.value == want.value == plain_lcs(a, b)
    np.testing.assert_array_equal(got.positions, want.positions)
    solver = registry.load("wavefront", **stripes)
    length, _, details = solver.lcs_length(problem, device)
    assert length == got.value and details["schedule"] == "stripes"


@pytest.mark.parametrize("m, n", [(700, 1), (1, 500), (640, 333), (129, 2), (2000, 40)])
def test_lcs_trace_by_stripes_at_the_edges(m, n, device):
    """Paths that run along row 0 or column 0 across stripes, n not a multiple of the rows per step
    (a last group cut short, its rows stored one by one), a's length not a multiple of a stripe (the
    reversed a padded): the same pairs as the one walk."""
    rng = np.random.default_rng(m + n)
    a, b = rng.integers(0, 3, m), rng.integers(0, 3, n)
    options = {"words_per_block": 1, "rows_per_step": 3, "poison": True}
    got = clsolve.solve(LCS(a, b), solver="wavefront", device=device, schedule="stripes", **options)
    want = clsolve.solve(LCS(a, b), solver="wavefront", device=device, schedule="diagonals", **options)
    assert got.stats["trace"] == ("stripes" if m > 64 else "serial")
    np.testing.assert_array_equal(got.positions, want.positions)


def test_lcs_trace_by_stripes_checks_every_walk(device, monkeypatch):
    """A wrong entry (here, the crossings made one row too high) makes a stripe's walk end away from
    the next stripe's entry: refused, not answered."""
    from clsolve_plugins.wavefront import lcs_trace

    rng = np.random.default_rng(4)
    problem = LCS(rng.integers(0, 4, 1000), rng.integers(0, 4, 900))
    real = cl.enqueue_copy

    def shifted(queue, dest, src, **kwargs):
        event = real(queue, dest, src, **kwargs)
        if isinstance(dest, np.ndarray) and dest.size == 2 * (1000 // 64 + 2):  # the crossings read back
            dest[2:-2:2] = np.minimum(dest[2:-2:2] + 1, 900)
        return event

    monkeypatch.setattr(lcs_trace.cl, "enqueue_copy", shifted)
    with pytest.raises(clsolve.SolutionCheckError, match="stripe"):
        clsolve.solve(problem, solver="wavefront", device=device, schedule="stripes", words_per_block=1)


@pytest.mark.parametrize("alphabet, code_type", [(3, None), (12, None), (1000, None), (6, ("uint", 4)), (300, ("uint", 4))])
def test_lcs_stripes_symbol_codes(alphabet, code_type, device, monkeypatch):
    """Symbol codes kept as uchar, ushort (1000 symbols) or uint in the stripes' ring."""
    from clsolve_plugins.wavefront import lcs

    if code_type is not None:
        monkeypatch.setattr(lcs.Geometry, "code_type", property(lambda self: code_type))
    rng = np.random.default_rng(alphabet)
    a, b = rng.integers(0, alphabet, 1500), rng.integers(0, alphabet, 1700)
    solution = clsolve.solve(
        LCS(a, b), solver="wavefront", device=device, schedule="stripes", words_per_block=4, rows_per_step=5, poison=True
    )
    assert solution.value == plain_lcs(a, b)
    sigma = LCS(a, b).codes()[2]
    geo = lcs.geometry(LCS(a, b), device, "bits", 4, None, 5, "stripes", sigma)
    assert geo.code_type[0] == (code_type[0] if code_type else "ushort" if alphabet == 1000 else "uchar")


def test_lcs_schedule_choice_and_refusals(device):
    from types import SimpleNamespace

    from clsolve_plugins.wavefront import lcs

    problem = LCS("GATTACA" * 50, "TAGACCA" * 40)
    plan = clsolve.plan(problem, "wavefront", device)
    assert plan.details["schedule"] == ("stripes" if device.is_gpu else "diagonals")
    for options in ({"rows_per_block": 64}, {"method": "cells"}, {"store": "host"}, {"rows_per_step": 32}):
        assert clsolve.plan(problem, "wavefront", device, **options).details["schedule"] == "diagonals"
    assert clsolve.plan(problem, "wavefront", device, schedule="stripes").details["schedule"] == "stripes"
    with pytest.raises(InvalidOptionError, match="schedule must be one of"):
        clsolve.plan(problem, "wavefront", device, schedule="rows")
    with pytest.raises(InvalidOptionError, match="bit-parallel sweep only"):
        clsolve.plan(problem, "wavefront", device, schedule="stripes", method="cells")
    with pytest.raises(InvalidOptionError, match="rows_per_block applies"):
        clsolve.plan(problem, "wavefront", device, schedule="stripes", rows_per_block=64)
    with pytest.raises(InvalidOptionError, match=r"1\.\.31 with schedule='stripes'"):
        clsolve.plan(problem, "wavefront", device, schedule="stripes", rows_per_step=32)
    with pytest.raises(DoesNotFitError, match="store='host' streams block diagonals"):
        clsolve.plan(problem, "wavefront", device, schedule="stripes", store="host")
    with pytest.raises(DoesNotFitError, match="keeping .* on the device does not fit"):
        clsolve.plan(problem, "wavefront", device, schedule="stripes", device_memory_limit=20_000)
    # auto falls back to diagonals where the stripes' bit rows pass one allocation
    small = SimpleNamespace(max_work_group_size=1024, is_gpu=True, local_memory=48 * 1024, label="small", max_allocation=10_000)
    options = registry.load("wavefront").options
    assert lcs.choose_schedule(problem, small, "bits", 4, options, bit_rows=True) == "diagonals"
    assert lcs.choose_schedule(problem, small, "bits", 4, options, bit_rows=False) == "stripes"


@SETTINGS
@given(
    low=st.integers(-(2**62), 2**62),
    span=st.sampled_from([1, 2, 5, 32, 33, 300, 2**17, 2**40]),
    m=st.integers(1, 60),
    n=st.integers(1, 60),
    seed=st.integers(0, 2**32 - 1),
)
def test_lcs_codes_from_lookup_tables_equal_codes_from_sorting(low, span, m, n, seed):
    """Ranges of at most OFFSET_CODE_SPAN symbols are coded by offset; longer short ranges through
    lookup tables, wide ones by sorting, both giving each common symbol its rank among the common
    symbols, and sigma / sigma + 1 to the others."""
    from clsolve.problems import OFFSET_CODE_SPAN

    rng = np.random.default_rng(seed)
    a, b = low + rng.integers(0, span, m), low + rng.integers(0, span, n)
    a_codes, b_codes, sigma = LCS(a, b).codes()
    first = min(a.min(), b.min())
    if max(a.max(), b.max()) - first < OFFSET_CODE_SPAN:
        assert a_codes.dtype == b_codes.dtype == np.uint32 and sigma == max(a.max(), b.max()) - first + 1
        assert a_codes.tolist() == (a - first).tolist() and b_codes.tolist() == (b - first).tolist()
        return
    common = np.intersect1d(a, b)
    assert sigma == common.size and a_codes.dtype == b_codes.dtype == np.uint32
    for symbols, codes, absent in ((a, a_codes, sigma), (b, b_codes, sigma + 1)):
        expected = [int(np.searchsorted(common, x)) if x in common else absent for x in symbols.tolist()]
        assert codes.tolist() == expected


def test_lcs_default_blocks_shrink_to_fit_local_memory():
    from types import SimpleNamespace

    from clsolve_plugins.wavefront import lcs, lcs_tiling

    problem = LCS(np.zeros(10_000, int), np.zeros(10_000, int))
    for local_memory in (48 * 1024, 32 * 1024, 16 * 1024):
        small = SimpleNamespace(max_work_group_size=1024, is_gpu=True, local_memory=local_memory, label="small")
        for method in ("bits", "cells"):
            geo = lcs.geometry(problem, small, method, None, None)
            assert lcs_tiling._local_bytes(method, geo.words_per_block, geo.rows, geo.step_rows) <= local_memory
            assert geo.rows >= 64
    with pytest.raises(InvalidOptionError, match="local memory"):  # explicit shapes are never changed
        lcs.geometry(problem, small, "cells", 128, 4096)


def test_lcs_default_blocks_shrink_to_fit_a_tight_memory_limit(device, monkeypatch):
    """Tall default blocks make large chunks; under a tight limit the plan halves the default rows
    until a ring of slots fits, rather than refusing (rows asked for explicitly are kept)."""
    from clsolve_plugins.wavefront import lcs_tiling

    monkeypatch.setattr(lcs_tiling, "DEFAULT_ROWS_PER_BLOCK", {True: 4096, False: 4096})
    monkeypatch.setattr(lcs_tiling, "DEFAULT_WORDS_PER_BLOCK", {True: 64, False: 64})
    rng = np.random.default_rng(5)
    problem = LCS(rng.integers(0, 4, 5000), rng.integers(0, 4, 4000))
    plan = clsolve.plan(problem, "wavefront", device, device_memory_limit=1_000_000)
    assert plan.details["store"] == "host" and plan.details["rows_per_block"] < 4096
    solution = clsolve.solve(problem, solver="wavefront", device=device, device_memory_limit=1_000_000)
    assert solution.value == plain_lcs(problem.a, problem.b) and solution.stats["store"] == "host"
    with pytest.raises(DoesNotFitError, match="ring of 3 slots"):
        clsolve.plan(problem, "wavefront", device, device_memory_limit=1_000_000, rows_per_block=4096)


def test_lcs_strings_alphabets_and_edges(device):
    cases = [
        ("", ""),
        ("abc", ""),
        ("", "abc"),
        ("a", "a"),
        ("a", "b"),
        ("GATTACA", "TAGACCA"),
        ("ünïcödé ✓", "üçödé ✓"),
        ("x" * 130, "x" * 70),
    ]
    for a, b in cases:
        solution = clsolve.solve(LCS(a, b), solver="wavefront", device=device)
        assert solution.value == plain_lcs(a, b)
        sub = LCS(a, b).subsequence(solution.positions)
        assert isinstance(sub, str) and len(sub) == solution.value
    # 256 byte values and integer symbols beyond any alphabet
    rng = np.random.default_rng(3)
    a, b = bytes(rng.integers(0, 256, 700).tolist()), bytes(rng.integers(0, 256, 900).tolist())
    assert clsolve.solve(LCS(a, b), solver="wavefront", device=device).value == plain_lcs(a, b)
    a, b = rng.integers(-(2**40), 2**40, 300) // 2**38, rng.integers(-(2**40), 2**40, 300) // 2**38
    assert clsolve.solve(LCS(a, b), solver="wavefront", device=device).value == plain_lcs(a, b)


def test_lcs_bad_input_and_options(device):
    with pytest.raises(InvalidProblemError, match="a"):
        LCS([[1, 2]], [1])
    with pytest.raises(InvalidProblemError, match="b"):
        LCS([1, 2], [0.5])
    with pytest.raises(InvalidOptionError, match="method"):
        clsolve.solve(LCS("ab", "ba"), solver="wavefront", device=device, method="fast")
    with pytest.raises(InvalidOptionError, match="words_per_block"):
        clsolve.solve(LCS("ab", "ba"), solver="wavefront", device=device, words_per_block=10**6)
    for steps in (0, 33):
        with pytest.raises(InvalidOptionError, match=r"rows_per_step must be in 1\.\.32"):
            clsolve.solve(LCS("ab", "ba"), solver="wavefront", device=device, rows_per_step=steps)


def test_lcs_refused_with_numbers_when_nothing_holds_the_rows(device):
    problem = LCS(np.zeros(100_000, int), np.zeros(2_000, int))
    with pytest.raises(DoesNotFitError, match=r"trace-back needs .* more than this host allows .*host_memory_limit"):
        clsolve.plan(problem, "wavefront", device, device_memory_limit=2_000_000, host_memory_limit=10**6, **SMALL_BLOCKS)


def test_lcs_check_catches_wrong_answers():
    problem = LCS("abcd", "acbd")
    good = Solution(3, np.zeros(0, bool), True, "test", "", positions=np.array([[0, 0], [1, 2], [3, 3]]))
    check(problem, good)
    for positions, value in (([[0, 0], [2, 2], [3, 3]], 3), ([[0, 0], [1, 2], [3, 3]], 2), ([[1, 0]], 1), ([[0, 0], [0, 0]], 2)):
        bad = Solution(value, np.zeros(0, bool), True, "test", "", positions=np.array(positions))
        with pytest.raises(SolutionCheckError):
            check(problem, bad)


@pytest.mark.parametrize("n", range(2, 10))
def test_tsp_matches_brute_force(n, device):
    rng = np.random.default_rng(n)
    for symmetric in (True, False):
        distances = rng.integers(0, 100, (n, n))
        if symmetric:
            distances = np.triu(distances) + np.triu(distances, 1).T
        expected = brute_force_tour(distances)
        problem = TSP(distances)
        for store in ("device", "host"):
            solution = clsolve.solve(problem, solver="wavefront", device=device, store=store, poison=True)
            assert solution.value == expected and solution.tour[0] == 0
        assert clsolve.solve(problem, solver="sequential").value == expected


def test_tsp_large_costs_use_64_bit(device):
    rng = np.random.default_rng(11)
    distances = rng.integers(2**33, 2**34, (7, 7))
    solution = clsolve.solve(TSP(distances), solver="wavefront", device=device)
    assert solution.value == brute_force_tour(distances) > 2**31
    assert solution.stats["value_type"] == "long"


def test_tsp_bad_input_and_refusals(device):
    with pytest.raises(InvalidProblemError, match="square"):
        TSP(np.zeros((3, 4)))
    with pytest.raises(InvalidProblemError, match="at least 2"):
        TSP([[0]])
    with pytest.raises(InvalidProblemError, match="negative"):
        TSP([[0, -1], [1, 0]])
    big = TSP(np.ones((40, 40), dtype=int))
    with pytest.raises(clsolve.UnsupportedProblemError, match="n <= 33"):
        clsolve.plan(big, "wavefront", device)
    with pytest.raises(DoesNotFitError, match="Held-Karp for n = 30"):
        clsolve.plan(TSP(np.ones((30, 30), dtype=int)), "wavefront", device, device_memory_limit=10**8)


@pytest.mark.parametrize("name", ["burma14", "ulysses16", "gr17", "br17"])
def test_tsplib_optima(name, data, device):
    import csv

    folder = data / "tsplib"
    with open(folder / "optimal_values.csv") as table:
        optima = {row["name"]: int(row["optimal_tour_length"]) for row in csv.DictReader(table)}
    path = next(folder.glob(f"{name}.*tsp"))
    problem = clsolve.io.formats.read(path)[0]
    problem = TSP(problem.distances, name=problem.name, known_optimum=optima[name])
    solution = clsolve.solve(problem, solver="wavefront", device=device, poison=True)
    assert solution.value == optima[name]
    streamed = clsolve.solve(problem, solver="wavefront", device=device, store="host")
    assert streamed.value == optima[name] and streamed.stats["store"] == "host"


@SETTINGS
@given(problem=knapsacks(max_n=14, max_capacity=60))
def test_knapsack_matches_dp_rows(problem, device):
    if problem.m != 1:
        assert clsolve.solvers  # KP1 only: the plugin says why it refuses the others
        assert "KP1" in clsolve.plugin.registry.load("wavefront").accepts(problem)
        return
    expected = clsolve.solve(problem, solver="dp-rows", device=device).value
    for store in ("device", "host"):
        solution = clsolve.solve(problem, solver="wavefront", device=device, store=store, poison=True)
        assert solution.value == expected


@SETTINGS
@given(problem=knapsacks(max_n=40, max_capacity=200))
def test_knapsack_trace_back_takes_the_items_of_sequentials_walk(problem, device):
    """The device's trace-back (8 items a round, each read at every capacity the walk may reach) takes
    exactly the items of sequential's walk over the same decisions."""
    if problem.m != 1:
        return
    expected = clsolve.solve(problem, solver="sequential")
    solution = clsolve.solve(problem, solver="wavefront", device=device, poison=True)
    np.testing.assert_array_equal(solution.selected, expected.selected)


@pytest.mark.parametrize("block", [0, 16])
def test_knapsack_trace_back_through_windows_of_weights(device, block):
    """More items than the trace-back's window of weights and row offsets (128), with and without
    runs on chip."""
    rng = np.random.default_rng(block)
    problem = Knapsack(profits=rng.integers(1, 500, 300), weights=rng.integers(0, 40, (300, 1)), capacities=[2_000])
    expected = clsolve.solve(problem, solver="sequential")
    solution = clsolve.solve(problem, solver="wavefront", device=device, block=block, poison=True)
    assert solution.value == expected.value
    np.testing.assert_array_equal(solution.selected, expected.selected)


@st.composite
def light_knapsacks(draw):
    """KP1 whose light items (weights 0 to 400) run in blocks, with heavy items (up to past the
    capacity) between them, over capacities of one to five tiles of the block kernel (16 x 256 states)."""
    n = draw(st.integers(1, 24))
    capacity = draw(st.integers(1, 20_000))
    weights = [
        draw(st.one_of(st.integers(0, 400), st.integers(0, capacity + 10))) if draw(st.booleans()) else draw(st.integers(0, 400))
        for _ in range(n)
    ]
    profits = draw(st.lists(st.integers(0, 100), min_size=n, max_size=n))
    return Knapsack(profits=profits, weights=np.array(weights).reshape(-1, 1), capacities=[capacity])


@SETTINGS
@given(problem=light_knapsacks(), block=st.sampled_from([2, 5, 16]), store=st.sampled_from(["device", "host"]))
def test_knapsack_blocks_equal_one_launch_per_item_bit_for_bit(problem, block, store, device):
    """Runs of light items on chip (``kp_block``): halos, tiles at the capacity's edge, items heavier
    than the halo between blocks, zero weights and profits; poisoned buffers. The decision table is the
    one of a launch per item, bit for bit, and the value that of dp-rows."""
    solver = clsolve.plugin.registry.load("wavefront", block=block, store=store, poison=True)
    plan = solver.plan(problem, device)
    value, table = solver.knapsack_decisions(problem, device)
    one_by_one = clsolve.plugin.registry.load("wavefront", block=0, store=store, poison=True)
    expected_value, expected = one_by_one.knapsack_decisions(problem, device)
    assert value == expected_value == clsolve.solve(problem, solver="dp-rows", device=device).value
    assert (table == expected).all()
    assert one_by_one.plan(problem, device).details["blocks"] == 0
    solution = clsolve.solve(problem, solver="wavefront", device=device, block=block, store=store, poison=True)
    assert solution.value == value
    if clsolve.plugin.checked.settled(problem) is None:  # (one presolve settles is answered by the engine)
        assert solution.stats["blocks"] == plan.details["blocks"]


def test_knapsack_blocks_by_default_only_on_a_gpu_where_they_pay(device):
    rng = np.random.default_rng(3)
    light = Knapsack(profits=rng.integers(1, 100, 200), weights=rng.integers(1, 50, (200, 1)), capacities=[5_000])
    heavy = Knapsack(profits=rng.integers(1, 100, 200), weights=rng.integers(3_000, 5_000, (200, 1)), capacities=[50_000])
    solver = clsolve.plugin.registry.load("wavefront")
    assert solver.plan(heavy, device).details["blocks"] == 0  # no run of two fits the halo
    assert (solver.plan(light, device).details["blocks"] > 0) == device.is_gpu
    asked = clsolve.plugin.registry.load("wavefront", block=16).plan(light, device)
    assert asked.details["blocks"] > 0 and asked.launches < light.n
    with pytest.raises(InvalidOptionError):
        clsolve.plugin.registry.load("wavefront", block=1)


def test_lcs_sequence_files(tmp_path, data, device):
    problems = clsolve.io.formats.read(data / "lcs" / "ACO" / "Rat" / "4_10_600.rat")
    assert len(problems) == 5 and problems[0].m == problems[0].n == 600
    for problem in problems[:2]:
        assert clsolve.solve(problem, solver="wavefront", device=device).value == plain_lcs(problem.a, problem.b)
    fasta = tmp_path / "pair.fa"
    fasta.write_text(">one\nGATT\nACA\n>two\nTAGACCA\n")
    (problem,) = clsolve.io.formats.read(fasta)
    assert problem.name == "one / two" and clsolve.solve(problem, device=device).value == 4


def test_lcs_stripes_keep_the_time_limit(device):
    """The stripes' sweep is one launch nothing can interrupt: under a time limit it starts only when
    predicted to end in time (else TimeLimitError at once, naming the diagonals), and ``auto`` takes
    the block diagonals, stopped between launches, where the stripes would not fit."""
    from types import SimpleNamespace

    from clsolve.runtime import deadline
    from clsolve_plugins.wavefront import lcs

    rng = np.random.default_rng(9)
    length = 4_000_000 if device.is_gpu else 100_000  # predicted: about 1 s (GPU), 2 s (CPU)
    huge = LCS(rng.integers(0, 4, length), rng.integers(0, 4, length))
    solver = registry.load("wavefront", schedule="stripes")
    began = time.perf_counter()
    with deadline.limit(0.5), pytest.raises(clsolve.TimeLimitError, match="schedule='diagonals'"):
        solver.lcs_length(huge, device)
    assert time.perf_counter() - began < 0.55
    gpu = SimpleNamespace(max_work_group_size=1024, is_gpu=True, local_memory=48 * 1024, label="gpu", max_allocation=2**34)
    options = registry.load("wavefront").options
    small = LCS("GATTACA" * 100, "TAGACCA" * 100)
    huge = LCS(rng.integers(0, 4, 4_000_000), rng.integers(0, 4, 4_000_000))
    with deadline.limit(0.5):
        assert lcs._in_time(huge, gpu, options, "stripes", 4) == "diagonals"
        assert lcs._in_time(small, gpu, options, "stripes", 4) == "stripes"
    assert lcs._in_time(huge, gpu, options, "stripes", 4) == "stripes"  # no limit
    forced = registry.load("wavefront", schedule="stripes").options
    with deadline.limit(0.5):
        assert lcs._in_time(huge, gpu, forced, "stripes", 4) == "stripes"  # asked for: refused at launch
