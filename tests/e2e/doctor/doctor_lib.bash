# Helpers for the doctor's end-to-end tests; source after ../lib.sh.
# BURN: the test burner (tests/monitor/burn.cpp), built by CMake (CTest sets MPTRAIN_BURN).
BURN=${MPTRAIN_BURN:-$(dirname "$MPTRAIN")/tests/monitor/mptrain_burn}
[[ -x "$BURN" ]] || fail "the burner $BURN is not built: cmake --build BUILD --target mptrain_burn"
# CPU: the CPU the tests pin load to (the last usable one); needs 2 usable CPUs.
[[ $(nproc) -ge 2 ]] || skip "needs at least 2 usable CPUs, have $(nproc)"
CPU=$(taskset -c -p $$ | sed 's/.*: //; s/.*[,-]//')
# findings: the kinds of the last run's findings, one per line.
findings() { jq -r '.findings[].kind' "$WORK/out"; }
# expect_finding KIND: the last run reported a finding of KIND.
expect_finding() {
  findings | grep -x "$1" >/dev/null || { cat "$WORK/out" >&2; fail "no $1 finding"; }
}
# idle_or_load [OBJECT]: 0 when the last report (or its OBJECT, e.g. .monitor)
# has an idle_capacity finding; 1 when it has none because other load took
# over half of the CPUs the job left, or the job's threads queued (the
# finding's documented absence on a busy machine); fails the test otherwise.
idle_or_load() {
  local report=${1:-.}
  jq -e "$report | [.findings[].kind] | index(\"idle_capacity\") != null" "$WORK/out" >/dev/null && return 0
  jq -e "$report | (.machine_cpu_utilization - .cpu_utilization) * .usable_cpus > 0.5 * (.usable_cpus -
    .working_threads_avg) or .queued_threads_avg >= 0.1 * .working_threads_avg" "$WORK/out" >/dev/null && return 1
  cat "$WORK/out" >&2
  fail "no idle_capacity finding, and no other load or queueing to explain its absence"
}
# skip_on_outside_load: skips (saying so) when the last run's report names load from outside the job
# on its CPUs: a test that measures the job's own loss cannot tell it apart from that load's.
skip_on_outside_load() {
  [[ $(jq '[.findings[] | select(.kind == "outside_load")] | length' "$WORK/out") == 0 ]] ||
    skip "other processes loaded the job's CPUs during the run: $(jq -r '.findings[] | select(.kind == "outside_load") | .message' "$WORK/out")"
}
