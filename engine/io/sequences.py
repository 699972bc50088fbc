"""Sequence files as ``LCS`` problems: each two consecutive sequences of a file make one problem.

``fasta``      records ``>name`` followed by sequence lines (joined; spaces dropped);
``sequences``  one sequence per line, optionally ``length<TAB>sequence`` (the length is checked),
               optionally under a first line ``count alphabet`` (the LCS benchmark sets of Blum
               and Blesa and of the ACO papers use this layout).
"""

from __future__ import annotations

from ..errors import FormatError
from ..problems import LCS


def looks_like_fasta(text: str) -> bool:
    return text.lstrip().startswith(">")


def _number(token: str) -> bool:
    try:
        float(token)
        return True
    except ValueError:
        return False


def looks_like_sequences(text: str) -> bool:
    """One or two fields a line, the last one never a number (numbers make a knapsack format)."""
    lines = [line.split() for line in text.splitlines() if line.strip()]
    if len(lines) < 2:
        return False
    rest = lines[1:] if len(lines[0]) == 2 and all(t.isdigit() for t in lines[0]) else lines
    return all(len(row) <= 2 and not _number(row[-1]) for row in rest)


def _pairs(path: str, records: list[tuple[str, str, int]]) -> list[LCS]:
    if len(records) < 2:
        raise FormatError(path, None, f"an LCS needs two sequences; the file holds {len(records)}")
    if len(records) % 2:
        raise FormatError(
            path,
            records[-1][2],
            f"the file holds {len(records)} sequences; each two consecutive ones make one LCS, so the count must be even",
        )
    stem = path.rsplit("/", 1)[-1]
    problems = []
    for k in range(0, len(records), 2):
        (name_a, a, _), (name_b, b, _) = records[k], records[k + 1]
        label = f"{name_a} / {name_b}" if name_a and name_b else f"{stem}#{k // 2 + 1}"
        problems.append(LCS(a, b, name=label))
    return problems


def read_fasta(path: str, text: str, scale=1) -> list[LCS]:
    records: list[tuple[str, str, int]] = []
    name: str | None = None
    parts: list[str] = []
    start = 0
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith(">"):
            if name is not None:
                records.append((name, "".join(parts), start))
            name, parts, start = line[1:].strip(), [], number
        elif line.strip() and not line.startswith(";"):
            if name is None:
                raise FormatError(path, number, "sequence data before the first '>' header")
            parts.append("".join(line.split()))
    if name is not None:
        records.append((name, "".join(parts), start))
    return _pairs(path, records)


def read_sequences(path: str, text: str, scale=1) -> list[LCS]:
    rows = [(number, line) for number, line in enumerate(text.splitlines(), start=1) if line.strip()]
    expected = None
    head = rows[0][1].split() if rows else []
    if len(head) == 2 and all(t.isdigit() for t in head):
        expected = int(head[0])
        rows = rows[1:]
    records = []
    for number, line in rows:
        fields = line.split()
        if len(fields) == 2 and fields[0].isdigit():
            length, sequence = int(fields[0]), fields[1]
            if len(sequence) != length:
                raise FormatError(path, number, f"the line says length {length}, the sequence has {len(sequence)}")
        elif len(fields) == 1:
            sequence = fields[0]
        else:
            raise FormatError(path, number, "expected one sequence per line (optionally 'length<TAB>sequence')")
        records.append(("", sequence, number))
    if expected is not None and expected != len(records):
        raise FormatError(path, 1, f"the first line announces {expected} sequences, the file holds {len(records)}")
    return _pairs(path, records)
