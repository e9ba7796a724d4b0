# The run monitor reports idle capacity as the doctor does, without changing
# the exit code: one worker planned with every usable CPU whose program runs
# one busy thread by itself gets an idle_capacity finding in the report's
# monitor object and text; its verdict stays healthy. Other load on the CPUs
# it leaves rightly keeps the finding away: tried again, skipped if it never
# leaves them free.
# ctest: lock quiet_cpus (it judges the scheduling of its own load)
# ctest: processors 2 (its load keeps two CPUs busy)
# ctest: timeout 120
# ctest: label long (5 s or more in a Release build, in the programs it runs and the windows it watches: Release stage only)
source "$(dirname "$0")/../lib.sh"
source "$MPTRAIN_SOURCE_DIR/tests/e2e/doctor/doctor_lib.bash"
N=$(nproc)

found=no
for attempt in 1 2 3; do
  run_mptrain run -n 1 --json -- "$BURN" 1 3
  expect_code 0
  if idle_or_load .monitor; then
    found=yes
    break
  fi
  sleep 2
done
[[ $found == yes ]] || skip "other load took the CPUs the worker left in 3 attempts: the finding rightly stayed away"
expect_json '.monitor.verdict == "healthy"'
idle='[.monitor.findings[] | select(.kind == "idle_capacity")][0]'
expect_json "$idle.severity == \"info\""
expect_json "$idle.message | test(\"^1 process × 1 busy thread on $N usable CPUs: its program\")"
# mptrain set OMP_NUM_THREADS=$N, which the program ignores: not what limits it, so not named.
expect_json "$idle.fix | test(\"OMP_NUM_THREADS\") | not"
expect_json "$idle.fix | test(\"mptrain run -n $N -- .*mptrain_burn 1 3\")"
# The live verdict never changed for it.
if grep -q 'monitor: healthy: ' "$WORK/err"; then cat "$WORK/err" >&2; fail "advice shown as a verdict change"; fi

# In the text report too.
run_mptrain run -n 1 -- "$BURN" 1 3
expect_code 0
