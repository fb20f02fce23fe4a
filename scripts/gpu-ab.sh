#!/usr/bin/env bash
# A/B runs of the CLI built from several sources or with several flags, in one call on the GPU
# machine: the variants' `gpusolve` targets build side by side, then each case runs ROUNDS times
# with the variants in turn (so that the machine's state moves all of them alike), and the table
# gives each run's time and each variant's median against the first variant's.
#
#   scripts/gpu-ab.sh [-r ROUNDS] [-o DIR] VARIANT... -- CASE...
#     VARIANT  NAME=SRC or NAME=SRC:FLAGS: a source tree (the working tree is ., another commit is
#              a `git archive REV | tar -x -C DIR` made before the call: the GPU machine's copy may
#              have no .git) and the CUDA compiler flags to build it with (macros of an experiment:
#              -DGS_SOMETHING=1)
#     CASE     the arguments of one `gpusolve` run, quoted, e.g. "banded -bands 5 -n 65536 -batch
#              1024 -peers 0 -banded_check deferred"; the time is the number after "gpusolve:"
#              in its output (banded, spmv and the other benchmarks print that line)
#     -r       rounds (default 2)
#     -o       output folder (default $OUT, else ./gpu-ab-out): builds, each run's log, ab.txt
#   AB_CMAKE_FLAGS  configure flags (default: CUDA on, sm_90, Release)
# Example (the docs' "two rounds each in one call"):
#   git archive HEAD | tar -x -C exp/base
#   scripts/gpu-ab.sh base=exp/base new=. -- "banded -bands 5 -n 65536 -batch 1024 -peers 0 \
#     -banded_check deferred"
set -uo pipefail
rounds=2
out=${OUT:-$PWD/gpu-ab-out}
while getopts "r:o:" opt; do
  case $opt in
    r) rounds=$OPTARG ;;
    o) out=$OPTARG ;;
    *) echo "usage: $0 [-r ROUNDS] [-o DIR] NAME=SRC[:FLAGS]... -- CASE..." >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
names=() srcs=() flags=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  spec=$1
  shift
  if [[ "$spec" != *=* ]]; then
    echo "gpu-ab: variant '$spec' is not NAME=SRC[:FLAGS]" >&2
    exit 2
  fi
  name=${spec%%=*} rest=${spec#*=}
  src=${rest%%:*} flag=""
  [[ "$rest" == *:* ]] && flag=${rest#*:}
  if [[ ! "$name" =~ ^[A-Za-z0-9_-]+$ ]] || [ ! -f "$src/CMakeLists.txt" ]; then
    echo "gpu-ab: variant '$spec': NAME must be a word and SRC a source tree" >&2
    exit 2
  fi
  names+=("$name") srcs+=("$src") flags+=("$flag")
done
[ $# -gt 0 ] && shift
if [ ${#names[@]} -eq 0 ] || [ $# -eq 0 ]; then
  echo "usage: $0 [-r ROUNDS] [-o DIR] NAME=SRC[:FLAGS]... -- CASE..." >&2
  exit 2
fi
mkdir -p "$out/logs"
read -r -a cfg <<<"${AB_CMAKE_FLAGS:--DGS_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release}"
nv=${#names[@]}
jobs=$(($(nproc) / nv))
[ "$jobs" -lt 1 ] && jobs=1
pids=()
for ((v = 0; v < nv; v++)); do
  b="$out/build-${names[v]}"
  (cmake -S "${srcs[v]}" -B "$b" "${cfg[@]}" "-DCMAKE_CUDA_FLAGS=${flags[v]}" &&
    cmake --build "$b" -j "$jobs" --target gpusolve-cli) >"$out/logs/build-${names[v]}.log" 2>&1 &
  pids+=($!)
done
for ((v = 0; v < nv; v++)); do
  if ! wait "${pids[v]}"; then
    echo "gpu-ab: building ${names[v]} failed (log: $out/logs/build-${names[v]}.log)" >&2
    tail -20 "$out/logs/build-${names[v]}.log" >&2
    exit 1
  fi
done
: >"$out/ab.txt"
c=0
for cs in "$@"; do
  c=$((c + 1))
  read -r -a args <<<"$cs"
  for ((r = 1; r <= rounds; r++)); do
    for ((v = 0; v < nv; v++)); do
      log="$out/logs/case$c-${names[v]}-$r.log"
      "$out/build-${names[v]}/tools/gpusolve" "${args[@]}" >"$log" 2>&1
      t=$(awk '$1 == "gpusolve:" && $2 ~ /^[0-9.]+$/ { print $2; exit }' "$log")
      # A run that reports an error (a residual above the check's bound prints GS_ERR_INTERNAL
      # before its timing lines) is a failure whatever time it printed: no median takes it.
      if [ -z "$t" ] || grep -q 'GS_ERR' "$log"; then
        t="failed: $(grep -m1 -E 'GS_ERR|error' "$log" || echo "no time") (log: $log)"
      fi
      printf '%s | %s | %s\n' "$cs" "${names[v]}" "$t" | tee -a "$out/ab.txt"
    done
  done
done
# Medians per case and variant, and their ratio to the first variant's.
echo "--- medians (us), ratio to ${names[0]}"
awk -F' [|] ' -v first="${names[0]}" '
  $3 ~ /^[0-9.]+$/ { key = $1 SUBSEP $2; n[key]++; val[key, n[key]] = $3
                     if (!(($1) in seen)) { seen[$1] = 1; order[++nc] = $1 }
                     if (!(($1, $2) in vseen)) { vseen[$1, $2] = 1; vars[$1, ++nvar[$1]] = $2 } }
  function median(key,   m, i, j, t, a) {
    m = n[key]; for (i = 1; i <= m; i++) a[i] = val[key, i]
    for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2 }
  END { for (i = 1; i <= nc; i++) { cs = order[i]; base = ((cs SUBSEP first) in n) ? median(cs SUBSEP first) : 0
          for (j = 1; j <= nvar[cs]; j++) { v = vars[cs, j]; m = median(cs SUBSEP v)
            printf "%s | %s | %.1f | %s\n", cs, v, m, (base > 0 ? sprintf("%.3f", m / base) : "-") } } }
' "$out/ab.txt" | tee "$out/ab-medians.txt"
