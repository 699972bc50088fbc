python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site PATH=/tmp/site/bin:$PATH CLSOLVE_DEVICE=gpu PYTHONUNBUFFERED=1 CLSOLVE_DATA=$PWD/.data CLSOLVE_OFFLINE=1
nvidia-smi -L
mkdir -p $OUT
case "$1" in
tests)
  export CLSOLVE_DEVICE_MEMORY_SHARE=0.4
  (python3 -m pytest -q -p no:cacheprovider tests/plugins -x > $OUT/gpu-tests-plugins.txt 2>&1; echo "rc=$?" >> $OUT/gpu-tests-plugins.txt) &
  (python3 -m pytest -q -p no:cacheprovider tests/engine tests/project -x > $OUT/gpu-tests-engine.txt 2>&1; echo "rc=$?" >> $OUT/gpu-tests-engine.txt) &
  wait
  tail -5 $OUT/gpu-tests-plugins.txt $OUT/gpu-tests-engine.txt
  ;;
bench)
  timeout 560 clsolve bench family --time-limit 10 --out $OUT/bench-family-h200.json 2> $OUT/bench-family.log; echo rc=$?
  tail -70 $OUT/bench-family.log
  ;;
esac
