# --max-restarts 2 restarts a failing group twice (MPTRAIN_RESTART_COUNT tells
# the attempt), then fails with the worker's code.
# ctest: timeout 60
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
need_cpus 2

run_mptrain run -n 2 --max-restarts 2 --grace 2 --json -- \
  sh -c "[ \$RANK = 1 ] && exec sleep 60; echo \$MPTRAIN_RESTART_COUNT >> $WORK/attempts; exit 3"
expect_code 3
[[ $(tr '\n' ' ' <"$WORK/attempts") == "0 1 2 " ]] || fail "rank 0 ran attempts: $(cat "$WORK/attempts")"
expect_json '.restarts == 2 and .exit_code == 3'
[[ $(grep -c 'restarting the group' "$WORK/err") == 2 ]] || fail "expected two restart notices"

# A group that succeeds on its second attempt exits 0.
run_mptrain run -n 2 --max-restarts 2 --json -- sh -c '[ "$MPTRAIN_RESTART_COUNT" = 1 ]'
expect_code 0
expect_json '.restarts == 1 and .exit_code == 0'
