"""Figures of benchmark results (``clsolve bench NAME --plot FILE.svg``, or ``--from RESULT.json``
to draw a stored result without running anything). Needs matplotlib (``pip install 'clsolve[plot]'``).

Each benchmark draws what a reader would rather see than read: times against size beside the peers
the JSON holds (OR-Tools, the sequential DP, dp-rows as the baseline), and cell rates against the
rate the device's measured copy bandwidth allows (the floor).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from clsolve import FormatError, InvalidOptionError


def _pyplot():
    try:
        import matplotlib
    except ImportError:
        raise InvalidOptionError("--plot needs matplotlib: pip install 'clsolve[plot]'") from None
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "clsolve"  # the same result draws the same file
    import matplotlib.pyplot as plt

    return plt


def _device(result: dict) -> str:
    device = result.get("device") or (result.get("gpus") or [{}])[0]
    name = device.get("device", "") if isinstance(device, dict) else str(device)
    return f"{name}, {str(result.get('date', ''))[:10]}"


def _log_log(ax, xlabel: str, ylabel: str, title: str, legend: str = "best") -> None:
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend(loc=legend)
    ax.set_title(title)


def _batch(result: dict, ax) -> None:
    """msb / class-a: end-to-end time of each solver (log scale)."""
    solvers = result["solvers"]
    names = list(solvers)
    seconds = [solvers[name]["seconds_total"] for name in names]
    ax.barh(names, seconds, color=["C0" if name.startswith("dp-batch") else "C7" for name in names])
    ax.set_xscale("log")
    ax.set_xlabel("seconds for the whole set, with items (log)")
    for y, value in enumerate(seconds):
        ax.text(value, y, f" {value * 1e3:.3g} ms" if value < 1 else f" {value:.3g} s", va="center")
    ax.set_title(f"{result.get('set', result['benchmark'])}: {result.get('instances', '')} instances")


def _dp_rows(result: dict, ax) -> None:
    """Cell updates per second against the problem's size, beside the copy-bandwidth floor's rate and
    (GPU) the cache's bound on a dense DP of heavy items."""
    cases = [c for c in result["cases"] if c.get("cell_updates_per_second") and c.get("floor_seconds")]
    for family, marker in (("uncorrelated", "o"), ("a", "s")):
        chosen = [c for c in cases if c["name"].startswith(family)]
        label = "random KP01" if family == "uncorrelated" else "2DPackLib class A (KP2)"
        ax.plot(
            [c["cell_updates"] for c in chosen],
            [c["cell_updates_per_second"] for c in chosen],
            marker,
            linestyle="none",
            label=label,
        )
    floor = max(c["cell_updates"] / c["floor_seconds"] for c in cases)
    ax.axhline(floor, color="C3", linestyle="--", label="rate at the copy-bandwidth floor")
    if result.get("cache_bound_32_bit_cell_updates_per_second"):
        ax.axhline(
            result["cache_bound_32_bit_cell_updates_per_second"],
            color="C4",
            linestyle=":",
            label="cache bound, items heavier than on chip",
        )
    _log_log(
        ax,
        "cell updates of the problem (log)",
        "cell updates per second (log)",
        "dp-rows: measured rate against the floor",
        "lower right",
    )


def _bnb(result: dict, ax) -> None:
    """Correlated instances (p = w + 10): mean and max time against n."""
    cases = {k: v for k, v in result["cases"].items() if k.startswith("correlated n=")}
    sizes = [int(k.split("=")[1]) for k in cases]
    ax.plot(sizes, [v["seconds_mean"] for v in cases.values()], "o-", label="bnb, mean")
    ax.plot(sizes, [v["seconds_max"] for v in cases.values()], "s--", label="bnb, max")
    _log_log(ax, "n (items)", "seconds per instance, with items (log)", "bnb on [LE12]'s Table I family")


def _mckp(result: dict, ax) -> None:
    """N = 1e5: time with items against the number of classes M, per variant, and dp-rows (``--searches``:
    the searches and the peers against N)."""
    if "searches" in result:
        _mckp_searches(result["searches"], ax)
        return
    rows = [r for r in result["table2"] if r["n"] == 100_000]
    classes = [int(r["name"].split("M=")[1].split()[0]) for r in rows]
    for variant in ("full", "no-local", "no-opt"):
        ax.plot(classes, [r["variants"][variant]["with_items_seconds"] for r in rows], "o-", label=f"mckp {variant}")
    baseline = result.get("dp_rows_baseline", {}).get("100000")
    if baseline:
        ax.axhline(baseline["seconds"], color="C7", linestyle="--", label="dp-rows")
    _log_log(ax, "classes M", "seconds, with items (log)", "mckp on [HC22]'s Table 2, N = 1e5")


def _mckp_searches(rows: list[dict], ax) -> None:
    sizes = [r["n"] for r in rows]
    for key, label, style in (
        ("dp_states", "dp-states", "o-"),
        ("auto", "auto", "s-"),
        ("bnb", "bnb", "^:"),
        ("mt2", "MT2 (mknapsack)", "D--"),
        ("ortools_bnb", "OR-Tools B&B", "v--"),
    ):
        if all(key in r for r in rows):
            ax.plot(sizes, [r[key]["seconds"] for r in rows], style, label=label)
    _log_log(ax, "N (items)", "seconds, with items (log)", "[HC22]'s Table 2, M = 1000: searches and peers")


def _wavefront(result: dict, ax) -> None:
    """LCS: cell updates per second against m = n, length only and with the subsequence (without the
    LCS part: the knapsack rows against the capacity)."""
    if "lcs" not in result:
        _wavefront_knapsack(result.get("knapsack", []), ax)
        return
    lcs = result["lcs"]
    sizes = [r["m"] for r in lcs]
    ax.plot(sizes, [r["value_only_cells_per_second"] for r in lcs], "o-", label="length only")
    ax.plot(sizes, [r.get("value_only_sweep_cells_per_second") for r in lcs], "^:", label="sweep kernels alone")
    diagonals = [(r["m"], r["cells"] / r["diagonals_value_only_seconds"]) for r in lcs if r.get("diagonals_value_only_seconds")]
    if diagonals:
        ax.plot([m for m, _ in diagonals], [v for _, v in diagonals], "v--", label="length only, block diagonals")
    with_sub = [(r["m"], r["subsequence_cells_per_second"]) for r in lcs if r.get("subsequence_cells_per_second")]
    ax.plot([m for m, _ in with_sub], [v for _, v in with_sub], "s-", label="with the subsequence")
    if result.get("pylcs"):
        ax.plot([result["pylcs"]["m"]], [result["pylcs"]["cells_per_second"]], "kx", label="pylcs (CPU)")
    _log_log(ax, "m = n", "cell updates per second (log)", "wavefront LCS")


def _wavefront_knapsack(rows: list[dict], ax) -> None:
    """KP1 rows: cell updates per second against the capacity, blocks on chip and a launch per item."""
    sizes = [r["capacity"] for r in rows]
    for key, label, style in (("default", "runs of light items on chip", "o-"), ("launch_per_item", "a launch per item", "s--")):
        ax.plot(sizes, [r[key]["cell_updates_per_second"] for r in rows], style, label=label)
        ax.plot(
            sizes,
            [r["cell_updates"] / r[key]["floor_seconds"] for r in rows],
            style[0] + ":",
            label=f"{label}: global-memory floor",
        )
    _log_log(ax, "capacity (light items, n = 10,000)", "cell updates per second (log)", "wavefront KP1 rows")


def _scale(result: dict, ax) -> None:
    """Instances per second of each configuration (best and median runs)."""
    runs = result["runs"]
    names = list(runs)
    ax.barh(names, [result["instances"] / runs[n]["median_seconds"] for n in names], color="C0", label="median")
    ax.barh(names, [runs[n]["instances_per_second"] for n in names], color="C0", alpha=0.35, label="best")
    ax.set_xlabel("instances per second")
    ax.legend(loc="lower right")
    ax.set_title(f"{result.get('set', '')} spread over devices")


def _hard_kp(result: dict, ax) -> None:
    """Jooken et al.'s sample: clsolve's seconds against combo's (where combo failed: at the right edge)."""
    rows = result["sets"].get("jooken-dev", [])
    known = [r["combo_seconds"] for r in rows if "combo_seconds" in r]
    edge = 2 * max(known, default=1.0)
    for proved, marker, label in ((True, "o", "proved optimal"), (False, "x", "not proved in the time limit")):
        chosen = [r for r in rows if bool(r.get("optimal")) == proved]
        ax.plot(
            [r.get("combo_seconds", edge) for r in chosen], [r["seconds"] for r in chosen], marker, linestyle="none", label=label
        )
    ax.axvline(edge, color="C7", linestyle=":", label="combo: out of memory")
    ax.axhline(result.get("time_limit_seconds", 10), color="C3", linestyle="--", label="time limit")
    _log_log(
        ax,
        "combo's seconds on its authors' machine (log)",
        f"clsolve {result.get('solver', '')} seconds (log)",
        "Jooken et al.'s hard 0-1 knapsacks",
        "lower right",
    )


def _kpm(result: dict, ax) -> None:
    """Seconds per instance (log) of clsolve and OR-Tools' two solvers, set after set; hollow markers:
    stopped at the time limit without a proof."""
    names = {
        "auto": "clsolve auto",
        "mkp-bnb": "mkp-bnb (host)",
        "mkp-dfs": "mkp-dfs (device)",
        "ortools_bnb": "OR-Tools b&b",
        "cpsat": "CP-SAT",
    }
    labelled: set[str] = set()
    x = 0
    for name, rows in result["sets"].items():
        for key, marker, color in (
            ("auto", "o", "C0"),
            ("mkp-bnb", "x", "C3"),
            ("mkp-dfs", "d", "C4"),
            ("ortools_bnb", "s", "C1"),
            ("cpsat", "^", "C2"),
        ):
            for proved in (True, False):
                chosen = [
                    (x + i, r[key]["seconds"])
                    for i, r in enumerate(rows)
                    if r.get(key) and bool(r[key].get("optimal", r[key].get("proved"))) == proved
                ]
                label = names[key] + ("" if proved else " (no proof)")
                if chosen:
                    ax.plot(
                        *zip(*chosen),
                        marker,
                        color=color,
                        linestyle="none",
                        fillstyle="full" if proved else "none",
                        label=None if label in labelled else label,
                    )
                    labelled.add(label)
        ax.axvline(x - 0.5, color="C7", linewidth=0.5)
        ax.annotate(name, (x, 1.0), xycoords=("data", "axes fraction"), fontsize=8, va="top")
        x += len(rows)
    ax.set_yscale("log")
    ax.set_xlabel("instance (set after set)")
    ax.set_ylabel("seconds, end to end (log)")
    ax.legend(loc="lower right", fontsize=8)
    ax.set_title("multidimensional knapsacks")


def _small_rows(result: dict, ax) -> None:
    """Kernel time of each batch: rows on chip against item steps (log scale)."""
    cases = result["cases"]
    y = np.arange(len(cases))
    for shift, key, label in (
        (-0.2, "default", "dp-batch (default: rows on chip on a GPU)"),
        (0.2, "item_steps", "dp-batch, item steps (on_chip=False)"),
    ):
        ax.barh(y + shift, [c[key]["kernel_seconds"] for c in cases], height=0.4, label=label)
    ax.set_yticks(y, [f"{c['name']} x {c['instances']}" for c in cases])
    ax.set_xscale("log")
    ax.set_xlabel("kernel seconds for the batch (log)")
    ax.legend(loc="lower right", fontsize=8)
    ax.set_title("batches of small knapsacks")


def _tsp(result: dict, ax) -> None:
    """Seconds per instance (log) against its cities, for tsp-bnb and the peers; hollow markers:
    stopped at the limit without a proof."""
    names = {"clsolve": result.get("solver", "tsp-bnb"), "scip": "SCIP (DFJ, lazy cuts)", "highs": "HiGHS (DFJ, rounds)"}
    for key, marker, color in (("clsolve", "o", "C0"), ("scip", "s", "C1"), ("highs", "^", "C2")):
        for proved in (True, False):
            chosen = [
                (r["n"], r[key]["seconds"])
                for r in result["rows"]
                if r.get(key) and bool(r[key].get("optimal", r[key].get("proved"))) == proved
            ]
            if chosen:
                label = names[key] + ("" if proved else " (no proof)")
                ax.plot(*zip(*chosen), marker, color=color, linestyle="none", fillstyle="full" if proved else "none", label=label)
    ax.set_yscale("log")
    ax.set_xlabel("cities (an asymmetric problem's own n)")
    ax.set_ylabel("seconds, end to end (log)")
    ax.legend(loc="upper left", fontsize=8)
    ax.set_title("exact TSP: TSPLIB")


DRAW: dict[str, Callable] = {
    "msb": _batch,
    "class-a": _batch,
    "dp-rows": _dp_rows,
    "bnb": _bnb,
    "mckp": _mckp,
    "wavefront": _wavefront,
    "scale": _scale,
    "hard-kp": _hard_kp,
    "kpm": _kpm,
    "small-rows": _small_rows,
    "tsp": _tsp,
}


def plot(result: dict, path: str) -> None:
    """Draw ``result`` (a benchmark's JSON) into ``path`` (.svg, .png or .pdf)."""
    name = result.get("benchmark", "")
    if name == "batch" or "solvers" in result and name not in DRAW:
        name = "msb"
    if name not in DRAW:
        raise FormatError(path, None, f"no figure for benchmark {name!r}; figures: {', '.join(DRAW)}")
    plt = _pyplot()
    figure, ax = plt.subplots(figsize=(8, 4.5), layout="constrained")
    DRAW[name](result, ax)
    ax.grid(True, which="both", alpha=0.3)
    ax.set_title(f"{ax.get_title()}\n{_device(result)}", fontsize=10)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, metadata={"Date": None} if str(path).endswith(".svg") else None)
    plt.close(figure)
