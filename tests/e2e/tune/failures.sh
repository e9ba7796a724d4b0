# A candidate whose program fails is marked failed with its exit code and
# last lines while the others go on; every candidate failing is exit 1; a
# metric that never matches is exit 1 with the program's last lines; a
# program that ends inside the warm-up says to use whole-run trials.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/fixtures.bash"
cat >"$WORK/picky" <<'SH'
#!/bin/sh
# Fails wherever a launcher set a thread count.
if [ -n "${OMP_NUM_THREADS:-}" ]; then echo "refusing to run with OMP_NUM_THREADS=$OMP_NUM_THREADS" >&2; exit 3; fi
sleep 0.2
SH
chmod +x "$WORK/picky"

env -u OMP_NUM_THREADS "$MPTRAIN" tune --json --only-tries --budget 20 -- "$WORK/picky" >"$WORK/out" 2>"$WORK/err"
code=$?
expect_code 0
expect_json '.baseline.failed == false and .baseline.trials >= 1'
expect_json '.candidates[1].failed == true and .candidates[1].exit_code == 3 and .candidates[1].trials == 1'
expect_json '.candidates[1].failure_lines | any(test("refusing to run"))'

run_mptrain tune --only-tries --budget 20 -- sh -c 'echo broken >&2; exit 4'
expect_code 1
grep -q 'failed with exit code 4' "$WORK/out" || { cat "$WORK/out" >&2; fail "the table does not show the failure"; }
# Why: the failed program's last lines, under the table.
grep -q '^(bare) failed with exit code 4; its last lines:$' "$WORK/out" && grep -q '^  broken$' "$WORK/out" ||
  { cat "$WORK/out" >&2; fail "the text report does not show why the candidates failed"; }
expect_stderr 'every candidate.s program failed'

run_mptrain tune --only-tries --warmup 0.5 --trial 1 --budget 20 --metric 'loss ([0-9.]+)' -- sh -c 'echo hello there; sleep 37'
expect_code 1
expect_stderr "matched nothing the program printed"
expect_stderr "hello there"
expect_stderr "a figure the program prints only at its end is never seen"
expect_nothing_left "sleep 37\$"

# mptrain's own refusal of a candidate is said as mptrain's, not blamed on the program.
run_mptrain tune --json --only-tries --try "--membind 7" --budget 10 -- true
expect_code 0
expect_json '[.candidates[] | select(.label == "--membind 7")][0] | .failed and (.mptrain_error | test("NUMA nodes"))'

# A pattern whose capture is no number: said after the first trial, with the pattern to use.
run_mptrain tune --only-tries --warmup 0.3 --trial 0.7 --budget 20 --metric '(it/s)' -- \
  sh -c 'while :; do echo "12.5it/s"; sleep 0.1; done'
expect_code 1
expect_stderr "what it captures \('it/s'\) is no number: put the number in its first capture group"

run_mptrain tune --only-tries --warmup 3 --trial 1 --budget 20 --progress tick -- sh -c 'echo tick'
expect_code 1
expect_stderr "inside the 3.0 s warm-up.*whole-run trials"

# mptrain's own failure from too few file descriptors (ulimit -n 10) is said as mptrain's with the
# limit to raise, trial by trial, and never blamed on the program; no candidate measured is exit 1.
code=0
bash -c 'ulimit -n 10 && exec "$0" "$@"' "$MPTRAIN" tune --only-tries --budget 5 -- true >"$WORK/out" 2>"$WORK/err" ||
  code=$?
expect_code 1
if grep -q '^mptrain: tune: trial ' "$WORK/err"; then
  ! grep '^mptrain: tune: trial ' "$WORK/err" | grep -v -q 'mptrain could not run it: .*too many open files' ||
    { cat "$WORK/err" >&2; fail "a trial that failed for want of file descriptors is not said as mptrain's"; }
  grep -q 'raise the limit (ulimit -n)' "$WORK/err" || { cat "$WORK/err" >&2; fail "no word of the limit to raise"; }
else
  expect_stderr '^mptrain: error: .*[Tt]oo many open files'
fi
