#!/usr/bin/env bash
# Prepare a wheelhouse for an offline GPU node (Python 3.12, x86-64 manylinux): this project's wheel
# and its dependencies that such nodes usually lack. Usage: bash ci/wheelhouse.sh [DIR] (default .whl)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-$root/.whl}"
mkdir -p "$out"
rm -f "$out"/clsolve-*.whl
python3 -m pip wheel --quiet --no-deps -w "$out" "$root"
python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
  --platform manylinux2014_x86_64 -d "$out" \
  pyopencl pytools platformdirs siphash24 stevedore typing_extensions "setuptools>=70.1"
# the dask extra (multi-GPU and cluster runs, clsolve bench scale), with its dependencies
python3 -m pip download --quiet --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
  --platform manylinux2014_x86_64 -d "$out" distributed
ls "$out"
