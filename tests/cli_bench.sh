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
