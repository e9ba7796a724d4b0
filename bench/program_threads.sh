#!/usr/bin/env bash
# Programs that size their own pools to every CPU, each launched five ways
# in one run: bare as written, bare hand-fixed (SELF_SIZED_THREADS =
# floor(N/K)), `mptrain run -n 1`, `mptrain run -n 1 --children K` and
# `mptrain torchrun --nproc-per-node 1 --no-python`. Prints each one's
# throughput (the sum over its K workers of what they print per second)
# and its ratio to bare and to the hand fix. The programs: a C program
# forking K children running GNU OpenMP regions (regions/s), the same with
# LLVM's OpenMP, K torch.multiprocessing workers (matrix products/s), and
# numpy on pthreads OpenBLAS (-n K processes, products/s).
# Usage: bench/program_threads.sh [SECONDS] (default 3; REPEAT=R rounds, best of R)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
seconds=${1:-3}
repeat=${REPEAT:-2}
require_mptrain
bench_tmpdir program-threads
programs=$ROOT/tests/e2e/launch/programs
gcc -O2 -fopenmp "$programs/omp_self_sized.c" -o "$OUT/omp_gnu"
clang -O2 -fopenmp "$programs/omp_self_sized.c" -o "$OUT/omp_llvm"
n=$("$MPTRAIN" plan -n 1 --json | jq -r '.threads_per_process')
k=2
blas=/usr/lib/x86_64-linux-gnu/openblas-pthread
echo "machine: $(machine_summary); N = $n, K = $k"

# total FIELD: the sum of FIELD's value (the word after it) over the workers' lines on stdin.
total() { awk -v field="$1" '{ for (i = 1; i < NF; i++) if ($i == field) sum += $(i + 1) } END { printf "%.0f", sum }'; }

# best FIELD COMMAND...: the best total of R runs.
best() {
  local field=$1 best=0 value
  shift
  for _ in $(seq "$repeat"); do
    value=$("$@" 2>/dev/null | total "$field")
    ((value > best)) && best=$value
  done
  echo "$best"
}

# row NAME FIELD ENV -- PROGRAM...: the five launches of one program.
row() {
  local name=$1 field=$2 env=$3
  shift 4
  local bare hand plain children torchrun
  bare=$(best "$field" env $env "$@")
  hand=$(best "$field" env $env SELF_SIZED_THREADS=$((n / k)) "$@")
  plain=$(best "$field" env $env "$MPTRAIN" run -n 1 -- "$@")
  children=$(best "$field" env $env "$MPTRAIN" run -n 1 --children $k -- "$@")
  torchrun=$(best "$field" env $env "$MPTRAIN" torchrun --nproc-per-node 1 --no-python "$@")
  printf "%-22s %10s %10s %10s %10s %10s   %s\n" "$name" "$bare" "$hand" "$plain" "$children" "$torchrun" \
    "$(awk -v b="$bare" -v h="$hand" -v p="$plain" -v c="$children" -v t="$torchrun" \
      'BEGIN { printf "run %.2fx bare, children %.2fx bare %.2fx hand, torchrun %.2fx bare", p/b, c/b, c/h, t/b }')"
}

printf "%-22s %10s %10s %10s %10s %10s\n" "program" "bare" "hand-fixed" "run -n 1" "--children" "torchrun"
row "C + GNU OpenMP" regions "" -- "$OUT/omp_gnu" $k "$seconds"
row "C + LLVM OpenMP" regions "" -- "$OUT/omp_llvm" $k "$seconds"
if "$PYTHON" -c 'import torch' 2>/dev/null; then
  row "torch.multiprocessing" steps "" -- "$PYTHON" "$programs/torch_self_sized.py" $k "$seconds"
fi
if "$PYTHON" -c 'import numpy' 2>/dev/null && [[ -e $blas/libblas.so.3 ]]; then
  # numpy's program does not fork: K copies of it, side by side, make the K processes.
  cat >"$OUT/blas_k.sh" <<SCRIPT
#!/bin/sh
for i in \$(seq $k); do "$PYTHON" "$programs/blas_self_sized.py" "$seconds" & done
wait
SCRIPT
  chmod +x "$OUT/blas_k.sh"
  row "numpy + OpenBLAS" products "LD_LIBRARY_PATH=$blas" -- "$OUT/blas_k.sh"
fi
