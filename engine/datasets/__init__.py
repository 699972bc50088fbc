"""The public data sets that clsolve's tests and benchmarks use, by name, fetched on demand.

Each set (``names()``) lists its files in ``manifest.json``: where the file goes in a data folder (the
layout of ``../shared/data``, which benchmarks and tests read), its address at its origin (a GitHub
repository at a fixed commit), its size and SHA-256, and for the two files that are a part of a larger
one, how that part is cut (``derive``: the lines matching a pattern, or the first lines). ``fetch``
downloads what is missing into ``folder()`` (``CLSOLVE_DATASETS``, else ``$XDG_CACHE_HOME/clsolve/data``,
else ``~/.cache/clsolve/data``), checks every file and writes the set's ``SOURCE.md`` (origin,
citation, licence). ``CLSOLVE_DATASETS_MIRROR`` (or ``mirror=``) replaces
``https://raw.githubusercontent.com/`` in every address: a local mirror (``file:///...``) for offline
machines and tests. ``ci/datasets_manifest.py`` writes the manifest from a copy of the data.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import re
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

from ..errors import DatasetError, InvalidOptionError

FOLDER_VARIABLE = "CLSOLVE_DATASETS"
MIRROR_VARIABLE = "CLSOLVE_DATASETS_MIRROR"
#: The host every origin is on; a mirror replaces it.
GITHUB_RAW = "https://raw.githubusercontent.com/"
#: Seconds a download may wait for its server.
TIMEOUT_SECONDS = 60


@dataclass(frozen=True)
class File:
    path: str  # in the data folder
    url: str
    size: int
    sha256: str
    derive: dict | None = None  # {"lines": pattern} or {"head": count}: the part of the file at url kept


@dataclass(frozen=True)
class Dataset:
    name: str
    what: str
    citation: str
    licence: str
    origin: str
    files: tuple[File, ...]

    @property
    def size(self) -> int:
        return sum(f.size for f in self.files)

    @property
    def top(self) -> str:
        """The folder of the data folder its files go under (``tsplib``, ``kp01/jooken-open``)."""
        return os.path.commonpath([f.path for f in self.files]) if len(self.files) > 1 else str(Path(self.files[0].path).parent)


@cache
def _manifest() -> dict[str, Dataset]:
    raw = json.loads(resources.files(__name__).joinpath("manifest.json").read_text())
    return {
        name: Dataset(
            name=name,
            what=entry["what"],
            citation=entry["citation"],
            licence=entry["licence"],
            origin=entry["origin"],
            files=tuple(
                File(f["path"], entry["origin"] + f["url"], f["size"], f["sha256"], f.get("derive")) for f in entry["files"]
            ),
        )
        for name, entry in raw.items()
    }


def names() -> list[str]:
    return list(_manifest())


def get(name: str) -> Dataset:
    """The set called ``name``; an unknown name is an error listing the known ones."""
    found = _manifest().get(name)
    if found is None:
        raise InvalidOptionError(f"no data set named {name!r}; the sets: {', '.join(names())}")
    return found


def folder() -> Path:
    """Where fetched sets live (the data folder benchmarks and tests read when ``../shared/data`` and
    ``CLSOLVE_DATA`` are absent)."""
    explicit = os.environ.get(FOLDER_VARIABLE)
    if explicit:
        return Path(explicit)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "clsolve" / "data"


def present(dataset: Dataset) -> int:
    """How many of the set's files are in ``folder()`` at their size (``fetch`` checks their digests)."""
    root = folder()
    return sum((root / f.path).is_file() and (root / f.path).stat().st_size == f.size for f in dataset.files)


def path(name: str) -> Path:
    """The folder holding the set's files; an error where the set has not been fetched whole."""
    dataset = get(name)
    missing = len(dataset.files) - present(dataset)
    if missing:
        raise DatasetError(
            f"data set {name!r} is not fetched ({missing} of {len(dataset.files)} files missing in {folder()}): "
            f"run `clsolve datasets fetch {name}`"
        )
    return folder() / dataset.top


def _address(url: str, mirror: str | None) -> str:
    mirror = mirror if mirror is not None else os.environ.get(MIRROR_VARIABLE)
    if mirror and url.startswith(GITHUB_RAW):
        return mirror.rstrip("/") + "/" + url[len(GITHUB_RAW) :]
    return url


def _download(address: str, file: File) -> bytes:
    try:
        with urllib.request.urlopen(address, timeout=TIMEOUT_SECONDS) as response:
            data = response.read()
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", None) or exc
        raise DatasetError(f"{file.path}: could not fetch {address}: {reason}") from None
    if file.derive is None:
        return data
    lines = data.splitlines(keepends=True)
    if "head" in file.derive:
        return b"".join(lines[: int(file.derive["head"])])
    pattern = re.compile(file.derive["lines"])
    return b"".join(line for line in lines if pattern.search(line.decode("utf-8", "replace")))


def _verified(target: Path, file: File) -> bool:
    return (
        target.is_file() and target.stat().st_size == file.size and hashlib.sha256(target.read_bytes()).hexdigest() == file.sha256
    )


def fetch(name: str, mirror: str | None = None, report: Callable[[str], None] | None = None) -> Path:
    """Download the set's missing or damaged files into ``folder()``, each checked against its size and
    SHA-256 before it is kept; returns the set's folder (``path(name)``)."""
    dataset = get(name)
    root = folder()
    fetched = 0
    for file in dataset.files:
        target = root / file.path
        if _verified(target, file):
            continue
        address = _address(file.url, mirror)
        data = _download(address, file)
        digest = hashlib.sha256(data).hexdigest()
        if len(data) != file.size or digest != file.sha256:
            raise DatasetError(
                f"{file.path}: {address} gave {len(data)} bytes with SHA-256 {digest}; expected {file.size} bytes "
                f"with SHA-256 {file.sha256} (the file at its origin changed, or the mirror holds another one)"
            )
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(target.name + ".part")
        partial.write_bytes(data)
        os.replace(partial, target)
        fetched += 1
        if report is not None:
            report(file.path)
    _write_source(dataset, root)
    if report is not None:
        report(f"{name}: {fetched} file(s) fetched, {len(dataset.files)} checked, in {root / dataset.top}")
    return path(name)


def _write_source(dataset: Dataset, root: Path) -> None:
    note = root / dataset.top / f"SOURCE-{dataset.name}.md"
    note.parent.mkdir(parents=True, exist_ok=True)
    note.write_text(
        f"# {dataset.name}: {dataset.what}\n\n"
        f"- Origin: {dataset.origin} ({len(dataset.files)} files, each checked against its SHA-256)\n"
        f"- Cite: {dataset.citation}\n- Licence: {dataset.licence}\n"
        f"- Fetched by clsolve on {datetime.date.today().isoformat()}\n"
    )
