# `run --fail-on` and `torchrun --fail-on`, as the doctor's: a CI job that
# launches its training through mptrain fails (exit 3, after the report) on
# the verdict it names; the default, never, changes nothing; --ignore KIND
# leaves a finding kind out of the decision; a bad value is a usage error.
# ctest: lock quiet_cpus (it judges the scheduling of its own load)
# ctest: processors 2 (its load keeps two CPUs busy)
# ctest: label long (5 s or more in a Release build, in the programs it runs and the windows it watches: Release stage only)
source "$(dirname "$0")/../lib.sh"
need() { "$MPTRAIN" plan -n "$1" >/dev/null 2>&1 || skip "fewer than $1 usable CPUs"; }
need 1
usable=$("$MPTRAIN" plan --json | jq -r '.usable_cpus')
# Twice as many busy loops as usable CPUs, for 2 s: oversubscribed.
spin="for i in \$(seq $((2 * usable))); do (end=\$((SECONDS + 2)); while [ \$SECONDS -lt \$end ]; do :; done) & done; wait"

run_mptrain run -n 1 --json -- bash -c "$spin"
expect_code 0
expect_json '.monitor.verdict == "oversubscribed"'
run_mptrain run -n 1 --fail-on oversubscribed --json -- bash -c "$spin"
expect_code 3
expect_json '.monitor.verdict == "oversubscribed"'
expect_stderr "^mptrain: error: the monitor's verdict reaches --fail-on oversubscribed \(it is oversubscribed\)"
# Left out, the findings that made the verdict no longer fail the run.
kinds=$(jq -r '[.monitor.findings[] | select(.severity != "info") | "--ignore " + .kind] | join(" ")' "$WORK/out")
# shellcheck disable=SC2086
run_mptrain run -n 1 --fail-on warning $kinds --json -- bash -c "$spin"
[[ $code == 0 || $(jq -r '[.monitor.findings[] | select(.severity != "info")] | length' "$WORK/out") -gt 0 ]] ||
  { cat "$WORK/err" >&2; fail "--ignore did not leave the findings out"; }
run_mptrain torchrun --nproc-per-node 1 --fail-on oversubscribed --no-python bash -c "$spin"
expect_code 3

# A quiet job passes the gate.
run_mptrain run -n 1 --fail-on warning -- sleep 0.3
expect_code 0

run_mptrain run -n 1 --fail-on sometimes -- true
expect_usage_error "--fail-on"
run_mptrain run -n 1 --ignore nothing_like_it -- true
expect_usage_error "unknown finding kind 'nothing_like_it'; use .*outside_load"
run_mptrain doctor --ignore outside_load --duration 0.2 --json
[[ $code == 0 || $code == 3 ]] || fail "doctor --ignore outside_load exited $code"
exit 0
