# --grace is bounded (a week): a larger value is refused naming the bound,
# not silently shortened; a long grace is honoured: a worker that takes a
# second to stop after SIGTERM is not killed.
# ctest: timeout 60
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"

for value in 1e10 604801 1e300 inf -1; do
  run_mptrain run -n 1 --grace "$value" -- true
  expect_usage_error "--grace"
  expect_stderr "$value is not (from 0 to 604800 \(a week\)|a finite number)"
done
run_mptrain run -n 1 --grace 604800 --dry-run -- true
expect_code 0

worker="trap 'sleep 1; echo done > $WORK/finished; exit 0' TERM; echo \$\$ > $WORK/started; while :; do sleep 0.1; done"
start_mptrain run -n 1 --grace 600000 -- bash -c "$worker"
wait_for 20 files_exist "$WORK/started" || fail "worker did not start"
signal_and_wait TERM
expect_code 0
[[ -s "$WORK/finished" ]] || fail "the worker was killed within its grace period"
