"""tsp-bnb: optima against brute force and Held-Karp (``wavefront``), TSPLIB's published optima, the
asymmetric transformation, edges fixed out at the root, the time limit's answer and bound, and
refusals."""

import csv
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import clsolve
from clsolve.errors import InvalidOptionError, SolutionCheckError
from clsolve.problems import TSP
from clsolve.solution import Solution, check
from clsolve_plugins.tsp_bnb import fixing, graph, nodes, tour

SETTINGS = settings(max_examples=30, deadline=None)


def brute_force(distances: np.ndarray) -> int:
    n = distances.shape[0]
    return min(int(distances[(0, *rest), (*rest, 0)].sum()) for rest in itertools.permutations(range(1, n)))


def random_tsp(seed: int, n: int, symmetric: bool, top: int = 100, euclidean: bool = False) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if euclidean:
        xy = rng.integers(0, top, (n, 2))
        d = np.rint(np.hypot(*(xy[:, None, :] - xy[None, :, :]).transpose(2, 0, 1))).astype(np.int64)
    else:
        d = rng.integers(0, top, (n, n))
    if symmetric:
        d = np.triu(d) + np.triu(d, 1).T
    np.fill_diagonal(d, 0)
    return d


@SETTINGS
@given(seed=st.integers(0, 10**6), n=st.integers(2, 8), symmetric=st.booleans(), top=st.sampled_from([1, 5, 100, 10**6]))
def test_small_tsps_match_brute_force(seed, n, symmetric, top, device):
    d = random_tsp(seed, n, symmetric, top)
    solution = clsolve.solve(TSP(d), solver="tsp-bnb", device=device)
    assert solution.optimal and solution.value == brute_force(d)


@pytest.mark.parametrize("n", [12, 16, 20])
@pytest.mark.parametrize("symmetric", [True, False])
@pytest.mark.parametrize("euclidean", [True, False])
def test_matches_held_karp(n, symmetric, euclidean, device):
    for seed in range(3):
        d = random_tsp(100 * n + seed, n, symmetric, 1000, euclidean)
        expected = clsolve.solve(TSP(d), solver="wavefront", device=device).value
        solution = clsolve.solve(TSP(d), solver="tsp-bnb", device=device, batch=16)
        assert solution.optimal and solution.value == expected


def test_ties_and_zero_costs(device):
    for n in (7, 12, 25):
        d = np.ones((n, n), dtype=np.int64)
        assert clsolve.solve(TSP(d), solver="tsp-bnb", device=device).value == n
        d = np.zeros((n, n), dtype=np.int64)
        assert clsolve.solve(TSP(d), solver="tsp-bnb", device=device).value == 0
    d = random_tsp(5, 18, False, 3)
    expected = clsolve.solve(TSP(d), solver="wavefront", device=device).value
    assert clsolve.solve(TSP(d), solver="tsp-bnb", device=device, batch=8, iterations=3).value == expected


def _optima(folder) -> dict[str, int]:
    with open(folder / "optimal_values.csv") as table:
        return {row["name"]: int(row["optimal_tour_length"]) for row in csv.DictReader(table)}


@pytest.mark.parametrize("name", ["dantzig42", "att48", "berlin52", "st70", "eil76", "gr96", "ftv33", "ftv44", "ry48p"])
def test_tsplib_optima(name, data, device):
    folder = data / "tsplib"
    path = next(folder.glob(f"{name}.*tsp"), None)
    if path is None:
        pytest.skip(f"{name} not in the data folder")
    problem = clsolve.io.formats.read(path)[0]
    optimum = _optima(folder)[name]
    problem = TSP(problem.distances, name=name, known_optimum=optimum)
    solution = clsolve.solve(problem, solver="tsp-bnb", device=device)
    assert solution.optimal and solution.value == optimum
    assert solution.stats["root_bound"] <= optimum


def test_time_limit_gives_the_best_tour_and_a_lower_bound(data, device):
    path = data / "tsplib" / "kroA100.tsp"
    if not path.exists():
        pytest.skip("kroA100 not in the data folder")
    problem = TSP(clsolve.io.formats.read(path)[0].distances, name="kroA100", known_optimum=21282)
    solution = clsolve.solve(problem, solver="tsp-bnb", device=device, time_limit=0.6, batch=4, iterations=2)
    assert not solution.optimal
    assert 0 < solution.bound <= 21282 <= solution.value
    assert solution.gap == solution.value - solution.bound


def test_asymmetric_graph_maps_tours_both_ways():
    d = random_tsp(3, 6, False)
    g = graph.graph(d)
    assert g.asymmetric and g.n == 12 and len(g.required) == 6
    for order in itertools.permutations(range(1, 6)):
        cities = (0, *order)
        walk = [v for c in cities for v in (c + 6, c)]  # in-vertex, then out-vertex: leaving c to the next
        vertices = np.roll(np.asarray(walk), -1)
        assert g.tour(vertices).tolist() == list(cities)
        assert g.tour(vertices[::-1]).tolist() == list(cities)
        cost = sum(int(g.cost[a, b]) for a, b in zip(vertices, np.roll(vertices, -1)))
        assert cost == g.scale * int(d[list(cities), list(np.roll(cities, -1))].sum())


def test_fixing_keeps_every_edge_of_an_optimal_tour(device):
    for seed in range(6):
        d = random_tsp(seed, 14, seed % 2 == 0, 1000, euclidean=seed % 3 == 0)
        problem = TSP(d)
        best = clsolve.solve(problem, solver="wavefront", device=device)
        g = graph.graph(d)
        pi = np.zeros(g.n, dtype=np.int64)
        parent = _prim_one_tree(g.cost)
        bound = _one_tree_cost(g.cost, parent)
        mask = fixing.forbidden(g.cost, pi, parent, bound, g.scale * best.value, g.required)
        t = best.tour
        if g.asymmetric:  # out-vertex of each city, then the in-vertex of the next
            vertices = [v for k in range(t.size) for v in (int(t[k]), g.cities + int(t[(k + 1) % t.size]))]
        else:
            vertices = t.tolist()
        edges = list(zip(vertices, vertices[1:] + vertices[:1]))
        assert not any(mask[a, b] for a, b in edges)


def _prim_one_tree(cost: np.ndarray) -> np.ndarray:
    n = cost.shape[0]
    parent = np.zeros(n, dtype=np.int64)
    inside, key, source = {1}, cost[1].astype(np.int64).copy(), np.ones(n, dtype=np.int64)
    for _ in range(n - 2):
        v = min((v for v in range(2, n) if v not in inside), key=lambda v: key[v])
        parent[v] = source[v]
        inside.add(v)
        better = cost[v] < key
        key[better], source[better] = cost[v][better], v
    zero = np.argsort(cost[0, 1:], kind="stable")[:2] + 1
    parent[0], parent[1] = zero
    return parent


def _one_tree_cost(cost: np.ndarray, parent: np.ndarray) -> int:
    a, b = nodes.tree_edges(parent)
    return int(cost[a, b].sum())


def test_branching_splits_without_overlap():
    n = 8
    parent = np.array([1, 2, 3, 1, 3, 3, 3, 3])  # vertex 0 to 1 and 2; the tree over 1 .. 7 a star at vertex 3
    node = nodes.root(n, (), np.zeros(n, dtype=np.int32), 0)
    cost = np.arange(n * n).reshape(n, n)
    cost = cost + cost.T
    v, fixed, a1, b1, a2, b2 = nodes.branching(parent[None], node.pi[None], node.mate[None], cost)
    assert v[0] == 3 and fixed[0] == 0 and {a1[0], b1[0]} == {1, 3} and {a2[0], b2[0]} == {2, 3}
    kids = nodes.children(node, 0, (1, 3), (2, 3), 1)
    e1, e2 = nodes.code(1, 3, n), nodes.code(2, 3, n)
    assert len(kids) == 3
    assert e1 in kids[0].forbidden and e1 not in kids[0].required
    assert e1 in kids[1].required and e2 in kids[1].forbidden
    assert {e1, e2} <= set(kids[2].required)
    assert nodes.code(1, 2, n) in kids[2].forbidden  # closes the path 1-3-2
    assert kids[2].ends == {1: (2, 3), 2: (1, 3)}
    again = nodes.branching(parent[None], node.pi[None], kids[1].mate[None], cost)
    assert again[0][0] == 3 and again[1][0] == 1
    path = nodes.root(3, (nodes.code(0, 1, 3), nodes.code(1, 2, 3)), np.zeros(3, dtype=np.int32), 0)
    assert path is not None and nodes.require(path, 0, 2) is not None  # closes the tour of all 3
    short = nodes.root(n, (nodes.code(0, 1, n), nodes.code(1, 2, n)), np.zeros(n, dtype=np.int32), 0)
    assert short is not None and nodes.code(0, 2, n) in short.forbidden
    assert nodes.require(short, 0, 2) is None
    assert nodes.require(short, 1, 5) is None  # vertex 1 has its two required edges


def test_incumbent_moves_price_asymmetric_costs_exactly():
    d = random_tsp(9, 30, False, 1000)
    start = tour.nearest_neighbour(d)
    gain, i, j = tour.two_opt_move(d, start)
    moved = np.concatenate((start[: i + 1], start[i + 1 : j + 1][::-1], start[j + 1 :]))
    assert tour.length(d, start) - tour.length(d, moved) == gain
    for span in (1, 2, 3):
        gain, i, p = tour.or_move(d, start, span)
        assert tour.length(d, start) - tour.length(d, tour._carried(start, i, p, span)) == gain
    found = tour.search(d, 20, lambda: False)
    assert sorted(found.tolist()) == list(range(30)) and found[0] == 0


def test_options_and_refusals(device):
    with pytest.raises(InvalidOptionError):
        clsolve.solve(TSP(np.ones((8, 8), dtype=int)), solver="tsp-bnb", device=device, batch=0)
    with pytest.raises(InvalidOptionError):
        clsolve.solve(TSP(np.ones((8, 8), dtype=int)), solver="tsp-bnb", device=device, iterations=-1)
    huge = TSP(np.full((8, 8), 2**30, dtype=np.int64))
    with pytest.raises(clsolve.UnsupportedProblemError, match="costs up to"):
        clsolve.solve(huge, solver="tsp-bnb", device=device)


def test_check_refuses_a_lower_bound_above_the_tour():
    d = random_tsp(1, 6, True)
    problem = TSP(d)
    t = np.arange(6)
    value = problem.tour_length(t)
    check(problem, Solution(value, np.zeros(0, bool), False, "test", "", bound=value - 1, tour=t))
    with pytest.raises(SolutionCheckError, match="lower bound"):
        check(problem, Solution(value, np.zeros(0, bool), False, "test", "", bound=value + 1, tour=t))


def test_open_node_limit_stops_with_the_best_tour_and_a_bound(device):
    d = random_tsp(7, 60, True, 1000, euclidean=True)
    solution = clsolve.solve(TSP(d), solver="tsp-bnb", device=device, open_nodes=1, iterations=1, kicks=0)
    if not solution.optimal:
        assert "open_nodes" in solution.notes[0] and 0 < solution.bound <= solution.value


def test_large_graphs_keep_forbidden_bits_in_device_memory(device):
    """300 vertices: past the kernel's local bits, one cheap cycle among dear edges."""
    n = 150
    d = np.full((n, n), 100, dtype=np.int64)
    d[np.arange(n), (np.arange(n) + 1) % n] = 1
    asymmetric = clsolve.solve(TSP(d), solver="tsp-bnb", device=device, time_limit=60)  # 2n = 300 vertices
    assert asymmetric.optimal and asymmetric.value == n
    symmetric = np.minimum(d, d.T)
    wide = np.full((300, 300), 100, dtype=np.int64)
    wide[np.arange(300), (np.arange(300) + 1) % 300] = 1
    wide = np.minimum(wide, wide.T)
    assert clsolve.solve(TSP(wide), solver="tsp-bnb", device=device, time_limit=60).value == 300
    assert clsolve.solve(TSP(symmetric), solver="tsp-bnb", device=device).value == n


def test_a_limit_reached_while_kernels_build_answers_with_the_first_tour(device, monkeypatch):
    from clsolve_plugins.tsp_bnb import solver

    def late(*args, **kwargs):
        raise clsolve.TimeLimitError("building: the limit came first")

    monkeypatch.setattr(solver, "ascents", late)
    d = random_tsp(4, 20, False, 1000)
    answer = clsolve.solve(TSP(d), solver="tsp-bnb", device=device, time_limit=5)
    assert not answer.optimal and answer.bound == solver.floor(d) <= answer.value
    assert answer.value == TSP(d).tour_length(answer.tour)


def test_open_nodes_default_to_what_the_host_budget_holds(device):
    d = random_tsp(8, 60, True, 1000, euclidean=True)
    plan = clsolve.plan(TSP(d), "tsp-bnb", device, host_memory_limit=2 * 10**6)
    assert 0 < plan.host_buffers["open nodes"] <= 0.9 * 2 * 10**6
    solution = clsolve.solve(TSP(d), solver="tsp-bnb", device=device, host_memory_limit=2 * 10**6, iterations=2, kicks=0)
    assert solution.optimal or solution.bound <= solution.value


def test_minimum_cut_matches_every_cut():
    from clsolve_plugins.tsp_bnb.lp import minimum_cut

    rng = np.random.default_rng(0)
    for _ in range(100):
        n = int(rng.integers(2, 8))
        w = np.triu(rng.integers(0, 4, (n, n)).astype(float), 1)
        w = w + w.T
        best = min(
            w[np.ix_(list(side), [v for v in range(n) if v not in side])].sum()
            for k in range(1, n)
            for side in itertools.combinations(range(n), k)
        )
        value, side = minimum_cut(w)
        assert value == pytest.approx(best) and 0 < side.sum() < n
        assert w[np.ix_(np.flatnonzero(side), np.flatnonzero(~side))].sum() == pytest.approx(value)


@pytest.mark.parametrize("symmetric", [True, False])
def test_the_root_lp_keeps_optimal_tours_and_bounds_them(symmetric, device):
    pytest.importorskip("highspy")
    from clsolve_plugins.tsp_bnb import lp

    for seed in range(4):
        d = random_tsp(300 + seed, 13, symmetric, 1000, euclidean=seed % 2 == 0)
        best = clsolve.solve(TSP(d), solver="wavefront", device=device)
        g = graph.graph(d)
        found = lp.relaxed(g.cost, g.required, 10.0)
        assert found is not None and found.value <= g.scale * best.value + 1e-3
        mask = lp.forbidden(found, g.cost, g.scale * best.value, g.required)
        t = best.tour
        if g.asymmetric:
            vertices = [v for k in range(t.size) for v in (int(t[k]), g.cities + int(t[(k + 1) % t.size]))]
        else:
            vertices = t.tolist()
        assert not any(mask[a, b] for a, b in zip(vertices, vertices[1:] + vertices[:1]))
        solution = clsolve.solve(TSP(d), solver="tsp-bnb", device=device, lp=True)
        assert solution.optimal and solution.value == best.value
        assert solution.stats["lp_bound"] <= best.value


def test_an_integral_lp_proves_the_tour_at_the_root(device):
    pytest.importorskip("highspy")
    angles = np.linspace(0, 2 * np.pi, 40, endpoint=False)[np.random.default_rng(2).permutation(40)]
    xy = 1000 * np.stack((np.cos(angles), np.sin(angles)), axis=1)
    d = np.rint(np.hypot(*(xy[:, None, :] - xy[None, :, :]).transpose(2, 0, 1))).astype(np.int64)
    solution = clsolve.solve(TSP(d), solver="tsp-bnb", device=device, lp=True, kicks=0)
    assert solution.optimal and solution.stats["lp_bound"] == solution.value and solution.stats["nodes"] == 0


def test_lp_needs_highspy(monkeypatch):
    from clsolve_plugins.tsp_bnb import lp

    monkeypatch.setattr(lp, "available", lambda: False)
    with pytest.raises(InvalidOptionError, match="highspy"):
        clsolve.solve(TSP(np.ones((8, 8), dtype=int)), solver="tsp-bnb", lp=True)
