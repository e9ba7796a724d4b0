# A real gloo DDP job started the way torchrun users start it, through the
# c10d rendezvous options, --standalone and the static master options, in
# both spellings (the '=' forms of the c10d ones planned with --dry-run):
# every rank joins, all_reduce and DDP steps agree, and each
# worker runs mptrain's floor(N/M) threads pinned, not torchrun's 1.
# ctest: timeout 300
# ctest: label long (5 s or more in a Release build, in the programs it runs and the windows it watches: Release stage only)
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
need_torch
need_cpus 2
check=$MPTRAIN_SOURCE_DIR/tests/e2e/launch/ddp_check.py

expect_ranks() {  # expect_ranks M: every rank of M finished the DDP job
  local rank
  for ((rank = 0; rank < $1; rank++)); do
    grep -q "^\[$rank\] rank $rank/$1: all_reduce sum .* ok, 5 DDP steps ok" "$WORK/out" ||
      { cat "$WORK/out" "$WORK/err" >&2; fail "rank $rank of $1 did not finish the DDP job"; }
  done
}

run_mptrain torchrun --nnodes 1 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint localhost:0 "$check"
expect_code 0
expect_ranks 2

# The underscore spellings with their values after '=' plan the same job (its launch is the one above).
run_mptrain torchrun --dry-run --nnodes=1:1 --nproc_per_node=2 --rdzv_backend=c10d --rdzv_endpoint=127.0.0.1:0 \
  --rdzv_id=job7 --max_restarts=0 --monitor_interval=1 --start_method=fork "$check"
expect_code 0
grep -q ' RANK=1 .* WORLD_SIZE=2 .* TORCHELASTIC_RUN_ID=job7 ' "$WORK/out" ||
  { cat "$WORK/out" >&2; fail "the underscore spellings do not plan 2 ranks"; }

run_mptrain torchrun --standalone --nproc_per_node 2 "$check"
expect_code 0
expect_ranks 2

# One worker: it gets all N threads (torchrun would leave the default), pinned to every usable CPU.
run_mptrain torchrun --standalone "$check"
expect_code 0
expect_ranks 1
n=$("$MPTRAIN" plan -n 1 --json | jq .threads_per_process)
grep -q "^\[0\] rank 0/1: .*$n threads" "$WORK/out" || { cat "$WORK/out" >&2; fail "one worker does not run $n threads"; }

# The same job as a module (-m) and through --no-python with the interpreter named.
PYTHONPATH=$(dirname "$check") run_mptrain torchrun --nproc-per-node 2 --standalone -m ddp_check
expect_code 0
expect_ranks 2
run_mptrain torchrun --nproc_per_node 2 --standalone --no_python /usr/bin/python3 "$check"
expect_code 0
expect_ranks 2
