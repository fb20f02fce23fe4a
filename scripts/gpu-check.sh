#!/usr/bin/env bash
# One command for the GPU machine: configure with CUDA, build, run the GPU tests (and the CPU ones),
# run the benchmarks, and leave logs and JSON results under $OUT (default ./gpu-check-out).
#   GS_GIT_SHA   commit being measured (the device machine's copy may have no .git, or an older
#                one under a newer tree: the default is HEAD with "-dirty" where a tracked file
#                differs from it, as the benchmarks' records write it)
#   GS_CHECK_SANITIZER=1  also run the GPU tests under compute-sanitizer memcheck (API errors
#                         are not reported: the tests provoke out-of-memory on purpose)
#   GS_BENCH_ARGS  extra options for `gpusolve bench`
#   GS_TEST_TIMEOUT  seconds one GPU test may run (default 300)
#   GS_CHECK_SKIP  steps to leave out, space-separated: ctest-cpu (the CPU tests), vec (vector benchmark), banded (GPU banded
#                  sweep), banded-cpu (CPU banded sweeps), sparse (SpMV/CG benchmarks), apps
#                  (Cahn-Hilliard steps), apps-tune (the same and the ADI sweeps with other
#                  partition counts), demo
#   GS_SPMV_ARGS   extra options for `gpusolve spmv -suite 1` (e.g. -forms 1)
#   GS_ADI_STIFF   a of the stiff rows the ADI sweep tuning runs on (default 1e5)
#   GS_TEST_MATRIX_DIR  the test matrix collection for test_mat, test_ksp and test_equiv (the
#                  collection's CPU/GPU Krylov comparison); ../shared/data/matrices is outside the
#                  tree a GPU machine gets, so copy it into an untracked folder of the tree and
#                  point this at it (without it those parts of the tests skip, and say so)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$PWD/gpu-check-out}
mkdir -p "$OUT"
BUILD=${GS_GPU_BUILD:-build-gpu}
if [ -z "${GS_GIT_SHA:-}" ]; then
  GS_GIT_SHA=$(git rev-parse HEAD 2>/dev/null || echo unknown)
  if [ "$GS_GIT_SHA" != unknown ] && [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then
    GS_GIT_SHA=$GS_GIT_SHA-dirty
  fi
fi
export GS_GIT_SHA
# Multi-GPU hosts here keep NVLink multicast off.
export NCCL_NVLS_ENABLE=0
status=0
step() { # step NAME LOG COMMAND...: run, log, remember failure, keep going
  local name=$1 log=$2
  shift 2
  echo "=== ${name}" | tee -a "$OUT/$log"
  if ! "$@" 2>&1 | tee -a "$OUT/$log"; then
    echo "=== ${name}: FAILED" | tee -a "$OUT/summary.txt"
    status=1
  else
    echo "=== ${name}: ok" | tee -a "$OUT/summary.txt"
  fi
}

: >"$OUT/summary.txt"
{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv || true; } \
  >>"$OUT/summary.txt" 2>&1
step configure build.log cmake -S . -B "$BUILD" -DGS_ENABLE_CUDA=ON -DGS_WERROR=ON \
  -DCMAKE_CUDA_ARCHITECTURES="${CMAKE_CUDA_ARCHITECTURES:-90}"
step build build.log cmake --build "$BUILD" -j "$(nproc)"
skip() { [[ " ${GS_CHECK_SKIP:-} " == *" $1 "* ]]; }
step "ctest gpu" ctest.log bash -c "cd '$BUILD' && ctest -L gpu --output-on-failure --timeout ${GS_TEST_TIMEOUT:-300}"
# Eight CPU tests at once, each with two OpenMP threads (sixteen each would oversubscribe the
# cores and slow tiny OpenMP regions down to milliseconds).
skip ctest-cpu || step "ctest cpu" ctest.log bash -c "cd '$BUILD' && OMP_NUM_THREADS=2 ctest -L cpu --output-on-failure -j 8"
if [ "${GS_CHECK_SANITIZER:-0}" = 1 ] && command -v compute-sanitizer >/dev/null; then
  for t in test_vec test_equiv; do
    step "memcheck $t" ctest.log compute-sanitizer --report-api-errors no --error-exitcode 1 "$BUILD/tests/$t" /gpu/cuda
  done
fi
step info bench.log "$BUILD/tools/gpusolve" info
skip demo || step demo bench.log "$BUILD/tools/gpusolve" demo -cpu_n 16777216
# shellcheck disable=SC2086
skip vec || step "bench vec" bench.log "$BUILD/tools/gpusolve" bench -json_dir "$OUT" -log_view ${GS_BENCH_ARGS:-}
# Batched banded solvers: the issue's headline cases and a sweep of batch x n, cuSPARSE beside.
# shellcheck disable=SC2086
skip banded || step "bench banded" bench.log "$BUILD/tools/gpusolve" banded -sweep 1 -json_dir "$OUT" ${GS_BANDED_ARGS:-}
# The algorithms side by side where the automatic choice moves between them (deferred checks).
skip banded || step "bench banded algos" bench.log "$BUILD/tools/gpusolve" banded -algos 1 -json_dir "$OUT"
# The banded scan's access pattern alone (bytes moved in pieces of 4 to 32 systems; performance.md)
skip banded || step "probe banded pattern" bench.log "$BUILD/benchmarks/gpusolve-probe-banded-pattern"
# Sparse: SpMV on the issue's matrices beside cuSPARSE, CG + Jacobi per iteration.
# shellcheck disable=SC2086
skip sparse || step "bench sparse" bench.log "$BUILD/tools/gpusolve" spmv -suite 1 -json_dir "$OUT" ${GS_SPMV_ARGS:-}
# CuPy's cg (and SpMV) on the same 7-point matrix, when CuPy is installed.
skip sparse || step "bench sparse cupy" bench.log python3 benchmarks/peer_cupy_cg.py -n 256 \
  -json "$OUT/sparse-cupy-nvidia-h200.json" -sha "$GS_GIT_SHA"
# The CPU back end on the sparse issue's CG case (7-point 256^3), time per iteration.
skip sparse || step "bench sparse cpu" bench.log "$BUILD/tools/gpusolve" spmv -gs_backend /cpu \
  -laplacian 256,256,256 -cg 1 -repeats 3 -json "$OUT/sparse-cpu.json"
# Applications: a Cahn-Hilliard step (2D at 1024^2 .. 4096^2, 1D ensemble 65536 x 1024) on the GPU,
# and the CPU back end's smaller cases on the same machine.
skip apps || step "bench apps" bench.log "$BUILD/tools/gpusolve" ch -bench 1 -json_dir "$OUT"
skip apps || step "bench apps cpu" bench.log "$BUILD/tools/gpusolve" ch -bench 1 -gs_backend /cpu \
  -json "$OUT/apps-cpu.json"
# Tuning data for the ADI sweeps: the Cahn-Hilliard step with other SPIKE partition counts (the
# automatic choice is TILE up to 4096 rows), and the sweeps alone (shared periodic penta, rows
# contiguous and columns interleaved) at 2048 and 4096, on stiff rows like Cahn-Hilliard's
# factors (-stiff; random diagonally dominant rows flatter SPIKE): TILE (p0) and SPIKE(P).
for p in 8 16 32; do
  skip apps-tune || step "bench apps parts $p" bench.log "$BUILD/tools/gpusolve" ch -bench 1 \
    -banded_partitions "$p" -json "$OUT/apps-parts$p.json"
done
for nn in 2048 4096; do
  for lay in interleaved contiguous; do
    for p in 0 4 8 16 32; do
      skip apps-tune || step "bench sweep $nn $lay p$p" bench.log "$BUILD/tools/gpusolve" banded \
        -n "$nn" -batch "$nn" -shared 1 -periodic 1 -layout "$lay" -banded_partitions "$p" \
        -stiff "${GS_ADI_STIFF:-1e5}" -banded_check deferred -peers 0
    done
  done
done
# The CPU back end on the same machine, OpenMP and serial, as the seed paper's baselines.
skip banded-cpu || step "bench banded cpu" bench.log "$BUILD/tools/gpusolve" banded -gs_backend /cpu -sweep 1 \
  -max_unknowns 4194304 -repeats 3 -json "$OUT/banded-cpu-openmp.json"
skip banded-cpu || step "bench banded cpu serial" bench.log env OMP_NUM_THREADS=1 "$BUILD/tools/gpusolve" banded \
  -gs_backend /cpu -sweep 1 -max_unknowns 1048576 -repeats 3 -json "$OUT/banded-cpu-serial.json"
cat "$OUT/summary.txt"
exit $status
