#!/usr/bin/env bash
# Wheels of the comparison codes the benchmarks time when they are importable (pylcs and python-tsp
# for `bench wavefront`; OR-Tools, with the pure-Python packages its knapsack solver and CP-SAT import,
# for `bench hard-kp`, `kpm`, `msb` and `class-a`), for an offline Python 3.12 GPU node. pylcs ships only as a source archive, so it is
# built here with a Python 3.12 interpreter (PYTHON312, default python3.12).
# Usage: bash ci/bench-wheels.sh [DIR] (default .whl-bench); ci/gpu-tests.sh installs DIR when present.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-$root/.whl-bench}"
python312="${PYTHON312:-python3.12}"
mkdir -p "$out"
"$python312" -m pip wheel --quiet --no-deps -w "$out" pylcs
python3 -m pip download --quiet --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
  -d "$out" python-tsp
python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
  -d "$out" ortools absl-py immutabledict "protobuf>=6.33.1,<6.34"
rm -f "$out"/numpy-*.whl  # the node's own numpy stays
ls "$out"
