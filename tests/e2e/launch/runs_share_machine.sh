# Runs started together share the machine: each plans on the CPUs the
# other live runs do not hold, says which runs hold what, and leaves no
# record behind; a run killed with SIGKILL frees its CPUs at once; a dry
# run shows the others and records nothing; a run started inside another's
# worker does not plan around the run it is part of.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
# A run left waiting on its fifo by a failed check must not outlive the script.
trap 'kill $(jobs -p) 2>/dev/null; wait; rm -rf "$WORK"' EXIT
need_cpus 2
held="$WORK/held"
mkfifo "$held"
# A first run on one CPU that stays until told (its worker waits on the fifo).
"$MPTRAIN" run -n 1 -t 1 -- sh -c "grep Cpus_allowed_list /proc/self/status; cat '$held' >/dev/null" \
  >"$WORK/first.out" 2>"$WORK/first.err" &
first=$!
until grep -q Cpus_allowed_list "$WORK/first.out" 2>/dev/null; do sleep 0.05; done
first_cpu=$(sed -n 's/^\[0\] Cpus_allowed_list:\s*//p' "$WORK/first.out")
run_mptrain run -n 1 -t 1 -- sh -c 'grep Cpus_allowed_list /proc/self/status'
expect_code 0
second_cpu=$(sed -n 's/^\[0\] Cpus_allowed_list:\s*//p' "$WORK/out")
[[ -n $first_cpu && -n $second_cpu && $first_cpu != "$second_cpu" ]] ||
  { cat "$WORK/out" "$WORK/err" >&2; fail "two runs at once were pinned to the same CPU ($first_cpu, $second_cpu)"; }
expect_stderr "other mptrain runs hold CPUs $first_cpu \(pid $first on $first_cpu: sh -c grep"
# A dry run shows them too, and records nothing.
run_mptrain run -n 1 -t 1 --dry-run -- true
expect_code 0
expect_stderr "other mptrain runs hold CPUs .*; planned on CPUs"
(($(ls "$MPTRAIN_RUNS_DIR" | wc -l) == 1)) || fail "records: $(ls "$MPTRAIN_RUNS_DIR")"
# plan and topo show the run and what it leaves; plan --ignore-others plans as if alone.
run_mptrain plan -n 1 -t 1 --json
expect_code 0
expect_json ".other_runs | length == 1 and .[0].pid == $first and .[0].cpus == \"$first_cpu\""
expect_json ".workers[0].cpus != \"$first_cpu\""
run_mptrain plan -n 1 -t 1 --ignore-others --json
expect_json ".workers[0].cpus == \"$first_cpu\""
run_mptrain topo --json
expect_json "(.other_runs | length == 1) and (.free_cpu_list | contains(\"$first_cpu\") | not)"
run_mptrain topo
grep -q "^Other mptrain runs: 1" "$WORK/out" && grep -q "^Free CPUs: " "$WORK/out" ||
  { cat "$WORK/out" >&2; fail "topo does not show the other run and the free CPUs"; }
# SIGKILL of the first run (its watchdog ends its worker): its CPUs are free at once.
kill -9 "$first"
wait "$first" 2>/dev/null
for _ in $(seq 100); do [[ -z $(pgrep -f "cat $held") ]] && break; sleep 0.05; done
run_mptrain run -n 2 -t 1 -- true
expect_code 0
! grep -q "other mptrain runs" "$WORK/err" || { cat "$WORK/err" >&2; fail "a killed run's CPUs stayed held"; }
[[ -z $(ls "$MPTRAIN_RUNS_DIR") ]] || fail "left behind: $(ls "$MPTRAIN_RUNS_DIR")"
# A run inside another's worker is part of it: no note about the outer run.
run_mptrain run -n 1 -- "$MPTRAIN" run -n 1 -- true
expect_code 0
! grep -q "other mptrain runs" "$WORK/err" || { cat "$WORK/err" >&2; fail "a nested run planned around its own outer run"; }
exit 0
