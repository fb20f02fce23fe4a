#!/usr/bin/env bash
# The application commands on the CPU: `gpusolve hyperdiffusion` prints its errors and timing, the
# convergence tables give orders near 2 in space and in time, and bad parameters are named errors
# with exit status 1.
# Usage: cli_apps.sh GPUSOLVE WORKDIR
set -euo pipefail
cli=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
status() { set +e; "$@" >"$work/out.txt" 2>&1; echo $?; set -e; }

out=$("$cli" hyperdiffusion --help)
grep -q "usage: gpusolve hyperdiffusion" <<<"$out"
out=$("$cli" help)
grep -q "hyperdiffusion" <<<"$out"

out=$("$cli" hyperdiffusion -gs_backend /cpu -n 64 -ensemble 3 -T 1e-5 -dt 1e-7)
echo "$out"
grep -q "n 64, ensemble 3, dt 1e-07, 100 steps to T = 1e-05" <<<"$out"
grep -Eq "L2 error [0-9.]+e-0[0-9] against the exact solution" <<<"$out"

out=$("$cli" hyperdiffusion -gs_backend /cpu -convergence 1)
echo "$out"
python3 - <<PY
import re
out = """$out"""
space = float(re.search(r"fitted order in space: ([0-9.]+)", out).group(1))
time = float(re.search(r"fitted order in time: ([0-9.]+)", out).group(1))
assert abs(space - 2) <= 0.1 and abs(time - 2) <= 0.1, (space, time)
PY

[ "$(status "$cli" hyperdiffusion -gs_backend /cpu -n 4)" = 1 ]
grep -q "n = 4 grid points" "$work/out.txt"
[ "$(status "$cli" hyperdiffusion -gs_backend /cpu -dt -1)" = 1 ]
grep -q "dt = -1 must be positive" "$work/out.txt"
[ "$(status "$cli" hyperdiffusion -gs_backend /cpu -T -1)" = 2 ]
echo "cli_apps: ok"
