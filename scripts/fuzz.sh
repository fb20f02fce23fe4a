#!/usr/bin/env bash
# Explore new fuzz seeds: test_fuzz (every fuzzer, on the CPU back end) and cli_fuzz with clock
# seeds, in the sanitizer build, for SECONDS seconds. ctest replays fixed seeds (GS_FUZZ_SEEDS in
# tests/CMakeLists.txt) so that a commit's CI cannot turn red on a seed never tried before; this
# is where new ones are tried. Each failing run's log is kept in a folder of this run's own under
# LOGDIR (named by its start time), so that a failure left by an earlier run is never read as this
# run's.
#   scripts/fuzz.sh BUILD_DIR [SECONDS [LOGDIR]]
set -uo pipefail
build=$(readlink -f "$1")
seconds=${2:-600}
logs=${3:-$build/fuzz-logs}/$(date -u +%Y%m%dT%H%M%SZ)-$$
mkdir -p "$logs"
export OMP_WAIT_POLICY=passive ASAN_OPTIONS=allocator_may_return_null=1
end=$(($(date +%s) + seconds))
runs=0 fails=0
while [ "$(date +%s)" -lt "$end" ]; do
  seed=$(($(date +%s%N) / 1000 % 9007199254740991))
  if [ $((runs % 4)) -eq 3 ]; then
    name=cli_fuzz
    GS_TEST_SEED=$seed bash "$(dirname "$0")/../tests/cli_fuzz.sh" "$build/tools/gpusolve" \
      "$build/fuzz-work" 50 >"$logs/run.log" 2>&1
  else
    name=test_fuzz
    "$build/tests/test_fuzz" /cpu -seed "$seed" -cases 5000 >"$logs/run.log" 2>&1
  fi
  st=$?
  runs=$((runs + 1))
  if [ "$st" -ne 0 ]; then
    fails=$((fails + 1))
    mv "$logs/run.log" "$logs/$name-$seed.log"
    echo "FAIL: $name seed $seed (status $st): $logs/$name-$seed.log"
    grep -m3 -E "FAIL|ERROR|runtime error" "$logs/$name-$seed.log"
  fi
done
rm -f "$logs/run.log"
if [ "$fails" -eq 0 ]; then
  rmdir "$logs" 2>/dev/null
  echo "fuzz: $runs runs in ${seconds} s, 0 failed"
else
  echo "fuzz: $runs runs in ${seconds} s, $fails failed (logs: $logs)"
fi
[ "$fails" -eq 0 ]
