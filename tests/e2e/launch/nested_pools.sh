# Pools inside processes a worker's program starts itself (issue 52, item 4), with real clients:
# joblib's loky workers (exec'd) inherit the thread counts mptrain set for the whole worker and
# joblib passes them on, so each would run all T threads; they get T divided among the workers
# running together, and the pools report says so. A program run alone keeps T; --keep-program-threads
# keeps the inherited count; with --children 2 each loky worker holds a slice of its own (loky's
# resource tracker is a helper, not a worker); torch DataLoader workers float over the worker's CPUs
# with torch's own one thread.
# ctest: label long (5 s or more in a Release build, in the programs it runs and the windows it watches: Release stage only)
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
need_cpus 2
python=/usr/bin/python3
"$python" -c 'import joblib, numpy' 2>/dev/null || fail "$python with joblib and numpy is needed (scripts/setup.sh --test installs python3-sklearn, which brings joblib)"
openblas=/usr/lib/x86_64-linux-gnu/openblas-pthread
[[ -d $openblas ]] || fail "the pthreads OpenBLAS is needed in $openblas (scripts/setup.sh installs libopenblas0-pthread)"
program="$PROGRAMS/nested_pools.py"
# One worker of 2 threads on 2 CPUs, whatever the machine's size.
plan=(-n 1 -t 2 --cpus "$("$MPTRAIN" plan -n 2 --json | jq -r '[.workers[].cpus] | join(",")')")
cpus=$("$MPTRAIN" plan "${plan[@]}" --json | jq -r '.workers[0].cpus')

# rows MODE: the lines the program's processes printed for MODE, untagged.
rows() { sed -n "s/^\[0\] \($1 .*\)/\1/p" "$WORK/out"; }

LD_LIBRARY_PATH=$openblas run_mptrain run "${plan[@]}" -- "$python" "$program" joblib
expect_code 0
mapfile -t workers < <(rows joblib)
[[ ${#workers[@]} == 2 ]] || { cat "$WORK/out" "$WORK/err" >&2; fail "joblib did not run 2 loky workers"; }
for row in "${workers[@]}"; do
  [[ $row =~ ^joblib\ [0-9]+\ omp\ 1\ blas\ 1\ torch\ -1\ allowed\ $cpus$ ]] ||
    { cat "$WORK/err" >&2; fail "a loky worker does not run 1 BLAS thread on the worker's CPUs ($cpus): $row"; }
done
grep -q "asked for 2 threads (inherited variables), got 1" "$WORK/err" ||
  { cat "$WORK/err" >&2; fail "the pools report does not say the inherited counts were divided"; }

# The program's own count: kept.
LD_LIBRARY_PATH=$openblas run_mptrain run "${plan[@]}" --keep-program-threads -- "$python" "$program" joblib
expect_code 0
[[ $(rows joblib | grep -c " omp 2 blas 2 ") == 2 ]] || { cat "$WORK/out" >&2; fail "--keep-program-threads: the loky workers do not keep 2 threads"; }

# A program run alone (a driver script's subprocess) keeps the worker's T.
LD_LIBRARY_PATH=$openblas run_mptrain run "${plan[@]}" -- "$python" "$program" subprocess
expect_code 0
[[ $(rows subprocess) =~ \ omp\ 2\ blas\ 2\  ]] || { cat "$WORK/out" "$WORK/err" >&2; fail "a lone subprocess lost its threads"; }

# --children 2: a slice each; the resource tracker takes none.
LD_LIBRARY_PATH=$openblas run_mptrain run "${plan[@]}" --children 2 -- "$python" "$program" joblib
expect_code 0
mapfile -t slices < <(rows joblib | sed 's/.* allowed //')
[[ ${#slices[@]} == 2 && ${slices[0]} != "${slices[1]}" && ${slices[0]} != "$cpus" && ${slices[1]} != "$cpus" ]] ||
  { cat "$WORK/out" "$WORK/err" >&2; fail "--children 2: the loky workers do not hold a slice each"; }

# torch's DataLoader workers (forked): torch's own 1 thread, floating over the worker's CPUs.
if "$python" -c 'import torch' 2>/dev/null; then
  LD_LIBRARY_PATH=$openblas run_mptrain run "${plan[@]}" -- "$python" "$program" dataloader
  expect_code 0
  mapfile -t loaders < <(rows dataloader)
  [[ ${#loaders[@]} == 2 ]] || { cat "$WORK/out" "$WORK/err" >&2; fail "the DataLoader did not run 2 workers"; }
  for row in "${loaders[@]}"; do
    [[ $row =~ \ torch\ 1\ allowed\ $cpus$ ]] || fail "a DataLoader worker is not on the worker's CPUs ($cpus) with 1 thread: $row"
  done
else
  fail "$python with torch is needed (scripts/setup.sh --test installs python3-torch)"
fi
exit 0
