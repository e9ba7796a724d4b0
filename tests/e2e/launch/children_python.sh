# --children K with a Python multiprocessing Pool on the pthreads OpenBLAS
# (chosen with LD_LIBRARY_PATH, as the doctor's corpus does), for each
# start method: every pool worker gets a slice of the worker's CPUs of its
# own and floor(T/K) BLAS threads; the resource tracker, a helper, takes
# no slice and floats over the worker's CPUs.
# ctest: label long (5 s or more in a Release build, in the programs it runs and the windows it watches: Release stage only)
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
need_cpus 2
python=/usr/bin/python3
"$python" -c 'import numpy' 2>/dev/null || fail "$python with numpy is needed (scripts/setup.sh installs python3-numpy)"
openblas=/usr/lib/x86_64-linux-gnu/openblas-pthread
[[ -d $openblas ]] || fail "the pthreads OpenBLAS is needed in $openblas (scripts/setup.sh installs libopenblas0-pthread)"
program="$PROGRAMS/pool_children.py"
plan=$("$MPTRAIN" plan -n 1 -t 4 --allow-oversubscribe --json)
cpus=$(jq -r '.workers[0].cpus' <<<"$plan")

for method in spawn fork forkserver; do
  # 4 threads for the worker, 2 per child: the BLAS count says floor(T/K), not T.
  LD_LIBRARY_PATH=$openblas run_mptrain run -n 1 -t 4 --allow-oversubscribe --children 2 -- "$python" "$program" "$method" 2
  expect_code 0
  [[ $(grep -c "^\[0\] child [0-9]* blas 2 allowed " "$WORK/out") == 2 ]] ||
    { cat "$WORK/out" "$WORK/err" >&2; fail "$method: the pool workers do not run 2 BLAS threads each"; }
  grep -q "^\[0\] tracker [0-9]* allowed $cpus$" "$WORK/out" ||
    { cat "$WORK/out" >&2; fail "$method: the resource tracker does not float over rank 0's CPUs ($cpus)"; }
done

# T = N: each pool worker on a slice of N/2 CPUs of its own.
half=$(($("$MPTRAIN" plan -n 1 --json | jq -r '.threads_per_process') / 2))
LD_LIBRARY_PATH=$openblas run_mptrain run -n 1 --children 2 -- "$python" "$program" spawn 2
expect_code 0
mapfile -t slices < <(sed -n 's/^\[0\] child [0-9]* blas [0-9]* allowed //p' "$WORK/out")
[[ ${#slices[@]} == 2 ]] || { cat "$WORK/out" >&2; fail "two pool workers did not report"; }
[[ ${slices[0]} != "${slices[1]}" ]] || fail "both pool workers run on CPUs ${slices[0]}"
for slice in "${slices[@]}"; do
  count=$(tr ',' '\n' <<<"$slice" | awk -F- '{ n += NF > 1 ? $2 - $1 + 1 : 1 } END { print n }')
  [[ $count == "$half" ]] || fail "a pool worker may use CPUs $slice, not a slice of $half"
done
exit 0
