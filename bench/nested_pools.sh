#!/usr/bin/env bash
# A program that starts its own workers with joblib (loky), each calling a
# threaded BLAS, as written, run four ways in one run (issue 52, item 4):
#   bare;  under `mptrain run -n 1` (its loky workers divide the thread
#   counts they inherit);  under `mptrain run -n 1 --keep-program-threads`
#   (each loky worker keeps the worker's T, as every run did before);
#   under `mptrain run -n 1 --children N`.
# The pthreads OpenBLAS is chosen with LD_LIBRARY_PATH (Debian's default
# BLAS is the single-threaded reference one). Prints the products per
# second timed inside the workers and the seconds of the Parallel call,
# REPEAT runs each, in rounds of alternating order.
# Usage: bench/nested_pools.sh  (from the repository root; TASKS=… PRODUCTS=… REPEAT=… to change)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
N=$(nproc)
TASKS=${TASKS:-$((4 * N))}
PRODUCTS=${PRODUCTS:-400}
REPEAT=${REPEAT:-5}
require_mptrain
require_command jq
"$PYTHON" -c 'import joblib, numpy' 2>/dev/null || bench_fail "$PYTHON cannot import joblib and numpy (apt-get install python3-sklearn)"
openblas=/usr/lib/x86_64-linux-gnu/openblas-pthread
[[ -d $openblas ]] || bench_fail "no pthreads OpenBLAS in $openblas (apt-get install libopenblas0-pthread)"
export LD_LIBRARY_PATH=$openblas
bench_tmpdir nested-pools
program=("$PYTHON" "$(dirname "$0")/nested_joblib.py" "$TASKS" "$PRODUCTS")
echo "== bench/nested_pools.sh: $(machine_summary), $TASKS tasks x $PRODUCTS products, $REPEAT rounds"

rows=(bare mptrain keep_program_threads children)
one() {
  case $1 in
    bare) "${program[@]}" ;;
    mptrain) "$MPTRAIN" run -n 1 -- "${program[@]}" ;;
    keep_program_threads) "$MPTRAIN" run -n 1 --keep-program-threads -- "${program[@]}" ;;
    children) "$MPTRAIN" run -n 1 --children "$N" -- "${program[@]}" ;;
  esac
}
for round in $(seq "$REPEAT"); do
  # Alternate the order between rounds.
  order=("${rows[@]}")
  ((round % 2 == 0)) && order=(children keep_program_threads mptrain bare)
  for name in "${order[@]}"; do
    one "$name" 2>"$OUT/err" | sed 's/^\[0\] //' | grep '^{' >>"$OUT/$name.jsonl" ||
      { cat "$OUT/err" >&2; bench_fail "$name failed"; }
  done
done
printf '%-22s %-44s %s\n' launch "products/s (each run)" "seconds (each run)"
for name in "${rows[@]}"; do
  printf '%-22s %-44s %s\n' "$name" "$(jq -r .products_per_second "$OUT/$name.jsonl" | tr '\n' ' ')" \
    "$(jq -r .seconds "$OUT/$name.jsonl" | tr '\n' ' ')"
done
