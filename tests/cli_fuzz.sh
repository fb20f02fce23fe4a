#!/usr/bin/env bash
# Random command lines: every subcommand with random options and values (valid, out of range,
# malformed, missing files) on the CPU back end, sizes kept small. Each run must end by itself
# with status 0 (it ran), 1 (an error, with its message on stderr), 2 (usage) or, for solve, 3 (not
# converged), never by a signal or a hang. Seeded (GS_TEST_SEED, else the first of the comma list
# GS_TEST_SEEDS that ctest replays, else the clock; printed) so that a failure can be rerun.
#   cli_fuzz.sh GPUSOLVE WORKDIR [RUNS]
set -uo pipefail
cli=$(readlink -f "$1")
work=$2
runs=${3:-200}
mkdir -p "$work"
seed=${GS_TEST_SEED:-${GS_TEST_SEEDS%%,*}}
seed=${seed:-$(date +%s%N)}
seed=$((seed % 1000000007))
echo "cli_fuzz: seed $seed (rerun: GS_TEST_SEED=$seed)"
RANDOM=$((seed % 32768))
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 5\n1 1 4\n2 2 4\n3 3 4\n1 2 -1\n2 1 -1\n' \
  >"$work/ok.mtx"
printf '%%%%MatrixMarket matrix array real general\n3 1\n1\n2\n3\n' >"$work/b.mtx"
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 9\n1 1 nan\n' >"$work/bad.mtx"

values=(0 1 2 3 5 7 16 33 -1 -7 abc "" nan inf 1e30 0.5 1e-3 "1,2" "4,4,4" "0,3" double float
  interleaved contiguous solve factor_solve cg bicgstab gmres none jacobi 5 27 "$work/ok.mtx"
  "$work/b.mtx" "$work/bad.mtx" "$work/missing.mtx" /dev/null "$work/out.mtx" "$work/sub/x.json")
pick() { echo "${values[RANDOM % ${#values[@]}]}"; }

opts_banded=(-bands -n -batch -dtype -layout -shared -periodic -spd -mode -repeats -peers
  -banded_algorithm -banded_partitions -banded_check -json)
opts_solve=(-A -laplacian -stencil -b -x0 -o -ksp_type -pc_type -ksp_rtol -ksp_atol -ksp_dtol
  -ksp_max_it -ksp_gmres_restart -ksp_monitor -ksp_converged_reason -ksp_pc_side -mat_spmv)
opts_spmv=(-A -laplacian -stencil -powerlaw -cg -forms -repeats -mat_spmv -mat_spmv_panels -json)
opts_hyper=(-n -dim -dt -T -ensemble -k -L -g -float -convergence)
opts_ch=(-n -ny -ensemble -steps -dt -D -gamma -L -order -stabilize -float -mean -amplitude -seed
  -init -every -csv -checkpoint -restart -out -gamma_range -D_range)
opts_bench=(-n -repeats -cpu_peer -peers -json)

fails=0
for ((r = 0; r < runs; r++)); do
  case $((RANDOM % 6)) in
  0) cmd=banded base=(-n 16 -batch 8 -repeats 2 -peers 0) names=("${opts_banded[@]}") ;;
  1) cmd=solve base=(-laplacian 6,6 -ksp_max_it 50) names=("${opts_solve[@]}") ;;
  2) cmd=spmv base=(-laplacian 8,8 -repeats 2) names=("${opts_spmv[@]}") ;;
  3) cmd=hyperdiffusion base=(-n 16 -T 1e-6 -dt 1e-7) names=("${opts_hyper[@]}") ;;
  4) cmd=ch base=(-n 16 -steps 3 -every 1) names=("${opts_ch[@]}") ;;
  *) cmd=bench base=(-n 4096 -repeats 2 -cpu_peer 0 -peers 0) names=("${opts_bench[@]}") ;;
  esac
  args=("${base[@]}")
  for ((k = RANDOM % 4; k >= 0; k--)); do
    name=${names[RANDOM % ${#names[@]}]}
    val=$(pick)
    # Sizes and step counts stay small: a random large one would only make the run long.
    case $name in
    -n | -batch | -steps | -ensemble | -repeats | -ny | -ksp_max_it | -powerlaw)
      case $val in 16 | 33 | 1e30 | "4,4,4" | inf) val=7 ;; esac ;;
    -T) case $val in 0 | -1 | -7 | abc | "" | nan | inf) ;; *) val=1e-6 ;; esac ;;
    -convergence | -cg | -forms) case $val in 1 | 2 | 3 | 5 | 7 | 16 | 33 | 27) val=0 ;; esac ;;
    -laplacian) case $val in "1,2" | "0,3" | abc | "" | -1) ;; *) val="5,5" ;; esac ;;
    esac
    args+=("$name" "$val")
  done
  (cd "$work" && timeout 60 "$cli" "$cmd" -gs_backend /cpu "${args[@]}" >"$work/out.txt" 2>"$work/err.txt")
  st=$?
  bad=""
  # solve ends with 3 when the method did not converge (its help says so)
  if [ "$st" -gt 3 ] || { [ "$st" -eq 3 ] && [ "$cmd" != solve ]; }; then bad="status $st"; fi
  if [ "$st" -eq 1 ] && { [ ! -s "$work/err.txt" ] || grep -qx "gpusolve: *" "$work/err.txt"; }; then
    bad="status 1 without a message"
  fi
  if [ -n "$bad" ]; then
    fails=$((fails + 1))
    printf 'FAIL: gpusolve %s -gs_backend /cpu' "$cmd"
    printf " '%s'" "${args[@]}"
    printf ' -> %s; stderr:\n' "$bad"
    head -5 "$work/err.txt"
  fi
done
echo "cli_fuzz: $runs runs, $fails failed"
[ "$fails" -eq 0 ]
