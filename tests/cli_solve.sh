#!/usr/bin/env bash
# `gpusolve solve` on the CPU: a Laplacian and (when present) a collection matrix, the printed
# reason and residual, -o / -x0 / -b files, the monitor, the exit status when a solve does not
# converge, and the errors for a missing file, a missing matrix and a zero diagonal with Jacobi.
# Usage: cli_solve.sh GPUSOLVE WORKDIR MATRIXDIR
set -euo pipefail
cli=$1 work=$2 dir=${3:-}
rm -rf "$work" && mkdir -p "$work"
status() { set +e; "$@" >"$work/out.txt" 2>&1; echo $?; set -e; }

out=$("$cli" solve --help)
grep -q "usage: gpusolve solve" <<<"$out"
out=$("$cli" help)
grep -q "solve " <<<"$out"

out=$("$cli" solve -gs_backend /cpu -laplacian 30,30 -ksp_type cg -pc_type jacobi -ksp_rtol 1e-10 \
  -ksp_converged_reason -o "$work/x.mtx")
echo "$out"
grep -q "5-point Laplacian 30x30: 900 x 900, 4380 entries" <<<"$out"
grep -q "Linear solve converged due to CONVERGED_RTOL" <<<"$out"
grep -Eq "true relative residual [0-9.]+e-1[0-9]" <<<"$out"
grep -q "^%%MatrixMarket matrix array real general" "$work/x.mtx"
# (Outputs are captured before grep: grep -q exits at its match and, with pipefail, the writer's
# SIGPIPE would fail the step.)
# -ksp_view describes the solver after the solve.
out=$("$cli" solve -gs_backend /cpu -laplacian 8,8 -ksp_type gmres -ksp_gmres_restart 12 -ksp_view)
grep -q "restart=12, classical Gram-Schmidt, twice (CGS2)" <<<"$out"
grep -q "operator: matrix, rows=64, cols=64, nonzeros=288, SpMV kernel csr" <<<"$out"
grep -q "last solve: CONVERGED_RTOL in " <<<"$out"
# The solution as initial guess: converged before the first iteration.
out=$("$cli" solve -gs_backend /cpu -laplacian 30,30 -x0 "$work/x.mtx" -ksp_type cg -ksp_rtol 1e-6)
grep -q "after 0 iterations" <<<"$out"
# b from a file: the solution for b = A * ones is all ones.
out=$("$cli" solve -gs_backend /cpu -laplacian 6,5,4 -stencil 27 -ksp_type bicgstab -ksp_rtol 1e-12 \
  -o "$work/ones.mtx")
grep -q "27-point Laplacian 6x5x4: 120 x 120" <<<"$out"
python3 - "$work/ones.mtx" <<'PY'
import sys
lines = [l for l in open(sys.argv[1]) if l.strip() and not l.startswith('%')]
vals = [float(l) for l in lines[1:]]
assert len(vals) == 120 and max(abs(v - 1) for v in vals) < 1e-9, vals[:5]
PY
# b from a file of the wrong length: an error naming the sizes.
[ "$(status "$cli" solve -gs_backend /cpu -laplacian 10,10 -b "$work/x.mtx")" = 1 ]
grep -q "b has 900" "$work/out.txt"
out=$("$cli" solve -gs_backend /cpu -laplacian 10,10 -ksp_type gmres -ksp_monitor -ksp_pc_side left)
grep -Eq "^  0 KSP Residual norm [0-9]" <<<"$out"
# Not converged: exit status 3.
[ "$(status "$cli" solve -gs_backend /cpu -laplacian 30,30 -ksp_max_it 2)" = 3 ]
grep -q "DIVERGED_ITS after 2 iterations" "$work/out.txt"
# Errors.
[ "$(status "$cli" solve -gs_backend /cpu -A "$work/none.mtx")" = 1 ]
grep -q "none.mtx" "$work/out.txt"
[ "$(status "$cli" solve -gs_backend /cpu)" = 2 ]
grep -q "exactly one of -A" "$work/out.txt"
[ "$(status "$cli" solve -gs_backend /cpu -laplacian 5)" = 2 ]
if [ -n "$dir" ] && [ -f "$dir/west0479.mtx" ]; then
  [ "$(status "$cli" solve -gs_backend /cpu -A "$dir/west0479.mtx" -pc_type jacobi)" = 1 ]
  grep -q "row .* has a zero diagonal entry" "$work/out.txt"
  out=$("$cli" solve -gs_backend /cpu -A "$dir/gr_30_30.mtx" -ksp_type cg -pc_type jacobi \
    -ksp_rtol 1e-8)
  grep -q "CONVERGED_RTOL after 41 iterations" <<<"$out"
fi
echo "cli_solve: OK"
