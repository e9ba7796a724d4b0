# Less output where it is wanted: --quiet prints the verdict line and each
# fix once (doctor, run); the full report prints a fix another finding's
# fix already says only once ("as above"); the model's threshold options
# are out of --help and listed by --help-thresholds.
# ctest: lock quiet_cpus (it judges the scheduling of its own load)
# ctest: processors 2 (its load keeps two CPUs busy)
# ctest: label long (5 s or more in a Release build, in the programs it runs and the windows it watches: Release stage only)
source "$(dirname "$0")/../lib.sh"
usable=$("$MPTRAIN" plan --json | jq -r '.usable_cpus')
spin="for i in \$(seq $((2 * usable))); do (end=\$((SECONDS + 2)); while [ \$SECONDS -lt \$end ]; do :; done) & done; wait"

run_mptrain doctor --help
expect_code 0
! grep -q -- '--warn-throughput-loss\|--min-cpu-seconds' "$WORK/out" || fail "doctor --help still lists the thresholds"
grep -q -- '--help-thresholds' "$WORK/out" || fail "doctor --help does not point at --help-thresholds"
run_mptrain doctor --help-thresholds
expect_code 0
[[ $(grep -c '^  --' "$WORK/out") -ge 15 ]] || { cat "$WORK/out" >&2; fail "--help-thresholds lists too few"; }
grep -Eq '^  --warn-throughput-loss +0.1 ' "$WORK/out" || { cat "$WORK/out" >&2; fail "no default for warn-throughput-loss"; }

run_mptrain doctor --quiet -- bash -c "$spin"
[[ $code == 0 || $code == 3 ]] || fail "doctor --quiet exited $code"
head -1 "$WORK/out" | grep -Eq '^verdict: (healthy|inconclusive|warning|oversubscribed)' || { cat "$WORK/out" >&2; fail "no verdict line"; }
! grep -vE '^(verdict: |  fix: )' "$WORK/out" | grep . >/dev/null || { cat "$WORK/out" >&2; fail "--quiet printed more than the verdict and fixes"; }
# Each fix once: no fix line is a part of another.
mapfile -t fixes < <(sed -n 's/^  fix: //p' "$WORK/out")
for ((i = 0; i < ${#fixes[@]}; i++)); do
  for ((j = 0; j < ${#fixes[@]}; j++)); do
    [[ $i == "$j" ]] && continue
    [[ ${fixes[j]} != *"${fixes[i]}"* ]] || fail "a fix is printed twice: ${fixes[i]}"
  done
done

run_mptrain run -n 1 --quiet -- bash -c "$spin"
expect_code 0
grep -Eq '^monitor verdict: ' "$WORK/err" || { cat "$WORK/err" >&2; fail "run --quiet printed no verdict"; }
! grep -q 'usable CPUs:' "$WORK/err" || { cat "$WORK/err" >&2; fail "run --quiet printed the whole monitor block"; }

# The full report: a fix repeated by a later finding reads "as above".
run_mptrain doctor -- bash -c "$spin"
# Twice as many busy loops as CPUs is no healthy job, and such a report points at tune to measure it
# (not under --quiet, above: verdict and fixes only).
! grep -q '^verdict: healthy' "$WORK/out" || { cat "$WORK/out" >&2; fail "2N busy loops on N CPUs judged healthy"; }
grep -q "^to measure which launch is fastest for it: mptrain tune -- bash -c " "$WORK/out" ||
  { cat "$WORK/out" >&2; fail "the report does not point at mptrain tune -- CMD"; }
mapfile -t fixes < <(sed -n 's/^      fix: //p' "$WORK/out" | grep -v '^as above$')
for ((i = 0; i < ${#fixes[@]}; i++)); do
  for ((j = 0; j < i; j++)); do
    [[ ${fixes[j]} != *"${fixes[i]}"* ]] || fail "the report repeats a fix: ${fixes[i]}"
  done
done
exit 0
