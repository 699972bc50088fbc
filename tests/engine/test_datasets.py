"""``clsolve.datasets`` and ``clsolve datasets``: sets fetched by name from a local mirror of their
origins (built here from the shared data folder), every file checked, damaged files fetched again, a
changed origin refused with the numbers, and the benchmarks' data folder found there."""

import hashlib
import json
import shutil

import pytest

import clsolve
from clsolve import datasets
from clsolve.bench.common import data_root
from clsolve.cli import main

SMALL = ("tsplib", "orlib-mkp", "class-a")


@pytest.fixture
def mirror(data, tmp_path):
    """The small sets' files at their origins' paths under a folder, as a mirror of GitHub holds them
    (a file cut from a larger one stands for that file: its cut is itself)."""
    root = tmp_path / "mirror"
    for name in SMALL:
        for file in datasets.get(name).files:
            target = root / file.url.removeprefix(datasets.GITHUB_RAW)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(data / file.path, target)
    return root


@pytest.fixture
def home(tmp_path, monkeypatch):
    folder = tmp_path / "fetched"
    monkeypatch.setenv(datasets.FOLDER_VARIABLE, str(folder))
    return folder


def test_sets_are_fetched_checked_and_found(mirror, home, capsys, monkeypatch, tmp_path):
    assert main(["datasets", "fetch", *SMALL, "--mirror", mirror.as_uri()]) == 0
    out, err = capsys.readouterr()
    assert "tsplib/gr17.tsp" in err and str(home / "tsplib") in out
    for name in SMALL:
        for file in datasets.get(name).files:
            assert hashlib.sha256((home / file.path).read_bytes()).hexdigest() == file.sha256
    assert "Cite:" in (home / "tsplib" / "SOURCE-tsplib.md").read_text()
    assert main(["datasets", "path", "orlib-mkp"]) == 0 and capsys.readouterr().out.strip() == str(home / "orlib-mkp")
    assert main(["datasets", "list", "--json"]) == 0
    listed = {row["name"]: row for row in json.loads(capsys.readouterr().out)}
    assert listed["tsplib"]["present"] == listed["tsplib"]["files"] and listed["msb"]["present"] == 0
    problems = clsolve.formats.read(datasets.path("orlib-mkp") / "mknap1.txt", scale=10)
    assert [p.known_optimum for p in problems][:2] == [38000, 87061]  # 3800 and 8706.1, scaled by 10
    monkeypatch.delenv("CLSOLVE_DATA", raising=False)
    monkeypatch.chdir(tmp_path)  # no ../shared/data above: the fetched folder is the data folder
    assert data_root() == home


def test_a_damaged_file_is_fetched_again(mirror, home):
    datasets.fetch("tsplib", mirror.as_uri())
    damaged = home / "tsplib" / "gr17.tsp"
    damaged.write_text("not gr17")
    fetched = []
    datasets.fetch("tsplib", mirror.as_uri(), fetched.append)
    assert fetched[0] == "tsplib/gr17.tsp" and "1 file(s) fetched, 14 checked" in fetched[-1]
    assert hashlib.sha256(damaged.read_bytes()).hexdigest() == next(
        f.sha256 for f in datasets.get("tsplib").files if f.path == "tsplib/gr17.tsp"
    )


def test_a_changed_origin_is_refused_and_nothing_is_kept(mirror, home, monkeypatch):
    file = next(f for f in datasets.get("tsplib").files if f.path.endswith("burma14.tsp"))
    (mirror / file.url.removeprefix(datasets.GITHUB_RAW)).write_text("NAME: burma14\nEOF\n")
    monkeypatch.setenv(datasets.MIRROR_VARIABLE, mirror.as_uri())
    with pytest.raises(clsolve.DatasetError, match=r"tsplib/burma14.tsp: .* gave 18 bytes with SHA-256 .*expected"):
        datasets.fetch("tsplib")
    assert not (home / file.path).exists()
    with pytest.raises(clsolve.DatasetError, match="not fetched .*clsolve datasets fetch tsplib"):
        datasets.path("tsplib")


def test_an_unreachable_origin_and_an_unknown_name_are_errors(home, tmp_path, capsys):
    with pytest.raises(clsolve.DatasetError, match="could not fetch file:"):
        datasets.fetch("orlib-mkp", (tmp_path / "nowhere").as_uri())
    assert main(["datasets", "fetch", "mnist"]) == 2
    assert "no data set named 'mnist'; the sets: msb, class-a" in capsys.readouterr().err


def test_the_manifest_lists_the_shared_data_as_it_is(data):
    """Every file the manifest lists is in the shared data folder with its size and digest: the manifest
    and the data the tests read are the same (``ci/datasets_manifest.py`` writes it)."""
    for name in datasets.names():
        for file in datasets.get(name).files:
            local = data / file.path
            if local.is_file():
                assert local.stat().st_size == file.size, file.path
                assert hashlib.sha256(local.read_bytes()).hexdigest() == file.sha256, file.path
            assert file.url.startswith(datasets.GITHUB_RAW), file.url
