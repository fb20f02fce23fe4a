#!/usr/bin/env bash
# `gpusolve bench` on the CPU writes JSON that parses and holds what docs/performance.md needs;
# every subcommand answers --help.
set -euo pipefail
cli=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
for c in info demo bench; do grep -q usage <<<"$("$cli" "$c" --help)"; done
GS_GIT_SHA=0123456789abcdef "$cli" bench -gs_backend /cpu -n 50000 -repeats 3 -json_dir "$work"
python3 - "$work"/vec-cpu.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["git_sha"] == "0123456789abcdef", r["git_sha"]
assert r["floor"]["gbytes_per_s"] > 0
ops = {(x["op"], x["dtype"]) for x in r["records"]}
for need in [("axpy", "double"), ("dot", "double"), ("norm2", "double"), ("axpy", "float")]:
    assert need in ops, need
for x in r["records"]:
    assert x["n"] == 50000 and x["median_s"] > 0 and x["gbytes_per_s"] > 0, x
print("cli_bench: %d records OK" % len(r["records"]))
PY

# Without GS_GIT_SHA the records name the working directory's git HEAD, with "-dirty" where a
# tracked file differs from it, and "unknown" outside a repository.
sha_of() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["git_sha"])' "$1"; }
if command -v git >/dev/null; then
  repo="$work/repo"
  mkdir -p "$repo"
  git -C "$repo" init -q
  echo a >"$repo/f"
  git -C "$repo" add f
  git -C "$repo" -c user.name=t -c user.email=t@t commit -q -m f
  head=$(git -C "$repo" rev-parse HEAD)
  for state in clean dirty; do
    [ "$state" = dirty ] && echo b >"$repo/f"
    mkdir -p "$work/$state"
    (cd "$repo" && env -u GS_GIT_SHA "$cli" bench -gs_backend /cpu -n 1000 -repeats 1 \
      -json_dir "$work/$state" >/dev/null)
    want=$head
    [ "$state" = dirty ] && want=$head-dirty
    got=$(sha_of "$work/$state/vec-cpu.json")
    [ "$got" = "$want" ] || { echo "git_sha $got in a $state tree, expected $want"; exit 1; }
  done
fi
mkdir -p "$work/nogit"
(cd "$work/nogit" && env -u GS_GIT_SHA GIT_CEILING_DIRECTORIES="$work" "$cli" bench -gs_backend /cpu \
  -n 1000 -repeats 1 -json_dir "$work/nogit" >/dev/null)
got=$(sha_of "$work/nogit/vec-cpu.json")
[ "$got" = unknown ] || { echo "git_sha $got outside a repository, expected unknown"; exit 1; }

# `gpusolve spmv`: a Laplacian with CG, its JSON, the usage error.
out=$("$cli" spmv -gs_backend /cpu -laplacian 24,20,16 -cg 1 -repeats 3 -json "$work/sparse.json")
grep -q "cg+jacobi rtol=1e-8 its=" <<<"$out"
grep -q "usage: gpusolve spmv" <<<"$("$cli" spmv --help)"
if "$cli" spmv -gs_backend /cpu >/dev/null 2>&1; then echo "spmv without a matrix was accepted"; exit 1; fi
python3 - "$work/sparse.json" <<'PY'
import json, re, sys
r = json.load(open(sys.argv[1]))
assert r["suite"] == "sparse", r["suite"]
ops = {x["op"] for x in r["records"]}
assert ops == {"spmv", "cg_iteration"}, ops
for x in r["records"]:
    assert x["median_s"] > 0, x
    if x["op"] == "spmv":
        nnz = int(re.search(r"nnz=(\d+)", x["config"]).group(1))
        assert 0 <= x["residual"] < 1e-14 and x["bytes"] == 12 * nnz + 20 * x["n"], x
print("cli_bench spmv: %d records OK" % len(r["records"]))
PY
