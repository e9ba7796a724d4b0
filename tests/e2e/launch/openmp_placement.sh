# Threads inside each worker are placed: each of a worker's T OpenMP threads
# runs on its own PU of that worker's CPUs, with GNU OpenMP and (where clang
# and Debian's libomp-dev are installed) LLVM's. --omp-bind none leaves them
# floating over the worker's CPUs; a user's own OMP_PLACES wins, with a warning.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
need_cpus 2

use_program omp_gnu omp_where_gnu
use_program omp_llvm omp_where_llvm
ldd "$WORK/omp_llvm" | grep libomp >/dev/null || fail "omp_where_llvm does not load LLVM's libomp (scripts/setup.sh installs libomp-dev)"
runtimes=(gnu llvm)

# expand LIST: the CPUs of a kernel list such as 0-2,5, one per line.
expand() {
  local part
  for part in ${1//,/ }; do
    if [[ "$part" == *-* ]]; then seq "${part%-*}" "${part#*-}"; else echo "$part"; fi
  done
}

# check_placed RUNTIME M T: each rank's T threads sit each on a distinct PU of its CPUs.
check_placed() {
  local runtime=$1 m=$2 t=$3 rank cpus lines allowed cpu
  "$MPTRAIN" plan -n "$m" -t "$t" --json >"$WORK/plan.json" || fail "plan -n $m -t $t failed"
  run_mptrain run -n "$m" -t "$t" -- "$WORK/omp_$runtime"
  expect_code 0
  ! grep -q 'OMP: Warning' "$WORK/out" "$WORK/err" || { cat "$WORK/err" >&2; fail "$runtime: the OpenMP runtime warned"; }
  for ((rank = 0; rank < m; rank++)); do
    cpus=$(jq -r ".workers[$rank].cpus" "$WORK/plan.json")
    lines=$(grep "^\[$rank\] omp " "$WORK/out")
    [[ $(wc -l <<<"$lines") == "$t" ]] || { cat "$WORK/out" >&2; fail "$runtime: rank $rank ran not $t threads"; }
    # One PU per thread: allowed is a single CPU of the worker's set, the thread runs there, no two share it.
    while read -r _ _ _ _ cpu _ allowed; do
      [[ "$allowed" =~ ^[0-9]+$ ]] || fail "$runtime -n $m -t $t: rank $rank has a thread allowed on $allowed, not one PU"
      [[ "$cpu" == "$allowed" ]] || fail "$runtime: rank $rank's thread on CPU $allowed ran on CPU $cpu"
      expand "$cpus" | grep -x "$allowed" >/dev/null || fail "$runtime: rank $rank's thread is on CPU $allowed, outside $cpus"
    done <<<"$lines"
    [[ $(awk '{print $7}' <<<"$lines" | sort -u | wc -l) == "$t" ]] ||
      { echo "$lines" >&2; fail "$runtime -n $m -t $t: rank $rank's threads share a PU"; }
  done
}

for runtime in "${runtimes[@]}"; do
  check_placed "$runtime" 1 2
  check_placed "$runtime" 2 1

  # --omp-bind none: both threads may run on either of the worker's CPUs.
  run_mptrain run -n 1 -t 2 --omp-bind none -- "$WORK/omp_$runtime"
  expect_code 0
  cpus=$("$MPTRAIN" plan -n 1 -t 2 --json | jq -r '.workers[0].cpus')
  [[ $(grep -c "allowed $cpus\$" "$WORK/out") == 2 ]] || { cat "$WORK/out" >&2; fail "$runtime: --omp-bind none still placed threads"; }

  # The user's own placement wins whole (no KMP_AFFINITY of ours beside it), with a warning.
  OMP_PLACES='{1},{0}' OMP_PROC_BIND=close run_mptrain run -n 1 -t 2 -- "$WORK/omp_$runtime"
  expect_code 0
  expect_stderr 'warning: OMP_PLACES=\{1\},\{0\} is set, so mptrain leaves the placement'
  grep -q '^\[0\] omp 0 cpu 1 allowed 1$' "$WORK/out" || { cat "$WORK/out" >&2; fail "$runtime: the user's OMP_PLACES lost"; }
  ! grep -q 'OMP: Warning' "$WORK/out" "$WORK/err" || { cat "$WORK/err" >&2; fail "$runtime: the runtime warned"; }
done
