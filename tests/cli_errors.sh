#!/usr/bin/env bash
# Mistakes on the command line end with a clear message and a small exit status, never a crash.
set -uo pipefail
cli=$1
fails=0
expect() { # expect STATUS REGEX ARGS...: run the CLI, check its exit status and stderr
  local want=$1 regex=$2
  shift 2
  local err
  err=$("$cli" "$@" 2>&1 >/dev/null)
  local got=$?
  if [ "$got" -ne "$want" ] || ! grep -Eq "$regex" <<<"$err"; then
    echo "FAIL: gpusolve $* -> status $got (want $want), stderr: $err"
    fails=$((fails + 1))
  fi
}
expect 2 "unknown command 'frobnicate'" frobnicate
expect 2 "usage" # no command
expect 1 "GS_ERR_OPTION.*-n.*'many'" bench -gs_backend /cpu -n many
expect 1 "GS_ERR_BACKEND_UNKNOWN.*/gpu/opencl.*/cpu" demo -gs_backend /gpu/opencl
expect 1 "must be positive" bench -gs_backend /cpu -n -5
expect 1 "unknown suite 'spmv'" bench spmv
expect 1 "GS_ERR_FILE_OPEN.*no/such/dir" bench -gs_backend /cpu -n 1000 -repeats 2 -json /no/such/dir/x.json
echo "cli_errors: $((7 - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
