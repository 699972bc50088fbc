python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site PATH=/tmp/site/bin:$PATH CLSOLVE_DEVICE=gpu PYTHONUNBUFFERED=1 CLSOLVE_DATA=$PWD/.data CLSOLVE_OFFLINE=1
mkdir -p $OUT
: python3 -m pytest -q -p no:cacheprovider tests/plugins/choice_states tests/plugins/choice_dp tests/plugins/bounded_dp tests/plugins/multiple_bnb tests/plugins/sequential tests/engine/test_family.py tests/plugins/test_solvers.py > $OUT/gpu-tests-family.txt 2>&1; echo "tests rc=$?"; tail -n 2 $OUT/gpu-tests-family.txt
timeout 500 clsolve bench family --time-limit 10 --out $OUT/bench-family-h200.json 2> $OUT/bench-family.log; echo bench rc=$?
grep "^  multiple " $OUT/bench-family.log | grep -v DoesNotFit | cut -c1-140 | tail -80
