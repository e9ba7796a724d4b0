# The whole machine, sampled for a short duration: every contract key present.
# ctest: timeout 60
source "$(dirname "$0")/../lib.sh"

run_mptrain doctor --duration 1 --interval 250ms --fail-on never --json
expect_code 0
for key in verdict usable_cpus runnable_threads_avg run_delay_ratio nonvoluntary_switches_per_second \
  cpu_utilization findings processes; do
  expect_json "has(\"$key\")"
done
expect_json '.verdict | IN("healthy", "inconclusive", "warning", "oversubscribed")'
expect_json '.intervals >= 3'
expect_json '.processes | all(has("pid") and has("comm") and has("threads") and has("run_delay_ratio"))'
expect_json '.findings | all(has("kind") and has("message"))'

run_mptrain doctor --duration 0.5 --fail-on never
expect_code 0
grep -q '^verdict: ' "$WORK/out" || fail "no verdict line in the text report"
grep -q 'CPU pressure' "$WORK/out" || fail "no CPU pressure line"
