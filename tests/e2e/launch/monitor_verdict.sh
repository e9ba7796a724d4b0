# The launcher watches its workers: two workers each running 2 busy threads
# pinned to one CPU are oversubscribed, said live on stderr and in the JSON
# summary; one busy thread per worker shows none of the job's own findings.
# ctest: lock quiet_cpus (it judges the scheduling of its own load)
# ctest: processors 2 (its load keeps two CPUs busy)
# ctest: timeout 120
# ctest: label long (5 s or more in a Release build, in the programs it runs and the windows it watches: Release stage only)
source "$(dirname "$0")/../lib.sh"
source "$MPTRAIN_SOURCE_DIR/tests/e2e/doctor/doctor_lib.bash"

# 2 workers x 1 CPU each, but every worker runs 2 busy threads for 3 s.
run_mptrain run -n 2 --json -- "$BURN" 2 3
expect_code 0
expect_json '.monitor.verdict == "oversubscribed"'
expect_json '.monitor.queued_threads_avg / .monitor.usable_cpus >= 0.25'
expect_json '[.monitor.findings[].kind] | index("thread_pool_too_large") != null'
expect_json '.monitor.processes | length >= 2'
expect_stderr 'mptrain: warning: monitor: oversubscribed'

# 2 workers x 1 busy thread each: what the plan asks for.
run_mptrain run -n 2 --json -- "$BURN" 1 3
expect_code 0
expect_json '.monitor.verdict != "oversubscribed"'
# Other load on the machine may add outside_load and queueing warnings; the
# job's own causes must be absent, and the live verdict never flagged it.
expect_json '[.monitor.findings[].kind | select(IN("demand_above_capacity", "thread_pool_too_large", "overlapping_affinity"))] | length == 0'
if grep -q 'monitor: oversubscribed' "$WORK/err"; then cat "$WORK/err" >&2; fail "the live monitor flagged a healthy run"; fi
