#!/usr/bin/env bash
# The README's test command: a fresh virtual environment, a plain (non-editable) install of this
# checkout with its `pocl` and `test` extras, then the whole suite and two short fuzz runs. Tests import the installed
# package (the source folder is `engine/`, not `clsolve/`), so a missing install step fails here.
# Runs on PoCL's CPU device where no GPU exists; CLSOLVE_DEVICE picks another device.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${CLSOLVE_TEST_VENV:-$root/.venv-test}"
python="${PYTHON:-python3}"

rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --upgrade pip
"$venv/bin/python" -m pip install --quiet "$root[pocl,test,dask,plot]"
"$venv/bin/clsolve" --version

export POCL_CACHE_DIR="${POCL_CACHE_DIR:-$root/.pocl-cache}"   # PoCL's own kernel cache, not the user's
mkdir -p "$POCL_CACHE_DIR"
"$venv/bin/clsolve" devices >&2
cd "$root"
"$venv/bin/python" -m pytest -q -p no:cacheprovider --durations=15 tests "$@"   # the 15 slowest tests listed at the end
# the differential fuzzer until every solver has solved 2,000 cases: a fixed seed (the same cases every
# run) until 1,000 each or 6 minutes, then a new seed (printed: `python ci/fuzz.py --seed N --case K`
# repeats any failure it reports) until both runs together have 2,000 each or 5 more minutes have
# passed. On 2 cores with a fresh kernel cache the first spends most of its time building kernels
solves="${CLSOLVE_FUZZ_SOLVES:-1000}"
counts="$(mktemp)"
trap 'rm -f "$counts"' EXIT
"$venv/bin/python" ci/fuzz.py --solves "$solves" --minutes "${CLSOLVE_FUZZ_MINUTES:-6}" --seed 1 --json "$counts"
"$venv/bin/python" ci/fuzz.py --solves "$((2 * solves))" --minutes "${CLSOLVE_FUZZ_MORE_MINUTES:-5}" --counted "$counts"
