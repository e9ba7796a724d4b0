# The built-in training watches its own workers: 2 workers x 2 threads on 2
# CPUs (--allow-oversubscribe) is judged oversubscribed, while the planned
# 2 workers x 1 thread shows none of the job's own findings.
# ctest: lock quiet_cpus (it judges the scheduling of its own load)
# ctest: processors 2 (its load keeps two CPUs busy)
# ctest: timeout 300
# ctest: label long (5 s or more in a Release build, in the programs it runs and the windows it watches: Release stage only)
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/fixtures.bash"
[[ $(nproc) -ge 2 ]] || skip "needs 2 usable CPUs, have $(nproc)"

make_small_data 3200 16
# Size the runs from this build's speed so each lasts about 3 s (several
# monitor intervals) in a Release or a sanitizer build alike.
run_mptrain run -n 1 -t 1 --data "$WORK/data" --epochs 3 --json
expect_code 0
rate=$(json '.samples_per_second | floor')
epochs=$(( rate * 3 / 3200 ))
(( epochs < 2 )) && epochs=2
(( epochs > 400 )) && epochs=400

run_mptrain run -n 2 -t 2 --allow-oversubscribe --data "$WORK/data" --epochs "$epochs" --json
expect_code 0
expect_json '.monitor.verdict == "oversubscribed"'
expect_json '.monitor.intervals >= 2'
expect_json '.monitor.runnable_threads_avg > .monitor.usable_cpus'
expect_json '[.monitor.findings[].kind] | index("demand_above_capacity") != null'
expect_stderr 'monitor (warning|oversubscribed)'

run_mptrain run -n 2 --data "$WORK/data" --epochs "$epochs" --json
expect_code 0
expect_json '.monitor.verdict != "oversubscribed"'
expect_json '.monitor.intervals >= 2'
# Other load on the machine may add outside_load and queueing warnings; the
# job's own causes must be absent.
expect_json '[.monitor.findings[].kind | select(IN("demand_above_capacity", "thread_pool_too_large", "overlapping_affinity"))] | length == 0'
# The live verdict (the last 2 s, judged by the same model) never flagged it either.
if grep -q 'monitor: oversubscribed' "$WORK/err"; then cat "$WORK/err" >&2; fail "the live monitor flagged a healthy run"; fi

# The text report ends with the monitor's verdict.
run_mptrain run -n 2 --data "$WORK/data" --epochs 2
expect_code 0
grep -Eq '^monitor (verdict: (healthy|inconclusive|warning)|no verdict)' "$WORK/out" || { cat "$WORK/out"; fail "no monitor line"; }
