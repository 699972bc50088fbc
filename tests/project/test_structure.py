"""The package's structure: no import cycle among clsolve's modules (imports inside functions count:
they only hide a cycle)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = {"clsolve": ROOT / "engine", "clsolve_plugins": ROOT / "plugins"}


def _modules() -> dict[str, Path]:
    found = {}
    for package, folder in PACKAGES.items():
        for path in folder.rglob("*.py"):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join([package, *parts])] = path
    return found


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The clsolve modules ``name`` imports (``from X import y`` counts y when it is a module)."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            module = ".".join(p for p in (base, node.module or "") if p)
            targets = [module] + [f"{module}.{alias.name}" for alias in node.names]
        else:
            continue
        out.update(t for t in targets if t in modules)
    out.discard(name)
    return out


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` (a list of modules, the first repeated last), or None."""
    state: dict[str, int] = {}  # 1: on the path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start)):
            return found
    return None


def test_no_import_cycles():
    modules = _modules()
    # a package's __init__ importing its own sub-modules is how a package is built, not a cycle
    graph = {name: {m for m in _imports(name, path, modules) if not name.startswith(m + ".")} for name, path in modules.items()}
    cycle = _cycle(graph)
    assert cycle is None, " -> ".join(cycle)


def test_the_cycle_finder_finds_one():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


MODULE_LINES, FUNCTION_LINES = 400, 60


def _sources():
    for folder in ("engine", "plugins"):
        yield from sorted((ROOT / folder).rglob("*.py"))


def test_long_modules_and_functions_say_why():
    """A module over 400 lines carries a ``# long module: reason`` line; a function over 60 lines a
    ``# long: reason`` comment just above its ``def``."""
    unexplained = []
    for path in _sources():
        text = path.read_text()
        lines = text.splitlines()
        if len(lines) > MODULE_LINES and "# long module: " not in text:
            unexplained.append(f"{path.relative_to(ROOT)}: {len(lines)} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                if length > FUNCTION_LINES and not lines[first - 2].strip().startswith("# long: "):
                    unexplained.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}: {length} lines")
    assert not unexplained, "\n".join(unexplained)


def test_every_package_folder_is_in_the_wheel():
    """A sub-package missing from pyproject's list works in an editable install and is absent from
    the wheel: every folder with an ``__init__.py`` is listed."""
    tomllib = __import__("pytest").importorskip("tomllib")  # Python 3.11+
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    for top, name in (("engine", "clsolve"), ("plugins", "clsolve_plugins")):
        for init in (ROOT / top).rglob("__init__.py"):
            parts = init.parent.relative_to(ROOT / top).parts
            if "example-plugin" not in parts:
                assert ".".join((name, *parts)) in listed, init


def _clsolve_imports(path: Path) -> set[str]:
    """The clsolve modules a file imports by name (``from clsolve.x import y`` gives clsolve.x)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names if alias.name.split(".")[0] == "clsolve")
        elif isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").split(".")[0] == "clsolve":
            out.add(str(node.module))
    return out


def test_plugins_use_clsolve_through_the_sdk_only():
    """The built-in plugins and the tutorial's plugin import ``clsolve.sdk`` and nothing else of
    clsolve: a built-in plugin and a stranger's look the same."""
    files = sorted((ROOT / "plugins").rglob("*.py")) + sorted((ROOT / "docs" / "example-plugin").rglob("*.py"))
    others = {
        f"{path.relative_to(ROOT)}: {module}"
        for path in files
        for module in _clsolve_imports(path)
        if module != "clsolve.sdk" and not path.name.startswith("test_")
    }
    assert not others, "\n".join(sorted(others))


#: What ``clsolve.bench`` may import of clsolve: the public API (``clsolve`` itself, its generators, the
#: calibration of the cost model) and the plugin SDK, as a user's benchmark would; besides its own modules.
BENCH_MAY_IMPORT = {"clsolve", "clsolve.sdk", "clsolve.generators", "clsolve.calibration"}


def test_bench_uses_the_public_api_and_the_sdk_only():
    files = sorted((ROOT / "engine" / "bench").rglob("*.py"))
    wrong = {
        f"{path.relative_to(ROOT)}: {module}"
        for path in files
        for module in _clsolve_imports(path)
        if module not in BENCH_MAY_IMPORT
    }
    upward = {
        f"{path.relative_to(ROOT)}: from {'.' * node.level}{node.module or ''}"
        for path in files
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.ImportFrom) and node.level > 1
    }  # from .. import: the engine's insides
    assert not wrong | upward, "\n".join(sorted(wrong | upward))


#: What a plugin leaves to the engine: buffers come from a ``Workspace`` (counted by the plan), time from
#: ``deadline.Stopwatch`` and the solve's limit from ``deadline``'s functions.
ENGINE_ONLY = ("cl.Buffer(", "program.kernel(", "perf_counter", "deadline.current(")


def test_plugins_make_no_buffer_or_kernel_and_read_no_clock_of_their_own():
    files = sorted((ROOT / "plugins").rglob("*.py")) + sorted((ROOT / "docs" / "example-plugin").rglob("*.py"))
    raw = {
        f"{path.relative_to(ROOT)}:{number}: {word}"
        for path in files
        for number, line in enumerate(path.read_text().splitlines(), 1)
        for word in ENGINE_ONLY
        if word in line
    }
    assert not raw, "\n".join(sorted(raw))


def test_the_sdk_lists_what_it_exports():
    import clsolve.sdk as sdk

    assert sorted(sdk.__all__) == sorted(set(sdk.__all__))
    public = {name for name in vars(sdk) if not name.startswith("_") and name != "annotations"}
    assert public == set(sdk.__all__)


#: clsolve's packages (and top-level modules) from the bottom up: each imports only from layers below it.
LAYERS = [
    {"errors"},
    {"problems", "options"},
    {"generators"},
    {"family"},
    {"solution", "io", "inputs", "datasets"},
    {"runtime"},
    {"plan", "batch"},
    {"mkp"},
    {"dp"},
    {"plugin"},
    {"solving", "sdk", "examples"},
    {"scaleout", "calibration"},
    {"api"},
    {"bench"},
    {"cli"},
    {"__main__", "plugins"},
]


def _package(module: str) -> str:
    parts = module.split(".")
    return "plugins" if parts[0] == "clsolve_plugins" else ".".join(parts[1:2]) or "clsolve"


def test_packages_import_only_from_the_layers_below():
    """No package-level cycle and no arrow running back up: ``clsolve.dp`` may use ``clsolve.runtime``,
    never the reverse (``clsolve/__init__.py`` gathers the public API from every layer)."""
    layer = {name: depth for depth, names in enumerate(LAYERS) for name in names}
    modules = _modules()
    wrong, unplaced = [], set()
    for name, path in modules.items():
        source = _package(name)
        if source == "clsolve":
            continue
        for target in {_package(m) for m in _imports(name, path, modules)} - {source, "clsolve"}:
            if source not in layer or target not in layer:
                unplaced.update(p for p in (source, target) if p not in layer)
            elif layer[target] >= layer[source]:
                wrong.append(f"{name} -> {target}")
    assert not unplaced, f"packages in no layer: {sorted(unplaced)}"
    assert not wrong, "\n".join(sorted(wrong))
