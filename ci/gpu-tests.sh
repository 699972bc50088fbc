#!/usr/bin/env bash
# The whole test suite and the benchmarks (dp-rows, msb, class-a; BENCHES adds bnb, mckp, scale, hard-kp, kpm) on an offline GPU node, from a wheelhouse made by
# ci/wheelhouse.sh (numpy, pytest and hypothesis are expected on the node).
#   WHEELHOUSE (default .whl)  CLSOLVE_DATA (the shared data folder)  OUT (where results go, default .)
#   TESTS=0 skips the tests; BENCH=0 skips the benchmarks; BENCHES="msb class-a" picks them (default: dp-rows msb class-a);
#   TEST_ARGS are passed to pytest (e.g. tests/plugins/mckp/test_mckp.py), BENCH_ARGS to every benchmark (e.g. --full)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
wheelhouse="${WHEELHOUSE:-$root/.whl}"
site="${SITE:-/tmp/clsolve-site}"
out="${OUT:-$root}"
# comparison codes from ci/bench-wheels.sh first: pip --target --upgrade replaces whole folders (bin/
# among them), so clsolve's wheelhouse goes in last and its command and shared packages win
if compgen -G "$root/.whl-bench/*.whl" >/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$site" "$root"/.whl-bench/*.whl
fi
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$site" "$wheelhouse"/*.whl
export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}" PATH="$site/bin:$PATH"
export CLSOLVE_OFFLINE=1 CLSOLVE_DEVICE="${CLSOLVE_DEVICE:-gpu}" POCL_CACHE_DIR="${POCL_CACHE_DIR:-/tmp/clsolve-pocl-cache}"
cd "$root"
python3 -m clsolve.cli devices
status=0
if [ "${TESTS:-1}" = 1 ]; then
  set +e
  python3 -m pytest -q -p no:cacheprovider ${TEST_ARGS:-tests} 2>&1 | tee "$out/gpu-tests.log"
  status=${PIPESTATUS[0]}
  set -e
fi
if [ "${BENCH:-1}" = 1 ]; then
  for name in ${BENCHES:-dp-rows msb class-a}; do
    python3 -m clsolve.cli bench "$name" --repeats 3 ${BENCH_ARGS:-} --out "$out/bench-$name.json"
  done
fi
exit "$status"
