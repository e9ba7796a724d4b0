# Options of the other mode are refused (exit 2), not silently ignored:
# training options with a command, launcher options without one.
source "$(dirname "$0")/../lib.sh"

run_mptrain run -n 1 --epochs 3 --save-model "$WORK/model.ckpt" -- true
expect_code 2
expect_stderr '^mptrain: error: --(epochs|save-model) is a training option'
[[ ! -e "$WORK/model.ckpt" ]] || fail "a checkpoint was written"

run_mptrain run -n 1 --log-dir "$WORK/logs" --train-limit 64 --model logreg
expect_code 2
expect_stderr '^mptrain: error: --log-dir applies only when launching a command'
[[ ! -e "$WORK/logs" ]] || fail "a log directory was made"

# A run that ends at once says that nothing was measured.
run_mptrain run -n 1 --json -- true
expect_code 0
expect_json '.monitor.measured == false and .monitor.intervals == 0'
