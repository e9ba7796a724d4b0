# A short training run prints one JSON report with the contract's keys.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/fixtures.bash"
require_real_data

run_mptrain run -n 2 -t 1 --model logreg --train-limit 640 --json
expect_code 0
expect_json '.samples == 1280 and .num_processes == 2 and .threads_per_process == 1'
expect_json '(.train_seconds > 0) and (.samples_per_second > 0)'
expect_json '.flops_per_sample == 31360 and (.gflops - .samples_per_second * 31360e-9 | fabs) < 1e-6'
# The logreg's kernels skip nothing: they perform every FLOP the count has.
expect_json '.executed_flops_per_sample == 31360 and (.executed_gflops - .gflops | fabs) < 1e-6'
expect_json '(.test_accuracy >= 0) and (.test_accuracy <= 1) and (.test_loss > 0)'
expect_json '.workers | length == 2 and all(.samples == 640 and (.cpus | type == "string"))'
expect_json '.monitor.verdict | IN("healthy", "inconclusive", "warning", "oversubscribed")'
expect_json '.monitor.usable_cpus >= 1 and (.monitor.intervals | type) == "number"'
expect_json '.kernels | IN("avx512", "avx2", "sse2", "generic", "native")'

# The cnn's kernels skip conv2's dropped channels and its winners without a
# gradient: they perform more than the rest of the count (459,000 per
# sample) and less than all of it (1,419,000).
run_mptrain run -n 1 -t 1 --model cnn --train-limit 320 --json
expect_code 0
expect_json '.flops_per_sample == 1419000'
expect_json '.executed_flops_per_sample > 459000 and .executed_flops_per_sample < 1419000'
expect_json '(.executed_gflops - .samples_per_second * .executed_flops_per_sample * 1e-9 | fabs) < 1e-6'

run_mptrain run -n 1 -t 1 --model mlp --train-limit 320
expect_code 0
grep -q 'test accuracy' "$WORK/out" || fail "no test accuracy in the text report"
grep -q 'samples/s' "$WORK/out" || fail "no samples/s in the text report"
grep -Eq '^  kernels +[a-z0-9]+$' "$WORK/out" || fail "no kernels in the text report"
