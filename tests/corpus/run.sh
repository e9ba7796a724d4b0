#!/usr/bin/env bash
# run.sh CASE VARIANT [--json-out FILE]: runs one corpus case once under
# `mptrain doctor --json --interval 0.25` and prints one line
#   CASE VARIANT expected=X got=Y exit=Z idle=E/G ok|WRONG throughput=T
# (idle: whether an idle_capacity finding was expected / got, yes or no;
# throughput: the job's work per second as its workloads reported it, "-"
# for a job that reports none: lib.bash, job_throughput).
# Exit 0 when right (the verdict is the expected one, a case not expected
# oversubscribed did not exit 3, the case's findings_VARIANT were found and
# no idle_capacity finding came where none was expected), 1 when wrong, 77
# when the case cannot run here (after printing why), 2 on a usage error. MPTRAIN names the binary
# (default build/mptrain); --json-out keeps the doctor's JSON report.
set -euo pipefail
source "$(dirname "$0")/lib.bash"
: "${MPTRAIN:=$CORPUS/../../build/mptrain}"
usage() { echo "usage: run.sh CASE VARIANT [--json-out FILE]" >&2; exit 2; }
[[ $# -eq 2 || ($# -eq 4 && $3 == --json-out) ]] || usage
name=$1 variant=$2 json_out=${4:-}
case_file="$CORPUS/cases/$name.bash"
[[ -f $case_file ]] || { echo "run.sh: no case $name ($case_file)" >&2; exit 2; }
[[ -x $MPTRAIN ]] || { echo "run.sh: no mptrain binary at $MPTRAIN (set MPTRAIN)" >&2; exit 2; }
source "$case_file"
[[ " ${variants[*]} " == *" $variant "* ]] || { echo "run.sh: $name has variants ${variants[*]}, not $variant" >&2; exit 2; }
expected_var="expected_$variant"
expected=${!expected_var}
findings_var="findings_$variant"
expected_findings=${!findings_var:-}
# also_VARIANT: other verdicts that are right too (an idle machine may run too little to judge).
also_var="also_$variant"
also_right=${!also_var:-}

# Set up, run the doctor, clean up whatever happens.
work=$(mktemp -d "${TMPDIR:-/tmp}/mptrain-corpus-run.XXXXXX")
finish() {
  rm -rf "$work"
  if declare -F cleanup >/dev/null; then cleanup || echo "run.sh: $name's cleanup failed" >&2; fi
}
trap finish EXIT
trap 'exit 130' INT TERM
# Skip with the reason when the machine lacks what the case needs (in this
# shell, not a subshell: check_requires may choose names that setup uses).
if ! check_requires >"$work/reason"; then
  echo "$name $variant SKIP: $(cat "$work/reason")"
  exit 77
fi
# A case's verdict is only defined on a machine where nothing else runs:
# under CTest (CORPUS_NEEDS_QUIET=1) a machine already busy with other work
# before the case starts is no place to judge it, and the case says so.
if [[ ${CORPUS_NEEDS_QUIET:-0} == 1 ]]; then
  busy=$(busy_cpus)
  if awk -v b="$busy" 'BEGIN { exit !(b > 0.3) }'; then
    echo "$name $variant SKIP: the machine is busy with other work ($busy CPUs before the case started); the corpus judges scheduling and needs it quiet"
    exit 77
  fi
fi
declare -F setup >/dev/null && setup
"scope_$variant"
code=0
"$MPTRAIN" doctor --json --interval 0.25 "${scope[@]}" >"$work/report.json" 2>"$work/stderr" || code=$?
[[ -z $json_out ]] || cp "$work/report.json" "$json_out"
got=$(jq -r '.verdict // "none"' "$work/report.json" 2>/dev/null || echo none)

# Judge: the expected verdict, and no exit 3 where oversubscription is not expected.
# Where outside load may be present (CORPUS_OUTSIDE_LOAD=1: the
# benchmark's outside-load mode, and CTest, whose machine may be shared) a
# job sized right may rightly be a warning that names that load; so may a
# job squeezed onto some CPUs while others' load fills the rest (the doctor
# exits 3 only when sure a CPU was left to move to).
verdict=ok
outside_warning() {
  [[ ${CORPUS_OUTSIDE_LOAD:-0} == 1 && $expected != warning && $got == warning ]] &&
    jq -e '[.findings[].kind] | index("outside_load") != null' "$work/report.json" >/dev/null
}
[[ $got == "$expected" || " $also_right " == *" $got "* ]] || outside_warning || verdict=WRONG
[[ $expected == oversubscribed || $code -ne 3 ]] || verdict=WRONG
[[ $code -eq 0 || $code -eq 3 ]] || verdict=WRONG  # anything else is a failure of the run
# Idle capacity: expected where the case names it, never elsewhere. Other
# load on the CPUs the job leaves rightly keeps it away (the CPUs are not
# idle then): where outside load may be present, its absence is right when
# the report shows others took over half of the idle CPUs or the job queued.
has_finding() { jq -e --arg k "$1" '[.findings[].kind] | index($k) != null' "$work/report.json" >/dev/null 2>&1; }
idle_expected=no idle_got=no
[[ " $expected_findings " != *" idle_capacity "* ]] || idle_expected=yes
! has_finding idle_capacity || idle_got=yes
load_took_idle_cpus() {
  [[ ${CORPUS_OUTSIDE_LOAD:-0} == 1 ]] && jq -e '(.machine_cpu_utilization - .cpu_utilization) * .usable_cpus
    > 0.5 * (.usable_cpus - .working_threads_avg) or .queued_threads_avg >= 0.1 * .working_threads_avg' \
    "$work/report.json" >/dev/null
}
if [[ $idle_expected == yes && $idle_got == no ]]; then load_took_idle_cpus || verdict=WRONG; fi
[[ $idle_expected == yes || $idle_got == no ]] || verdict=WRONG
echo "$name $variant expected=$expected got=$got exit=$code idle=$idle_expected/$idle_got $verdict" \
  "throughput=$(job_throughput "$work/stderr")"
if [[ $verdict == WRONG ]]; then
  # Show why: the findings, and the run's stderr when the doctor did not report.
  jq -r '.findings[]? | "  finding \(.kind): \(.message)"' "$work/report.json" 2>/dev/null || true
  # An idle_capacity finding that did not come: the figures it looks at.
  [[ $idle_expected != yes || $idle_got != no ]] || jq -r '"  no idle_capacity: the job wanted \(.working_threads_avg) of \(.usable_cpus) CPUs, others used \((.machine_cpu_utilization - .cpu_utilization) * .usable_cpus | . * 100 | round / 100), \(.queued_threads_avg) of its threads queued"' "$work/report.json" 2>/dev/null || true
  [[ $got != none ]] || sed 's/^/  stderr: /' "$work/stderr" | tail -20
  exit 1
fi
