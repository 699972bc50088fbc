#!/usr/bin/env bash
# The fuzz campaign for longer runs: ci/fuzz.py with its arguments, several fuzzers at once.
#   bash ci/fuzz.sh --minutes 10 --device gpu               # one per 2 CPU cores, at most 8
#   bash ci/fuzz.sh --minutes 30 --device pocl --jobs 1 --json fuzz.json
# Prints the seeds (repeat any failure with the line it prints) and the merged counts.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jobs=$(( $(nproc) / 2 )); (( jobs < 1 )) && jobs=1; (( jobs > 8 )) && jobs=8
case " $* " in *" --jobs "*) exec "${PYTHON:-python3}" "$root/ci/fuzz.py" "$@" ;; esac
exec "${PYTHON:-python3}" "$root/ci/fuzz.py" --jobs "$jobs" "$@"
