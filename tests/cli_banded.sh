#!/usr/bin/env bash
# `gpusolve banded` on the CPU: one small case of each kind and a tiny sweep; every JSON file must
# parse, hold its records with the fields docs/performance.md needs, and small residuals.
# Usage: cli_banded.sh GPUSOLVE WORKDIR
set -euo pipefail
cli=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
export GS_GIT_SHA=0123456789abcdef

grep -q "usage: gpusolve banded" <<<"$("$cli" banded --help)"
grep -q banded <<<"$("$cli" help)"

k=0
run() { # run ARGS...: one case on the CPU, its JSON in $work/case-N.json
  k=$((k + 1))
  echo "== gpusolve banded $*"
  "$cli" banded -gs_backend /cpu -repeats 3 -json "$work/case-$k.json" "$@" | tee "$work/case-$k.txt"
  grep -Eq "residual [0-9.]+e-[0-9]+" "$work/case-$k.txt"
}
run -bands 3 -n 100 -batch 64
run -bands 5 -n 100 -batch 64
run -bands 3 -n 50 -batch 40 -periodic 1
run -bands 5 -n 50 -batch 40 -periodic 1
run -bands 3 -n 64 -batch 33 -shared 1
run -bands 5 -n 64 -batch 33 -shared 1
run -bands 3 -n 70 -batch 20 -layout contiguous
run -bands 5 -n 70 -batch 20 -layout contiguous -periodic 1
run -bands 5 -n 64 -batch 32 -layout contiguous -shared 1 -periodic 1
run -bands 3 -n 80 -batch 16 -mode factor_solve
run -bands 5 -n 80 -batch 16 -mode factor_solve -layout contiguous
run -bands 5 -n 80 -batch 16 -mode factor_solve -shared 1
run -bands 5 -n 5 -batch 7 -periodic 1 -dtype float
run -bands 3 -n 60 -batch 10 -dtype float -layout contiguous -mode factor_solve
run -bands 5 -n 64 -batch 30 -spd 1 -periodic 1
run -bands 5 -n 64 -batch 30 -shared 1 -banded_view
grep -q "matrix: one shared by the batch, LU without pivoting" "$work/case-$k.txt"
grep -q "algorithm: thread (chosen automatically)" "$work/case-$k.txt"
run -bands 3 -n 90 -batch 12 -spd 1 -layout contiguous -mode factor_solve
run -bands 5 -n 300 -batch 20 -shared 1 -periodic 1 -banded_algorithm tile
grep -q "algo=tile" "$work/case-$k.txt"
run -bands 3 -n 300 -batch 20 -banded_algorithm spike -banded_partitions 4
grep -q "algo=spike parts=4" "$work/case-$k.txt"
run -bands 5 -n 2100 -batch 5 -layout contiguous -stiff 1e3 -banded_algorithm scan
grep -q "algo=scan" "$work/case-$k.txt"
run -bands 5 -n 50 -batch 30 -banded_check deferred
grep -q "check=deferred" "$work/case-$k.txt"
run -bands 5 -n 600 -batch 9 -shared 1 -periodic 1 -stiff 1e4 -banded_algorithm spike
grep -q "stiff=10000 algo=spike" "$work/case-$k.txt"
run -bands 3 -n 90 -batch 12 -layout contiguous -stiff 100 -mode factor_solve
grep -q "stiff=100" "$work/case-$k.txt"
if "$cli" banded -gs_backend /cpu -stiff -1 -n 10 -batch 2 >"$work/bad.txt" 2>&1; then
  echo "a negative -stiff was accepted"; exit 1
fi
grep -q "\-stiff -1 must be in" "$work/bad.txt"
if "$cli" banded -gs_backend /cpu -banded_algorithm fastest -n 10 -batch 2 >"$work/bad.txt" 2>&1; then
  echo "an unknown -banded_algorithm was accepted"; exit 1
fi
grep -q "banded_algorithm" "$work/bad.txt"
# Every -banded_* option the help names is one the library reads (none left over), with a value
# it takes; and the help names every strategy the library reads.
help=$("$cli" banded --help)
opts=$(grep -o -- '-banded_[a-z_]*' <<<"$help" | sort -u)
for o in -banded_staged -banded_scan_pair -banded_scan_wide -banded_scan_halves \
  -banded_tile_image -banded_tile_tail -banded_tile_passes -banded_partitions; do
  grep -qx -- "$o" <<<"$opts" || { echo "the help does not name $o"; exit 1; }
done
for o in $opts; do
  case $o in
    -banded_algorithm) v=scan ;;
    -banded_check) v=deferred ;;
    -banded_partitions) v=2 ;;
    -banded_tile_passes) v=two ;;
    *) v=on ;;
  esac
  "$cli" banded -gs_backend /cpu -n 40 -batch 6 -repeats 1 "$o" "$v" -options_left >"$work/opt.txt" 2>&1 ||
    { cat "$work/opt.txt"; echo "gpusolve banded $o $v failed"; exit 1; }
  if grep -q "Option left" "$work/opt.txt"; then
    echo "gpusolve banded: $o, named in the help, was not used"; exit 1
  fi
done

echo "== gpusolve banded -algos 1 -max_unknowns 1048576"
"$cli" banded -gs_backend /cpu -algos 1 -max_unknowns 1048576 -repeats 1 -json "$work/algos.json" \
  >"$work/algos.txt"
grep -q "algo=scan check=deferred" "$work/algos.txt"
grep -q "algo=tile check=deferred" "$work/algos.txt"
grep -q "algo=thread check=deferred" "$work/algos.txt"

echo "== gpusolve banded -sweep 1 -max_unknowns 100000"
"$cli" banded -gs_backend /cpu -sweep 1 -max_unknowns 100000 -repeats 2 -json "$work/sweep.json" \
  >"$work/sweep.txt"
tail -n 3 "$work/sweep.txt"

python3 - "$work" "$k" <<'PY'
import glob, json, os, sys
work, ncase = sys.argv[1], int(sys.argv[2])
tol = {"double": 1e-8, "float": 1e-4}
# Values per unknown of the floor (solve: factors + f + x; shared: f + x; factor_solve: diagonals + f + x;
# a periodic matrix's E^-1 F is not counted: a solve reads it only where it is above rounding).
def floor_values(x):
    nlu = (3 if x["bands"] == 5 else 2) if x.get("spd") else (5 if x["bands"] == 5 else 3)
    if x["mode"] == "factor_solve":
        per = 2 + (0 if x["shared"] else x["bands"])
    else:
        per = 2 + (0 if x["shared"] else nlu)
    extra = 0
    if x["shared"]:
        extra = (x["bands"] if x["mode"] == "factor_solve" else nlu) * x["n"]
    return per * x["unknowns"] + extra

def check(path, records_wanted=None):
    r = json.load(open(path))
    assert r["suite"] == "banded", r["suite"]
    assert r["git_sha"] == "0123456789abcdef", r["git_sha"]
    assert r["resource"] == "/cpu", r["resource"]
    # Rates are written with 2 decimals: on a slow or crowded machine small cases read 0.00.
    assert r["floor"]["gbytes_per_s"] >= 0
    recs = r["records"]
    if records_wanted is not None:
        assert len(recs) == records_wanted, (path, len(recs))
    for x in recs:
        assert x["impl"] == "gpusolve" and x["resource"] == "/cpu", x
        assert x["op"] in ("banded_solve", "banded_factor_solve"), x
        assert x["median_s"] > 0 and x["gbytes_per_s"] >= 0 and x["floor_gbytes_per_s"] >= 0, x
        assert x["unknowns"] == x["n"] * x["batch"], x
        es = 8 if x["dtype"] == "double" else 4
        assert x["bytes"] == floor_values(x) * es, (x["bytes"], floor_values(x) * es, x)
        gbps = x["bytes"] / x["median_s"] / 1e9
        assert abs(x["gbytes_per_s"] - gbps) <= 0.006 + 1e-3 * gbps, (gbps, x)
        if x["floor_gbytes_per_s"] >= 1:
            assert abs(x["fraction_of_copy"] - gbps / x["floor_gbytes_per_s"]) < 1e-2, x
        res = x["residual"]
        assert res is not None and 0 <= res < tol[x["dtype"]], x
    return r

for i in range(1, ncase + 1):
    check(os.path.join(work, "case-%d.json" % i), 1)
s = check(os.path.join(work, "sweep.json"))
assert s["banded"]["sweep"] is True and s["banded"]["max_unknowns"] == 100000
recs = s["records"]
assert len(recs) == 12, len(recs)  # 6 (batch, n) pairs under 1e5 unknowns, penta and tri
assert all(x["unknowns"] <= 100000 and x["group"] == "sweep" for x in recs)
assert {x["bands"] for x in recs} == {3, 5}
a = check(os.path.join(work, "algos.json"))
assert a["banded"]["algos"] is True and a["banded"]["sweep"] is False
arecs = a["records"]
# The shapes of at most 2^20 unknowns, three algorithms each, every call deferred.
assert len(arecs) == 3 * 10, len(arecs)
assert all(x["group"] == "algos" and "check=deferred" in x["config"] for x in arecs)
for algo in ("scan", "spike", "thread", "tile"):
    assert any("algo=" + algo in x["config"] for x in arecs), algo
print("cli_banded: %d cases, a sweep of %d records and %d algorithm records OK"
      % (ncase, len(recs), len(arecs)))
PY

# Mistakes end with a message and status 1.
if "$cli" banded -gs_backend /cpu -bands 4 2>"$work/err.txt"; then exit 1; fi
grep -q "bands must be 3 or 5" "$work/err.txt"
if "$cli" banded -gs_backend /cpu -layout diagonal 2>"$work/err.txt"; then exit 1; fi
grep -q "GS_ERR_OPTION" "$work/err.txt"
if "$cli" banded -gs_backend /cpu -bands 5 -n 4 -batch 3 2>"$work/err.txt"; then exit 1; fi
grep -q "too small for 5 bands" "$work/err.txt"
echo "cli_banded: error cases OK"
