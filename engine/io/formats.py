"""Reading instance files. Every reader returns a list of problems and raises FormatError naming
the file and line on malformed input.

Formats (``--format`` name, how it is recognised when not given):

``json``      clsolve's own: ``{"profits": [..], "weights": [..] or [[..], ..], "capacities": c or [..],
              "name": "..", "optimum": ..}``, or ``{"problems": [ {..}, .. ]}`` for several (``*.json``).
``pisinger``  ``n c`` then n lines ``p w``, optionally a last line with an optimal 0/1 vector
              (Pisinger's generator, the ``large_scale`` / ``low-dimensional`` sets).
``jooken``    ``n``, then n lines ``id p w``, then ``c`` (Jooken et al. 2022 hard instances).
``mknap``     OR-Library: K, then per problem ``n m opt``, n profits, m rows of n weights, m capacities.
``mknap2``    OR-Library's SAC-94 set (``mknap2.txt``): per problem a ``problem NAME.DAT`` line between
              ``+++++`` lines, then ``m n`` (constraints first), n profits, m capacities, m rows of n
              weights and the optimum (lines with ``+++++`` and a ``problem`` line).
``msb``       2DPackLib MSB JSON (``"Container"``/``"Items"``) turned into KP2 as [LLMF]/[LLM] do.
``class-a``   2DPackLib one-line format ``name;n;W;H;w,h[,count];..`` (lines containing ``;``), into KP2.
``tsplib``    TSPLIB95 ``.tsp`` / ``.atsp`` (a header with DIMENSION), into a TSP (``clsolve.io.tsplib``).
``fasta``     FASTA (starts with ``>``): each two consecutive records make one LCS (``clsolve.io.sequences``).
``sequences`` one sequence per line (non-numeric), each two consecutive lines one LCS.

JSON objects may also hold ``{"a": .., "b": ..}`` (an LCS; strings or integer lists) or
``{"distances": [[..], ..]}`` (a TSP), with optional ``"name"`` and ``"optimum"``.

For the 2-D packing sets, c1 = plate height and c2 = plate width, item weights are (height, width),
the profit is height x width, and each item type appears once (counts are ignored), as in papers
000 and 001. ``scale`` multiplies every number before the integer check (for data with decimals).
"""

# long module: one reader per instance format, with the detection that picks among them

from __future__ import annotations

import json
import re
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

from ..errors import FormatError, InvalidProblemError
from ..family.problems import BoundedKnapsack, ChangeMaking, MultipleChoice, MultipleKnapsack
from ..problems import LCS, TSP, Knapsack
from .numbers import exact
from .sequences import looks_like_fasta, looks_like_sequences, read_fasta, read_sequences
from .tsplib import (
    distances_from_coordinates,  # noqa: F401  (public: a TSP from coordinates)
    looks_like_tsplib,
    read_tsplib,
)

FORMATS = ("json", "pisinger", "jooken", "mknap", "mknap2", "msb", "class-a", "tsplib", "fasta", "sequences")
#: A problem's first line in mknap2: ``problem NAME.DAT``.
_MKNAP2_PROBLEM = re.compile(r"^[ \t]*problem[ \t]+(\S+)[ \t]*$", re.MULTILINE)


class _Tokens:
    """Whitespace-separated numbers with the line each came from."""

    def __init__(self, path: str, text: str):
        self.path = path
        self.items: list[tuple[str, int]] = []
        for number, line in enumerate(text.splitlines(), start=1):
            self.items.extend((token, number) for token in line.split())
        self.pos = 0

    def left(self) -> int:
        return len(self.items) - self.pos

    def line(self) -> int | None:
        if self.pos < len(self.items):
            return self.items[self.pos][1]
        return self.items[-1][1] if self.items else None

    def take(self, what: str, scale: Fraction) -> int:
        if self.pos >= len(self.items):
            raise FormatError(self.path, self.line(), f"file ends where {what} was expected")
        token, line = self.items[self.pos]
        self.pos += 1
        return _number(self.path, line, token, what, scale)

    def take_count(self, what: str, minimum: int = 0) -> int:
        line = self.line()
        count = self.take(what, Fraction(1))
        if count < minimum:
            raise FormatError(self.path, line, f"{what} = {count}; must be at least {minimum}")
        return count

    def take_optimum(self, what: str, scale: Fraction) -> int | None:
        """A published optimum (times ``scale``), kept when positive and integral (OR-Library writes 0
        for unknown; mknap1's problem 2 has decimals and needs ``scale`` 10), else None."""
        if self.pos >= len(self.items):
            raise FormatError(self.path, self.line(), f"file ends where {what} was expected")
        token, line = self.items[self.pos]
        self.pos += 1
        try:
            value = exact(token) * scale
        except ValueError as exc:
            raise FormatError(self.path, line, f"{what}: {exc}") from None
        return int(value) if value.denominator == 1 and value > 0 else None


def _number(path: str, line: int | None, token, what: str, scale: Fraction) -> int:
    try:
        value = exact(token) * scale
    except ValueError as exc:
        raise FormatError(path, line, f"{what}: {exc}") from None
    if value.denominator != 1:
        raise FormatError(
            path,
            line,
            f"{what}: {token} is fractional (scaled by {scale}); clsolve solves integer "
            "problems exactly: pass a scale such as 1e6 (--scale) to make it integral",
        )
    if value < 0:
        raise FormatError(path, line, f"{what}: {token} is negative; must be >= 0", invalid=True)
    return int(value)


def _knapsack(path: str, line: int | None, **fields) -> Knapsack:
    try:
        return Knapsack(**fields)
    except InvalidProblemError as exc:
        raise FormatError(path, line, str(exc), invalid=True) from None


def read_pisinger(path: str, text: str, scale: Fraction = Fraction(1)) -> list[Knapsack]:
    tokens = _Tokens(path, text)
    n = tokens.take_count("item count n", 1)
    capacity = tokens.take("capacity c", scale)
    profits, weights = [], []
    for i in range(n):
        profits.append(tokens.take(f"profit of item {i + 1}", scale))
        weights.append(tokens.take(f"weight of item {i + 1}", scale))
    if tokens.left() not in (0, n):
        raise FormatError(
            path,
            tokens.line(),
            f"{tokens.left()} numbers after the {n} items; expected none or an optimal 0/1 vector of {n} entries",
        )
    for i in range(tokens.left()):
        if tokens.take(f"solution entry {i + 1}", Fraction(1)) not in (0, 1):
            raise FormatError(path, tokens.line(), f"solution entry {i + 1} is not 0 or 1")
    return [_knapsack(path, None, profits=profits, weights=weights, capacities=capacity, name=Path(path).name)]


def read_jooken(path: str, text: str, scale: Fraction = Fraction(1)) -> list[Knapsack]:
    tokens = _Tokens(path, text)
    n = tokens.take_count("item count n", 1)
    profits, weights = [], []
    for i in range(n):
        tokens.take(f"id of item {i + 1}", Fraction(1))
        profits.append(tokens.take(f"profit of item {i + 1}", scale))
        weights.append(tokens.take(f"weight of item {i + 1}", scale))
    capacity = tokens.take("capacity c (last line)", scale)
    if tokens.left():
        raise FormatError(path, tokens.line(), "unexpected numbers after the capacity line")
    name = Path(path).parent.name if Path(path).name == "test.in" else Path(path).name
    return [_knapsack(path, None, profits=profits, weights=weights, capacities=capacity, name=name)]


def read_mknap(path: str, text: str, scale: Fraction = Fraction(1)) -> list[Knapsack]:
    tokens = _Tokens(path, text)
    count = tokens.take_count("number of problems K", 1)
    problems = []
    for k in range(count):
        line = tokens.line()
        n = tokens.take_count(f"problem {k + 1}: item count n", 1)
        m = tokens.take_count(f"problem {k + 1}: constraint count m", 1)
        optimum = tokens.take_optimum(f"problem {k + 1}: optimal value", scale)
        profits = [tokens.take(f"problem {k + 1}: profit {i + 1}", scale) for i in range(n)]
        rows = [[tokens.take(f"problem {k + 1}: weight ({d + 1}, {i + 1})", scale) for i in range(n)] for d in range(m)]
        capacities = [tokens.take(f"problem {k + 1}: capacity {d + 1}", scale) for d in range(m)]
        problems.append(
            _knapsack(
                path,
                line,
                profits=profits,
                weights=rows,
                weights_by="dimension",
                capacities=capacities,
                name=f"{Path(path).name}#{k + 1}",
                known_optimum=optimum,
            )
        )
    if tokens.left():
        raise FormatError(path, tokens.line(), f"unexpected numbers after the {count} problems")
    return problems


def _plate(path: str, name: str, height: int, width: int, items: list[tuple[int, int]]) -> Knapsack:
    return _knapsack(
        path, None, profits=[h * w for h, w in items], weights=items, weights_by="item", capacities=[height, width], name=name
    )


def _json(path: str, text: str):
    """``text`` parsed as JSON; every failure a FormatError with the line where the parser stopped."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise FormatError(path, exc.lineno, f"invalid JSON: {exc.msg}") from None
    except RecursionError:
        raise FormatError(path, None, "invalid JSON: nested too deeply") from None
    except ValueError as exc:  # integers of more digits than Python converts (sys.set_int_max_str_digits)
        raise FormatError(path, None, f"invalid JSON: {exc}") from None


def read_msb(path: str, text: str, scale: Fraction = Fraction(1)) -> list[Knapsack]:
    data = _json(path, text)
    try:
        container = data["Container"]
        height = _number(path, None, container["Dy"], "Container.Dy", scale)
        width = _number(path, None, container["Dx"], "Container.Dx", scale)
        items = [
            (_number(path, None, it["Dy"], f"Items[{i}].Dy", scale), _number(path, None, it["Dx"], f"Items[{i}].Dx", scale))
            for i, it in enumerate(data["Items"])
        ]
    except (KeyError, TypeError) as exc:
        raise FormatError(path, None, f"not a 2DPackLib MSB instance: missing field {exc}") from None
    return [_plate(path, str(data.get("Name", Path(path).stem)), height, width, items)]


def read_class_a(path: str, text: str, scale: Fraction = Fraction(1)) -> list[Knapsack]:
    problems = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        fields = line.strip().rstrip(";").split(";")
        if len(fields) < 5:
            raise FormatError(path, number, "expected name;n;W;H;w,h[,count];... with at least one item")
        name = fields[0]
        kinds = _number(path, number, fields[1], "n (distinct items)", Fraction(1))
        width = _number(path, number, fields[2], "W (plate width)", scale)
        height = _number(path, number, fields[3], "H (plate height)", scale)
        items = []
        for j, spec in enumerate(fields[4:], start=1):
            parts = spec.split(",")
            if len(parts) not in (2, 3):
                raise FormatError(path, number, f"item {j}: expected w,h or w,h,count, got {spec!r}")
            w = _number(path, number, parts[0], f"item {j} width", scale)
            h = _number(path, number, parts[1], f"item {j} height", scale)
            items.append((h, w))
        if len(items) != kinds:
            raise FormatError(path, number, f"{name}: declares n = {kinds} item types but lists {len(items)}")
        problems.append(_plate(path, name, height, width, items))
    if not problems:
        raise FormatError(path, 1, "no instance lines")
    return problems


def read_json(path: str, text: str, scale: Fraction = Fraction(1)) -> list[Knapsack]:
    data = _json(path, text)
    if not isinstance(data, dict):
        raise FormatError(path, 1, f'expected a JSON object (a problem, or {{"problems": [..]}}), got {type(data).__name__}')
    entries = data.get("problems", [data])
    if not isinstance(entries, list) or not entries:
        raise FormatError(path, None, '"problems" must be a non-empty list')
    problems = []
    for k, entry in enumerate(entries):
        where = f"problems[{k}]" if len(entries) > 1 or "problems" in data else "problem"
        if not isinstance(entry, dict):
            raise FormatError(path, None, f"{where}: expected an object")
        if "a" in entry or "b" in entry or "distances" in entry:
            problems.append(_grid_problem(path, where, entry))
            continue
        if entry.get("kind") in FAMILY_KINDS or "counts" in entry:
            problems.append(_family_problem(path, where, entry, scale))
            continue
        missing = [f for f in ("profits", "weights", "capacities") if f not in entry]
        if missing:
            raise FormatError(path, None, f"{where}: missing field(s) {', '.join(missing)}")

        def scaled(value, field, where=where):
            if isinstance(value, list):
                return [scaled(v, f"{field}[{i}]") for i, v in enumerate(value)]
            if isinstance(value, bool) or not isinstance(value, (int, float, str)):
                raise FormatError(path, None, f"{where}.{field}: {str(value)[:40]!r} is not a number")
            return _number(path, None, value, f"{where}.{field}", scale)

        try:
            problems.append(
                Knapsack(
                    scaled(entry["profits"], "profits"),
                    scaled(entry["weights"], "weights"),
                    scaled(entry["capacities"], "capacities"),
                    name=str(entry.get("name", "")),
                    known_optimum=entry.get("optimum") if scale == 1 else None,
                    weights_by=entry.get("weights_by"),
                )
            )
        except InvalidProblemError as exc:
            raise FormatError(path, None, f"{where}: {exc}", invalid=True) from None
    return problems


#: The ``kind`` of a JSON problem of the knapsack family (a problem with ``counts`` is ``bounded``).
FAMILY_KINDS = ("bounded", "unbounded", "change-making", "multiple-choice", "multiple")


def _family_problem(path: str, where: str, entry: dict, scale: Fraction):
    """A bounded or unbounded knapsack, or change-making, from its JSON object."""
    kind = entry.get("kind", "bounded")
    if kind not in FAMILY_KINDS:
        raise FormatError(path, None, f"{where}.kind: expected one of {', '.join(FAMILY_KINDS)}, got {kind!r}")
    if kind == "multiple":
        return _multiple(path, where, entry, scale)
    needed = ("weights", "capacity") + (("profits",) if kind != "change-making" else ())
    needed += {"bounded": ("counts",), "multiple-choice": ("classes",)}.get(kind, ())
    missing = [f for f in needed if f not in entry]
    if missing:
        raise FormatError(path, None, f"{where}: a {kind} problem needs field(s) {', '.join(missing)}")
    if kind == "unbounded" and "counts" in entry:
        raise FormatError(path, None, f"{where}.counts: an unbounded knapsack has no counts (kind 'bounded' has)")

    def scaled(value, field):
        if isinstance(value, list):
            return [scaled(v, f"{field}[{i}]") for i, v in enumerate(value)]
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise FormatError(path, None, f"{where}.{field}: {str(value)[:40]!r} is not a number")
        return _number(path, None, value, f"{where}.{field}", scale)

    name, optimum = str(entry.get("name", "")), entry.get("optimum") if scale == 1 else None
    counts = entry.get("counts")
    if counts is not None:
        if not isinstance(counts, list):
            raise FormatError(path, None, f"{where}.counts: expected a list of integers (one per item)")
        counts = [_number(path, None, c, f"{where}.counts[{i}]", Fraction(1)) for i, c in enumerate(counts)]
    try:
        if kind == "multiple-choice":
            return MultipleChoice(
                scaled(entry["profits"], "profits"),
                scaled(entry["weights"], "weights"),
                scaled(entry["capacity"], "capacity"),
                _labels(path, where, entry["classes"]),
                _flag(path, f"{where}.at_most_one", entry.get("at_most_one", False)),
                name,
                optimum,
            )
        if kind == "change-making":
            return ChangeMaking(scaled(entry["weights"], "weights"), scaled(entry["capacity"], "capacity"), counts, name, optimum)
        return BoundedKnapsack(
            scaled(entry["profits"], "profits"),
            scaled(entry["weights"], "weights"),
            scaled(entry["capacity"], "capacity"),
            counts,
            name,
            optimum,
        )
    except InvalidProblemError as exc:
        raise FormatError(path, None, f"{where}: {exc}", invalid=True) from None


def _multiple(path: str, where: str, entry: dict, scale: Fraction) -> MultipleKnapsack:
    """A multiple knapsack from its JSON object: profits, weights and a capacity per knapsack."""
    missing = [f for f in ("profits", "weights", "capacities") if f not in entry]
    if missing:
        raise FormatError(path, None, f"{where}: a multiple knapsack needs field(s) {', '.join(missing)}")
    fields = {}
    for key in ("profits", "weights", "capacities"):
        values = entry[key] if isinstance(entry[key], list) else [entry[key]]
        fields[key] = [_number(path, None, v, f"{where}.{key}[{i}]", scale) for i, v in enumerate(values)]
    try:
        return MultipleKnapsack(
            **fields, name=str(entry.get("name", "")), known_optimum=entry.get("optimum") if scale == 1 else None
        )
    except InvalidProblemError as exc:
        raise FormatError(path, None, f"{where}: {exc}", invalid=True) from None


def _labels(path: str, where: str, labels) -> list[int]:
    if not isinstance(labels, list):
        raise FormatError(path, None, f"{where}.classes: expected a list of class numbers (one per item)")
    return [_number(path, None, c, f"{where}.classes[{i}]", Fraction(1)) for i, c in enumerate(labels)]


def _flag(path: str, where: str, value) -> bool:
    if not isinstance(value, bool):
        raise FormatError(path, None, f"{where}: expected true or false, got {value!r}")
    return value


def _grid_problem(path: str, where: str, entry: dict):
    try:
        if "distances" in entry:
            return TSP(entry["distances"], name=str(entry.get("name", "")), known_optimum=entry.get("optimum"))
        missing = [f for f in ("a", "b") if f not in entry]
        if missing:
            raise FormatError(path, None, f"{where}: an LCS needs fields a and b; missing {', '.join(missing)}")
        return LCS(entry["a"], entry["b"], name=str(entry.get("name", "")), known_optimum=entry.get("optimum"))
    except InvalidProblemError as exc:
        raise FormatError(path, None, f"{where}: {exc}", invalid=True) from None


def read_mknap2(path: str, text: str, scale: Fraction = Fraction(1)) -> list[Knapsack]:
    """OR-Library's ``mknap2.txt`` (or a part of it): every ``problem NAME.DAT`` block, named NAME,
    with the optimum that ends it; the notes before the first block (with their worked example) are
    not read."""
    heads = list(_MKNAP2_PROBLEM.finditer(text))
    if not heads:
        raise FormatError(path, None, "no 'problem NAME.DAT' line: not an mknap2 file")
    problems = []
    for k, head in enumerate(heads):
        end = heads[k + 1].start() if k + 1 < len(heads) else len(text)
        before = text.count("\n", 0, head.end())  # the block's tokens keep the file's line numbers
        tokens = _Tokens(path, "\n" * before + text[head.end() : end].replace("+", " "))
        name = re.sub(r"\.dat$", "", head.group(1), flags=re.IGNORECASE)
        m = tokens.take_count(f"{name}: constraint count m", 1)
        n = tokens.take_count(f"{name}: item count n", 1)
        profits = [tokens.take(f"{name}: profit {i + 1}", scale) for i in range(n)]
        capacities = [tokens.take(f"{name}: capacity {d + 1}", scale) for d in range(m)]
        rows = [[tokens.take(f"{name}: weight ({d + 1}, {i + 1})", scale) for i in range(n)] for d in range(m)]
        optimum = tokens.take_optimum(f"{name}: optimal value", scale)
        if tokens.left():
            raise FormatError(path, tokens.line(), f"{name}: unexpected numbers after the optimal value")
        problems.append(
            _knapsack(
                path,
                before + 1,
                profits=profits,
                weights=rows,
                weights_by="dimension",
                capacities=capacities,
                name=name,
                known_optimum=optimum,
            )
        )
    return problems


READERS: dict[str, Callable[..., list]] = {
    "json": read_json,
    "pisinger": read_pisinger,
    "jooken": read_jooken,
    "mknap": read_mknap,
    "mknap2": read_mknap2,
    "msb": read_msb,
    "class-a": read_class_a,
    "tsplib": read_tsplib,
    "fasta": read_fasta,
    "sequences": read_sequences,
}


def detect(path: str, text: str) -> str:
    """The format of ``text`` (see the module docstring for the rules)."""
    stripped = text.lstrip()
    if stripped.startswith("{"):
        return "msb" if '"Container"' in text else "json"
    if looks_like_fasta(text):
        return "fasta"
    if looks_like_tsplib(text):
        return "tsplib"
    if "+++++" in text and _MKNAP2_PROBLEM.search(text):
        return "mknap2"
    first = stripped.splitlines()[0] if stripped else ""
    if ";" in text[:4096]:
        return "class-a"
    if looks_like_sequences(text):
        return "sequences"
    head = first.split()
    if len(head) == 2:
        return "pisinger"
    if len(head) == 1:
        tokens = text.split()
        try:
            n = int(head[0])
        except ValueError:
            raise FormatError(path, 1, f"cannot tell the format from the first line {first!r}") from None
        return "jooken" if len(tokens) == 3 * n + 2 else "mknap"
    raise FormatError(path, 1, f"cannot tell the format from the first line {first!r}; pass a format")


def read(path: str | Path, format: str | None = None, scale: float | int | str = 1) -> list:
    """Read every problem in ``path``. ``format`` is one of FORMATS or None to detect it."""
    path = str(path)
    try:
        text = Path(path).read_text()
    except UnicodeDecodeError:
        raise FormatError(path, None, "not a text file") from None
    except OSError as exc:
        raise FormatError(path, None, exc.strerror or str(exc)) from None
    return read_text(path, text, format, scale)


def scale_factor(where: str, scale: float | int | str) -> Fraction:
    """``scale`` as the exact positive factor the readers multiply every number by."""
    try:
        factor = exact(scale)
    except ValueError as exc:
        raise FormatError(where, None, f"scale: {exc}") from None
    if factor <= 0:
        raise FormatError(where, None, f"scale must be positive, got {scale}")
    return factor


def read_text(label: str, text: str, format: str | None = None, scale: float | int | str = 1) -> list:
    """Every problem in ``text`` (read from standard input, say); ``label`` names it in errors."""
    path = label
    if not text.strip():
        raise FormatError(path, None, "the file is empty")
    chosen = format or detect(path, text)
    if chosen not in READERS:
        raise FormatError(path, None, f"unknown format {chosen!r}; known formats: {', '.join(FORMATS)}")
    factor = scale_factor(path, scale)
    try:
        return READERS[chosen](path, text, factor)
    except (RecursionError, MemoryError) as exc:
        # every reader checks counts against the file before it allocates; this is the last guard
        raise FormatError(path, None, f"cannot be read as {chosen}: {type(exc).__name__}") from None
