"""TSPLIB95 files (``.tsp``, ``.atsp``) as ``TSP`` problems, with TSPLIB's own distance rules.

Supported: EDGE_WEIGHT_TYPE EXPLICIT (FULL_MATRIX, UPPER_ROW, LOWER_ROW, UPPER_DIAG_ROW,
LOWER_DIAG_ROW and their _COL twins) and the coordinate types EUC_2D, CEIL_2D, ATT and GEO
(Reinelt, "TSPLIB 95", Sec. 2: nint rounding for EUC_2D, the pseudo-Euclidean ATT rule, and GEO's
degrees.minutes on a sphere of radius 6378.388 km with truncation). Sections after the weights
(DISPLAY_DATA_SECTION, ...) are skipped.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ..errors import FormatError, InvalidProblemError
from ..problems import MAX_CITIES, TSP
from .numbers import exact

_SECTIONS = (
    "NODE_COORD_SECTION",
    "EDGE_WEIGHT_SECTION",
    "DISPLAY_DATA_SECTION",
    "FIXED_EDGES_SECTION",
    "TOUR_SECTION",
    "DEPOT_SECTION",
    "DEMAND_SECTION",
    "EOF",
)
COORDINATE_TYPES = ("EUC_2D", "CEIL_2D", "ATT", "GEO")
EXPLICIT_FORMATS = (
    "FULL_MATRIX",
    "UPPER_ROW",
    "LOWER_ROW",
    "UPPER_DIAG_ROW",
    "LOWER_DIAG_ROW",
    "UPPER_COL",
    "LOWER_COL",
    "UPPER_DIAG_COL",
    "LOWER_DIAG_COL",
)


def looks_like_tsplib(text: str) -> bool:
    head = text.lstrip()[:2000].upper()
    return "DIMENSION" in head and ("EDGE_WEIGHT_TYPE" in head or "NODE_COORD_SECTION" in head)


def _nint(x: float) -> int:
    return int(x + 0.5)


def _geo(coordinate: float) -> float:
    degrees = int(coordinate)
    minutes = coordinate - degrees
    return 3.141592 * (degrees + 5.0 * minutes / 3.0) / 180.0  # TSPLIB's PI, as its distances use


def distances_from_coordinates(kind: str, xy: np.ndarray) -> np.ndarray:
    """The TSPLIB distance matrix of points ``xy`` (n, 2) under rule ``kind``."""
    n = len(xy)
    out = np.zeros((n, n), dtype=np.int64)
    if kind == "GEO":
        latitude = [_geo(x) for x in xy[:, 0]]
        longitude = [_geo(y) for y in xy[:, 1]]
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            if kind == "GEO":
                q1 = math.cos(longitude[i] - longitude[j])
                q2 = math.cos(latitude[i] - latitude[j])
                q3 = math.cos(latitude[i] + latitude[j])
                out[i, j] = int(6378.388 * math.acos(0.5 * ((1.0 + q1) * q2 - (1.0 - q1) * q3)) + 1.0)
                continue
            dx, dy = xy[i, 0] - xy[j, 0], xy[i, 1] - xy[j, 1]
            if kind == "EUC_2D":
                out[i, j] = _nint(math.sqrt(dx * dx + dy * dy))
            elif kind == "CEIL_2D":
                out[i, j] = math.ceil(math.sqrt(dx * dx + dy * dy))
            else:  # ATT
                r = math.sqrt((dx * dx + dy * dy) / 10.0)
                t = _nint(r)
                out[i, j] = t + 1 if t < r else t
    return out


def _explicit(path: str, fmt: str, n: int, numbers: list[int], line: int | None) -> np.ndarray:
    twins = {
        "UPPER_COL": "LOWER_ROW",
        "LOWER_COL": "UPPER_ROW",
        "UPPER_DIAG_COL": "LOWER_DIAG_ROW",
        "LOWER_DIAG_COL": "UPPER_DIAG_ROW",
    }
    fmt = twins.get(fmt, fmt)
    if fmt == "FULL_MATRIX":
        cells = [(i, j) for i in range(n) for j in range(n)]
    elif fmt == "UPPER_ROW":
        cells = [(i, j) for i in range(n) for j in range(i + 1, n)]
    elif fmt == "LOWER_ROW":
        cells = [(i, j) for i in range(n) for j in range(i)]
    elif fmt == "UPPER_DIAG_ROW":
        cells = [(i, j) for i in range(n) for j in range(i, n)]
    else:  # LOWER_DIAG_ROW
        cells = [(i, j) for i in range(n) for j in range(i + 1)]
    if len(numbers) != len(cells):
        raise FormatError(
            path, line, f"EDGE_WEIGHT_SECTION has {len(numbers)} numbers, {fmt} of dimension {n} needs exactly {len(cells)}"
        )
    matrix = np.zeros((n, n), dtype=object)
    for (i, j), value in zip(cells, numbers):
        matrix[i, j] = value
        if fmt != "FULL_MATRIX":
            matrix[j, i] = value
    return matrix


# long: the TSPLIB sections in the order of the format's specification
def read_tsplib(path: str, text: str, scale=Fraction(1)) -> list[TSP]:
    header: dict[str, str] = {}
    header_lines: dict[str, int] = {}
    lines = text.splitlines()
    index = 0
    sections: dict[str, tuple[int, list[str]]] = {}
    while index < len(lines):
        raw = lines[index].strip()
        index += 1
        if not raw:
            continue
        key = raw.split(":")[0].strip().upper() if ":" in raw else raw.split()[0].upper()
        if key == "EOF":
            break
        if key in _SECTIONS:
            start = index
            body = []
            while index < len(lines):
                token = lines[index].strip().split()
                if token and token[0].upper().rstrip(":") in _SECTIONS:
                    break
                body.append(lines[index])
                index += 1
            sections[key] = (start + 1, body)
            continue
        if ":" not in raw:
            raise FormatError(path, index, f"expected 'KEY : value' in the TSPLIB header, got {raw!r}")
        header[key] = raw.split(":", 1)[1].strip()
        header_lines[key] = index
    name = header.get("NAME", "")
    n = _dimension(path, header.get("DIMENSION"), header_lines.get("DIMENSION"))
    kind = header.get("EDGE_WEIGHT_TYPE", "").upper()
    problem_type = (header.get("TYPE", "TSP").split() or [""])[0].upper()  # si175: "TSP (M.~HOFMEISTER)"
    if problem_type not in ("TSP", "ATSP"):
        raise FormatError(path, header_lines.get("TYPE"), f"TYPE {header.get('TYPE')!r} is not a TSP or ATSP")
    if kind == "EXPLICIT":
        fmt = header.get("EDGE_WEIGHT_FORMAT", "").upper()
        if fmt not in EXPLICIT_FORMATS:
            raise FormatError(path, None, f"EDGE_WEIGHT_FORMAT {fmt or '(missing)'} is not one of {', '.join(EXPLICIT_FORMATS)}")
        if "EDGE_WEIGHT_SECTION" not in sections:
            raise FormatError(path, None, "EXPLICIT weights need an EDGE_WEIGHT_SECTION")
        line, body = sections["EDGE_WEIGHT_SECTION"]
        numbers = _numbers(path, line, body, scale)
        matrix = _explicit(path, fmt, n, numbers, line)
    elif kind in COORDINATE_TYPES:
        if "NODE_COORD_SECTION" not in sections:
            raise FormatError(path, None, f"{kind} needs a NODE_COORD_SECTION")
        line, body = sections["NODE_COORD_SECTION"]
        xy = _coordinates(path, line, body, n)
        try:
            matrix = distances_from_coordinates(kind, xy).astype(object) * scale
        except (OverflowError, ValueError):
            raise FormatError(path, line, f"{kind} distances of these coordinates pass the limit 2^62") from None
        if any(value.denominator != 1 for value in matrix.flat if isinstance(value, Fraction)):
            raise FormatError(path, None, f"scale {scale} makes some distances fractional")
        matrix = np.vectorize(int, otypes=[object])(matrix)
    else:
        raise FormatError(
            path, None, f"EDGE_WEIGHT_TYPE {kind or '(missing)'} is not supported (EXPLICIT, {', '.join(COORDINATE_TYPES)})"
        )
    np.fill_diagonal(matrix, 0)
    try:
        return [TSP(matrix, name=name)]
    except InvalidProblemError as exc:
        raise FormatError(path, None, str(exc)) from None


def _dimension(path: str, value: str | None, line: int | None) -> int:
    """DIMENSION as a number of cities in [2, MAX_CITIES] (checked before anything is allocated)."""
    if value is None:
        raise FormatError(path, None, "TSPLIB header needs DIMENSION: <number of cities>")
    try:
        n = int(value)
    except ValueError:
        raise FormatError(path, line, f"DIMENSION: {value[:40]!r} is not a whole number") from None
    if not 2 <= n <= MAX_CITIES:
        raise FormatError(path, line, f"DIMENSION: {n} cities; clsolve's TSP takes 2 to {MAX_CITIES}")
    return n


def _numbers(path: str, first_line: int, body: list[str], scale: Fraction) -> list[int]:
    """The section's numbers (times ``scale``) as exact non-negative integers."""
    out = []
    for offset, row in enumerate(body):
        for token in row.split():
            try:
                value = exact(token) * scale
            except ValueError as exc:
                raise FormatError(path, first_line + offset, str(exc)) from None
            if value.denominator != 1 or value < 0:
                raise FormatError(
                    path,
                    first_line + offset,
                    f"{token!r} (scaled by {scale}) is not an integer >= 0; pass a scale to make decimals integral",
                )
            out.append(int(value))
    return out


def _coordinates(path: str, first_line: int, body: list[str], n: int) -> np.ndarray:
    """The (n, 2) coordinates of NODE_COORD_SECTION: exactly n lines ``id x y`` of finite numbers."""
    rows = [(first_line + offset, row.split()) for offset, row in enumerate(body) if row.strip()]
    if len(rows) != n:
        raise FormatError(path, first_line, f"NODE_COORD_SECTION has {len(rows)} cities, DIMENSION says {n}")
    xy = np.zeros((n, 2))
    for city, (line, fields) in enumerate(rows):
        if len(fields) != 3:
            raise FormatError(path, line, f"expected 'id x y', got {' '.join(fields)[:60]!r}")
        try:
            xy[city] = [float(exact(fields[1])), float(exact(fields[2]))]
        except ValueError as exc:
            raise FormatError(path, line, f"coordinate: {exc}") from None
    return xy
