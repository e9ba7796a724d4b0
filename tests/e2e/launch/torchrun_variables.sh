# torchrun habits: --nproc-per-node is -n; every worker gets torchrun's
# GROUP_*, ROLE_* and TORCHELASTIC_* variables, the restart count of its own
# attempt, and the thread counts of every runtime mptrain knows.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
need_cpus 2

script='echo "$RANK $LOCAL_RANK $WORLD_SIZE $GROUP_RANK $GROUP_WORLD_SIZE $ROLE_NAME $ROLE_RANK $ROLE_WORLD_SIZE" \
  "$TORCHELASTIC_RESTART_COUNT $TORCHELASTIC_MAX_RESTARTS $BLIS_NUM_THREADS $VECLIB_MAXIMUM_THREADS $NUMEXPR_NUM_THREADS"
[ "$TORCHELASTIC_RESTART_COUNT" -ge 1 ] || [ "$RANK" != 1 ] || exit 3'
run_mptrain run --nproc-per-node 2 --max-restarts 2 -- sh -c "$script"
expect_code 0
expect_stderr 'restarting the group \(1 of 2\)'
# Attempt 0 fails on rank 1; attempt 1 succeeds: its lines say restart 1 of at most 2.
for rank in 0 1; do
  grep -qx "\[$rank\] $rank $rank 2 0 1 default $rank 2 1 2 1 1 1" "$WORK/out" ||
    { cat "$WORK/out" >&2; fail "rank $rank's torchrun variables are wrong in the second attempt"; }
done
grep -qx '\[1\] 1 1 2 0 1 default 1 2 0 2 1 1 1' "$WORK/out" || fail "attempt 0 did not say restart count 0"

# --nproc-per-node is the same option as -n, with the same checks.
run_mptrain run --nproc-per-node 3 --bind none --allow-oversubscribe --json -- true
expect_code 0
expect_json '.num_processes == 3'
run_mptrain plan --nproc-per-node 0
expect_usage_error '--num-processes: 0 is not from 1'
