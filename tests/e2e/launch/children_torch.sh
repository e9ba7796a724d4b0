# --children K with PyTorch's own multiprocessing (the seeds' Hogwild
# example's way): each torch worker gets its own slice of the worker's CPUs
# and floor(T/K) intra-op threads. Needs python3-torch (not in the setup:
# it is large); skips, saying so, without it.
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
exit 0
