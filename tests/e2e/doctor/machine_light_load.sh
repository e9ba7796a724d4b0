# The whole machine under a light load (one process using ~20% of one CPU)
# is not oversubscribed, at the default interval and with an interval longer
# than the duration. Skips when others' load makes the machine busy already.
# ctest: lock quiet_cpus (it judges the scheduling of its own load)
# ctest: processors 2 (its load keeps two CPUs busy)
# ctest: timeout 60
# ctest: label long (5 s or more in a Release build, in the programs it runs and the windows it watches: Release stage only)
source "$(dirname "$0")/../lib.sh"
source "$MPTRAIN_SOURCE_DIR/tests/corpus/lib.bash"
reason=$(need_quiet_machine 15) || skip "$reason"
trap 'stop_duty; rm -rf "$WORK"' EXIT
start_duty 20 "$(last_cpu)" || skip "cannot build the duty-cycled burner"

for interval in default 5s; do
  args=(--duration 2)
  [[ $interval == default ]] || args+=(--interval "$interval")
  run_mptrain doctor --json "${args[@]}"
  expect_json '.verdict != "oversubscribed"'
  expect_code 0
done
