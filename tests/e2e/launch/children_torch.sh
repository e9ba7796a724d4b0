# --children K with PyTorch's own multiprocessing (the seeds' Hogwild
# example's way): each torch worker gets its own slice of the worker's CPUs
# and floor(T/K) intra-op threads; without --children, spawned workers share
# the worker's CPUs (none held on the first). Needs python3-torch (not in the setup:
# it is large); skips, saying so, without it.
# ctest: label long (5 s or more in a Release build, in the programs it runs and the windows it watches: Release stage only)
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
need_cpus 2
python=/usr/bin/python3
"$python" -c 'import torch' 2>/dev/null || skip "no PyTorch for $python (apt-get install python3-torch)"
program="$PROGRAMS/torch_children.py"

# 4 threads for the worker, 2 per child, on purpose beyond the CPUs: torch says floor(T/K), not T.
run_mptrain run -n 1 -t 4 --allow-oversubscribe --children 2 -- "$python" "$program" 2
expect_code 0
[[ $(grep -c "^\[0\] child [0-9]* torch 2 allowed " "$WORK/out") == 2 ]] ||
  { cat "$WORK/out" "$WORK/err" >&2; fail "the torch workers do not run 2 threads each"; }

# T = N: each torch worker on a slice of its own.
run_mptrain run -n 1 --children 2 -- "$python" "$program" 2
expect_code 0
mapfile -t slices < <(sed -n 's/^\[0\] child [0-9]* torch [0-9]* allowed //p' "$WORK/out")
[[ ${#slices[@]} == 2 ]] || { cat "$WORK/out" "$WORK/err" >&2; fail "two torch workers did not report"; }
[[ ${slices[0]} != "${slices[1]}" ]] || fail "both torch workers run on CPUs ${slices[0]}"
cpus=$("$MPTRAIN" plan -n 1 --json | jq -r '.workers[0].cpus')
for slice in "${slices[@]}"; do
  [[ $slice != "$cpus" ]] || fail "a torch worker floats over all of rank 0's CPUs ($cpus)"
done

# Spawned workers (the seeds' program) under a plain run: the parent's runtime bound its main thread
# to rank 0's first CPU; the spawned workers are not both held on that one CPU after their own runtime
# loaded. Each floats over rank 0's CPUs, or has one of them to itself (the monitor gives a busy
# floating thread a CPU of its own).
run_mptrain run -n 1 -- "$python" "$program" 2 spawn
expect_code 0
mapfile -t spawned < <(sed -n 's/^\[0\] child [0-9]* torch [0-9]* allowed //p' "$WORK/out")
[[ ${#spawned[@]} == 2 ]] || { cat "$WORK/out" "$WORK/err" >&2; fail "two spawned torch workers did not report"; }
for allowed in "${spawned[@]}"; do
  [[ $allowed == "$cpus" || $allowed =~ ^[0-9]+$ ]] ||
    { cat "$WORK/out" >&2; fail "a spawned torch worker runs on CPUs $allowed, neither rank 0's $cpus nor one of them"; }
done
[[ ${spawned[0]} == "$cpus" || ${spawned[0]} != "${spawned[1]}" ]] ||
  { cat "$WORK/out" >&2; fail "both spawned torch workers run on CPU ${spawned[0]} alone"; }
exit 0
