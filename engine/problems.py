"""Problem types. A problem is an immutable value over NumPy arrays, validated when built."""

# long module: the three problem kinds of the public face, each with its checks
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .errors import InvalidProblemError

#: Largest single profit, weight or capacity accepted (sums of up to 2 items stay inside int64).
MAX_SCALAR = 2**62
INT64_MAX = 2**63 - 1


def _where(field_name: str, index: tuple) -> str:
    return f"{field_name}[{', '.join(str(int(i)) for i in index)}]" if index else field_name


def _objects_to_int64(array: np.ndarray, field_name: str) -> np.ndarray:
    """Convert an object array (Python ints beyond int64, mixed types) element by element."""
    out = np.empty(array.shape, dtype=np.int64)
    for index, value in np.ndenumerate(array):
        where = f"{_where(field_name, index)}"
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise InvalidProblemError(f"{where}: {value!r} is not a number")
        if isinstance(value, (float, np.floating)):
            if not np.isfinite(value):
                raise InvalidProblemError(f"{where}: {value} is not a finite number")
            if value != int(value):
                raise InvalidProblemError(f"{where}: {value!r} is fractional; clsolve solves integer problems exactly")
        number = int(value)
        if number < 0:
            raise InvalidProblemError(f"{where}: {number} is negative; must be >= 0")
        if number > MAX_SCALAR:
            raise InvalidProblemError(f"{where}: {number} exceeds the limit 2^62 = {MAX_SCALAR}")
        out[index] = number
    return out


def _as_integers(values, field_name: str, shape_hint: str) -> np.ndarray:
    """Return ``values`` as an int64 array, refusing NaN, infinities, fractions and negatives."""
    try:
        array = np.asarray(values)
    except Exception as exc:  # ragged lists and the like
        raise InvalidProblemError(f"{field_name}: cannot be read as an array ({exc})") from None
    if array.dtype == object:
        array = _objects_to_int64(array, field_name)
    if array.dtype == bool or not (np.issubdtype(array.dtype, np.integer) or np.issubdtype(array.dtype, np.floating)):
        raise InvalidProblemError(f"{field_name}: expected {shape_hint} of integers, got dtype {array.dtype}")
    if np.issubdtype(array.dtype, np.floating):
        bad = ~np.isfinite(array)
        if bad.any():
            index = tuple(int(i) for i in np.argwhere(bad)[0])
            raise InvalidProblemError(f"{_where(field_name, index)}: {array[index]} is not a finite number")
        frac = array != np.floor(array)
        if frac.any():
            index = tuple(int(i) for i in np.argwhere(frac)[0])
            raise InvalidProblemError(
                f"{_where(field_name, index)}: {array[index]!r} is fractional; clsolve solves integer problems "
                "exactly (scale the data, e.g. the readers' `scale` option)"
            )
        if array.size and np.abs(array).max() > MAX_SCALAR:
            raise InvalidProblemError(f"{field_name}: values must be at most 2^62 = {MAX_SCALAR}")
        array = array.astype(np.int64)
    elif array.dtype == np.uint64:
        if array.size and array.max() > MAX_SCALAR:
            raise InvalidProblemError(f"{field_name}: values must be at most 2^62 = {MAX_SCALAR}")
        array = array.astype(np.int64)
    else:
        array = array.astype(np.int64)
    if array.size:
        if array.min() < 0:
            index = tuple(int(i) for i in np.argwhere(array < 0)[0])
            raise InvalidProblemError(f"{_where(field_name, index)}: {int(array[index])} is negative; must be >= 0")
        if array.max() > MAX_SCALAR:
            raise InvalidProblemError(f"{field_name}: values must be at most 2^62 = {MAX_SCALAR}")
    array.setflags(write=False)
    return array


def exact_sum(values: np.ndarray, axis: int | None = None):
    """The exact sum of int64 values in [0, 2^62] (what a problem holds): in int64 where it cannot
    overflow, else the high and low 31 bits summed apart (each sum fits below 2^32 values) and joined
    as Python integers. A Python int; with ``axis``, a list of them."""
    count = values.size if axis is None else values.shape[axis]
    if values.size == 0 or int(values.max()) <= INT64_MAX // max(count, 1):
        total = values.sum(axis=axis, dtype=np.int64)
        return int(total) if axis is None else [int(x) for x in np.atleast_1d(total)]
    high = np.atleast_1d((values >> 31).sum(axis=axis, dtype=np.int64)).tolist()
    low = np.atleast_1d((values & (2**31 - 1)).sum(axis=axis, dtype=np.int64)).tolist()
    sums = [h * 2**31 + lo for h, lo in zip(high, low)]
    return sums[0] if axis is None else sums


def _known_optimum(value) -> int | None:
    """A known optimum as a Python int (None: unknown); an optimum is never negative."""
    if value is None:
        return None
    try:
        number = int(value)
    except (TypeError, ValueError, OverflowError):
        raise InvalidProblemError(f"known_optimum: expected an integer, got {value!r}") from None
    if number != value or number < 0 or number > INT64_MAX:
        raise InvalidProblemError(f"known_optimum: must be an integer in [0, 2^63 - 1], got {value!r}")
    return number


def _item_major(weights: np.ndarray, n: int, m: int, weights_by: str | None) -> np.ndarray:
    """``weights`` as shape (n, m), read as ``weights_by`` says (see ``Knapsack``)."""
    if weights.ndim == 1 and m == 1:
        weights = weights.reshape(-1, 1)
    if weights_by == "dimension" and weights.ndim == 2:
        if weights.shape != (m, n):
            raise InvalidProblemError(
                f"weights: with weights_by='dimension' expected shape (m, n) = ({m}, {n}), got {weights.shape}"
            )
        return np.ascontiguousarray(weights.T)
    if weights.ndim != 2 or weights.shape != (n, m):
        hint = " (weights[dimension][item]? pass weights_by='dimension')" if weights.ndim == 2 and weights.shape == (m, n) else ""
        raise InvalidProblemError(
            f"weights: expected shape (n, m) = ({n}, {m}) to match profits and capacities, got {weights.shape}{hint}"
        )
    if weights_by is None and n == m >= 2:
        raise InvalidProblemError(
            f"weights: shape ({n}, {m}) has as many items as dimensions, so it could be weights[item][dimension] "
            "or weights[dimension][item]; say which with weights_by='item' or weights_by='dimension'"
        )
    return weights


class Memo:
    """What solvers compute once for a problem and use again (``memo``: a partition kept from a plan to
    its solve), keyed by the solver's name and the options it depends on; not pickled."""

    @property
    def memo(self) -> dict:
        return self.__dict__.setdefault("_memo", {})

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "_memo"}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)


@dataclass(frozen=True, eq=False)
class Knapsack(Memo):
    """A 0-1 knapsack with one or more capacity dimensions.

    ``profits`` has shape (n,), ``weights`` shape (n, m) (a 1-D array is read as m = 1) and
    ``capacities`` shape (m,) (a scalar is read as m = 1). m = 1 is KP1, m = 2 KP2, m >= 3 the
    multidimensional knapsack. All values are integers in [0, 2^62]; the sum of all profits must fit
    in a signed 64-bit integer.

    ``weights_by`` says how ``weights`` is laid out: ``"item"`` (the default: ``weights[item][dimension]``,
    shape (n, m)) or ``"dimension"`` (``weights[dimension][item]``, shape (m, n), as OR-Tools writes
    it). Where n == m >= 2 the shape cannot tell the two apart, so the constructor refuses such weights
    unless ``weights_by`` is given.
    """

    profits: np.ndarray
    weights: np.ndarray
    capacities: np.ndarray
    name: str = ""
    known_optimum: int | None = field(default=None, compare=False)

    def __init__(
        self, profits, weights, capacities, name: str = "", known_optimum: int | None = None, weights_by: str | None = None
    ):
        if weights_by not in (None, "item", "dimension"):
            raise InvalidProblemError(
                f"weights_by: expected 'item' (weights[item][dimension]) or 'dimension' "
                f"(weights[dimension][item]), got {weights_by!r}"
            )
        profits = _as_integers(profits, "profits", "a 1-D array")
        weights = _as_integers(weights, "weights", "an (n, m) array")
        capacities = _as_integers(capacities, "capacities", "a 1-D array")
        if profits.ndim != 1:
            raise InvalidProblemError(f"profits: expected shape (n,), got {profits.shape}")
        if profits.size == 0:
            raise InvalidProblemError("profits: the problem has no items (n = 0); at least one item is required")
        if capacities.ndim == 0:
            capacities = capacities.reshape(1)
        if capacities.ndim != 1 or capacities.size == 0:
            raise InvalidProblemError(f"capacities: expected shape (m,) with m >= 1, got {capacities.shape}")
        weights = _item_major(weights, profits.size, capacities.size, weights_by)
        total = exact_sum(profits)
        if total > INT64_MAX:
            raise InvalidProblemError(f"profits: their sum {total} exceeds the signed 64-bit limit {INT64_MAX}")
        for array in (profits, weights, capacities):
            array.setflags(write=False)
        object.__setattr__(self, "profits", profits)
        object.__setattr__(self, "weights", weights)
        object.__setattr__(self, "capacities", capacities)
        object.__setattr__(self, "name", _text(str(name), "name"))
        object.__setattr__(self, "known_optimum", _known_optimum(known_optimum))
        object.__setattr__(self, "_total_profit", total)

    @classmethod
    def derived(
        cls, profits: np.ndarray, weights: np.ndarray, capacities: np.ndarray, name: str = "", total_profit: int | None = None
    ) -> Knapsack:
        """A knapsack built by the engine from a validated one (a presolved copy): int64 arrays of the
        right shapes, no checks repeated. Not for user data: use the constructor."""
        problem = object.__new__(cls)
        for key, array in (("profits", profits), ("weights", weights), ("capacities", capacities)):
            if array.dtype != np.int64 or array.flags.writeable or not array.flags.c_contiguous:
                array = np.ascontiguousarray(array, dtype=np.int64)
                array.setflags(write=False)
            object.__setattr__(problem, key, array)
        object.__setattr__(problem, "name", name)
        object.__setattr__(problem, "known_optimum", None)
        object.__setattr__(problem, "_total_profit", int(problem.profits.sum()) if total_profit is None else int(total_profit))
        return problem

    @classmethod
    def trusted(
        cls,
        profits: np.ndarray,
        weights: np.ndarray,
        capacities: np.ndarray,
        name: str,
        total_profit: int,
        known_optimum: int | None,
    ) -> Knapsack:
        """The fastest build, for arrays the engine has validated in bulk (read-only C-contiguous
        int64 of the right shapes, see ``clsolve.scaleout.chunks``): nothing is checked or copied."""
        problem = object.__new__(cls)
        problem.__dict__.update(
            profits=profits,
            weights=weights,
            capacities=capacities,
            name=name,
            known_optimum=known_optimum,
            _total_profit=total_profit,
        )
        return problem

    kind = "knapsack"

    @property
    def n(self) -> int:
        """Number of items."""
        return int(self.profits.size)

    @property
    def m(self) -> int:
        """Number of capacity dimensions."""
        return int(self.capacities.size)

    @property
    def total_profit(self) -> int:
        """Sum of all profits (at most 2^63 - 1, checked when built)."""
        return self.__dict__["_total_profit"]  # cached in __post_init__ (not a dataclass field)

    def cells(self) -> int:
        """Number of states in one DP row: prod(capacity_d + 1)."""
        count = 1
        for c in self.capacities.tolist():
            count *= c + 1
        return count

    def describe(self) -> str:
        caps = " x ".join(str(c) for c in self.capacities.tolist())
        label = f"{self.name}: " if self.name else ""
        return f"{label}KP{self.m} with n = {self.n}, capacities {caps}"

    def __repr__(self) -> str:
        return f"Knapsack({self.describe()})"


#: Longest string (or integer array) an LCS accepts: positions are 32-bit in the kernels.
MAX_SEQUENCE_LENGTH = 2**31 - 1
#: Most cities a TSP accepts: Held-Karp's n x 2^(n-1) states are out of reach well before this.
MAX_CITIES = 1000


def _text(value: str, field_name: str) -> str:
    """``value``, refused where it holds a lone surrogate (no Unicode character: it can be neither
    encoded nor printed)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidProblemError(
            f"{field_name}: position {exc.start} holds {value[exc.start]!r}, a lone surrogate, not a Unicode character"
        ) from None
    return value


def _sequence(values, field_name: str) -> tuple[np.ndarray, bool]:
    """A string, bytes or 1-D integer array as int64 symbols; the flag says it was text."""
    if isinstance(values, str):
        array = np.frombuffer(_text(values, field_name).encode("utf-32-le"), dtype="<u4").astype(np.int64)
        text = True
    elif isinstance(values, (bytes, bytearray, memoryview)):
        array = np.frombuffer(bytes(values), dtype=np.uint8).astype(np.int64)
        text = False
    else:
        try:
            array = np.asarray(values)
        except Exception as exc:
            raise InvalidProblemError(f"{field_name}: cannot be read as an array ({exc})") from None
        text = False
        if array.size == 0:
            array = array.reshape(-1).astype(np.int64)
        if array.ndim != 1:
            raise InvalidProblemError(f"{field_name}: expected a string or a 1-D array of integers, got shape {array.shape}")
        if array.dtype == bool or not np.issubdtype(array.dtype, np.integer):
            if array.dtype == object or np.issubdtype(array.dtype, np.floating):
                converted = _objects_to_int64(array.astype(object), field_name) if array.dtype == object else None
                if converted is None:
                    floats = array.astype(np.float64)
                    bad = ~np.isfinite(floats) | (floats != np.floor(floats))
                    if bad.any():
                        raise InvalidProblemError(
                            f"{field_name}[{int(np.argmax(bad))}]: {array[int(np.argmax(bad))]!r} is not an integer symbol"
                        )
                    converted = floats.astype(np.int64)
                array = converted
            else:
                raise InvalidProblemError(f"{field_name}: expected a string or integers, got dtype {array.dtype}")
        elif array.dtype == np.uint64 and array.size and int(array.max()) > INT64_MAX:
            raise InvalidProblemError(f"{field_name}: symbols must fit in a signed 64-bit integer")
        array = array.astype(np.int64)
    if array.size > MAX_SEQUENCE_LENGTH:
        raise InvalidProblemError(f"{field_name}: length {array.size} exceeds the limit {MAX_SEQUENCE_LENGTH}")
    array = np.ascontiguousarray(array)
    array.setflags(write=False)
    return array, text


#: Symbol ranges up to this (or four times the symbols) are coded through lookup tables.
DENSE_CODE_SPAN = 1 << 16
#: Symbol ranges up to this are coded by offset (``LCS.codes``).
OFFSET_CODE_SPAN = 32


def _offsets(symbols: np.ndarray, low: int) -> np.ndarray:
    """``symbols - low`` as uint32 (in one pass)."""
    return np.subtract(symbols, low, out=np.empty(symbols.size, dtype=np.uint32), casting="unsafe")


def _dense(common: np.ndarray, symbols: np.ndarray, absent: int) -> np.ndarray:
    """Index of each symbol in the sorted array ``common``, ``absent`` where it is not there."""
    index = np.searchsorted(common, symbols)
    found = index < common.size
    found[found] = common[index[found]] == symbols[found]
    return np.where(found, index, absent)


@dataclass(frozen=True, eq=False)
class LCS:
    """The longest common subsequence of two sequences.

    ``a`` and ``b`` are strings, bytes or 1-D integer arrays (any integer symbols, empty allowed).
    The answer is a ``Solution`` whose ``value`` is the LCS length and whose ``positions`` is a
    (length, 2) array of 0-based positions in ``a`` and ``b``, increasing in both, with equal symbols.
    """

    a: np.ndarray
    b: np.ndarray
    name: str = ""
    text: bool = False
    known_optimum: int | None = field(default=None, compare=False)

    def __init__(self, a, b, name: str = "", known_optimum: int | None = None):
        a_symbols, a_text = _sequence(a, "a")
        b_symbols, b_text = _sequence(b, "b")
        object.__setattr__(self, "a", a_symbols)
        object.__setattr__(self, "b", b_symbols)
        object.__setattr__(self, "name", _text(str(name), "name"))
        object.__setattr__(self, "text", a_text and b_text)
        object.__setattr__(self, "known_optimum", _known_optimum(known_optimum))

    kind = "lcs"

    @property
    def m(self) -> int:
        """Length of ``a``."""
        return int(self.a.size)

    @property
    def n(self) -> int:
        """Length of ``b``."""
        return int(self.b.size)

    def cells(self) -> int:
        """DP cells: len(a) x len(b)."""
        return self.m * self.n

    def codes(self) -> tuple[np.ndarray, np.ndarray, int]:
        """Dense symbol codes (uint32) and sigma: equal codes below sigma mean equal symbols, and no
        code of ``a`` equals a code of ``b`` unless their symbols are equal. Symbols within a range of
        at most ``OFFSET_CODE_SPAN`` (DNA, small alphabets) are coded by their offset in the range,
        sigma its size; otherwise the symbols common to both strings are coded by rank (sigma of them),
        the others of ``a`` as sigma and those of ``b`` as sigma + 1."""
        if self.m and self.n:
            low = min(int(self.a.min()), int(self.b.min()))
            span = max(int(self.a.max()), int(self.b.max())) - low + 1
            if span <= OFFSET_CODE_SPAN:
                return _offsets(self.a, low), _offsets(self.b, low), span
            if span <= max(DENSE_CODE_SPAN, 4 * (self.m + self.n)):
                # symbols in a short range (text, bytes): lookup tables, no sorting
                a_index = self.a - low if low else self.a
                b_index = self.b - low if low else self.b
                in_a = np.zeros(span, dtype=bool)
                in_a[a_index] = True
                in_b = np.zeros(span, dtype=bool)
                in_b[b_index] = True
                common = in_a & in_b
                sigma = int(np.count_nonzero(common))
                rank = (np.cumsum(common, dtype=np.uint32) - 1).astype(np.uint32)
                a_codes = np.where(common, rank, np.uint32(sigma))[a_index]
                b_codes = np.where(common, rank, np.uint32(sigma + 1))[b_index]
                return a_codes, b_codes, sigma
        common = np.intersect1d(self.a, self.b)
        sigma = int(common.size)
        a_codes = _dense(common, self.a, sigma)
        b_codes = _dense(common, self.b, sigma + 1)
        return a_codes.astype(np.uint32), b_codes.astype(np.uint32), sigma

    def subsequence(self, positions: np.ndarray):
        """The common subsequence at ``positions`` (a string when both inputs were strings)."""
        symbols = self.a[np.asarray(positions, dtype=np.int64)[:, 0]] if len(positions) else self.a[:0]
        if self.text:
            return "".join(map(chr, symbols.tolist()))
        return symbols.copy()

    def describe(self) -> str:
        label = f"{self.name}: " if self.name else ""
        return f"{label}LCS of lengths {self.m} x {self.n}"

    def __repr__(self) -> str:
        return f"LCS({self.describe()})"


@dataclass(frozen=True, eq=False)
class TSP:
    """An exact travelling salesman problem over a square matrix of integer travel costs.

    ``distances[i, j]`` is the cost of going from city i to city j (non-negative integers; the
    matrix may be asymmetric; the diagonal is ignored). The answer is a ``Solution`` whose ``tour``
    lists every city once, starting at city 0 (the return to city 0 is implied), and whose
    ``value`` is the tour's length.
    """

    distances: np.ndarray
    name: str = ""
    known_optimum: int | None = field(default=None, compare=False)

    def __init__(self, distances, name: str = "", known_optimum: int | None = None):
        matrix = _as_integers(distances, "distances", "a square (n, n) matrix")
        if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
            raise InvalidProblemError(f"distances: expected a square (n, n) matrix, got shape {matrix.shape}")
        n = matrix.shape[0]
        if n < 2:
            raise InvalidProblemError(f"distances: a tour needs at least 2 cities, got n = {n}")
        if n > MAX_CITIES:
            raise InvalidProblemError(f"distances: n = {n} cities exceeds the limit {MAX_CITIES}")
        matrix = np.ascontiguousarray(matrix)
        matrix.setflags(write=False)
        off_diagonal = matrix.copy()
        np.fill_diagonal(off_diagonal, 0)
        longest = int(off_diagonal.max(axis=1).astype(object).sum())
        if longest > INT64_MAX:
            raise InvalidProblemError(f"distances: a tour could cost up to {longest}, beyond the signed 64-bit limit")
        object.__setattr__(self, "distances", matrix)
        object.__setattr__(self, "name", _text(str(name), "name"))
        object.__setattr__(self, "known_optimum", _known_optimum(known_optimum))
        object.__setattr__(self, "_longest_tour_bound", longest)

    kind = "tsp"

    @property
    def n(self) -> int:
        """Number of cities."""
        return int(self.distances.shape[0])

    @property
    def symmetric(self) -> bool:
        return bool((self.distances == self.distances.T).all())

    @property
    def longest_tour_bound(self) -> int:
        """An upper bound on any tour's length (each city's costliest outgoing edge, summed)."""
        return self.__dict__["_longest_tour_bound"]  # cached in __post_init__ (not a dataclass field)

    def tour_length(self, tour) -> int:
        tour = np.asarray(tour, dtype=np.int64)
        return int(self.distances[tour, np.roll(tour, -1)].astype(object).sum())

    def describe(self) -> str:
        label = f"{self.name}: " if self.name else ""
        return f"{label}{'TSP' if self.symmetric else 'ATSP'} with n = {self.n} cities"

    def __repr__(self) -> str:
        return f"TSP({self.describe()})"
