# The corpus's throughput reports (tests/corpus/lib.bash, for the loss
# oversubscription costs a job): job_throughput sums the "corpus-work UNITS
# SECONDS" lines the doctor relays (tagged "[0] ") and stress-ng's metrics
# line, and says "-" when no workload reported; a real workload (omp_spin,
# under the doctor, through procs.sh) reports one line per process.
source "$(dirname "$0")/../lib.sh"
source "$MPTRAIN_SOURCE_DIR/tests/corpus/lib.bash"

printf '%s\n' '[0] corpus-work 10 2' 'corpus-work 5 1' '[1] corpus-work 7 0' 'other output' \
  '[0] stress-ng: metrc: [99] stressor       bogo ops real time  usr time' \
  '[0] stress-ng: metrc: [99] cpu                2000      2.00      1.16      0.00      1000.00     1700.00' \
  >"$WORK/relayed"
[[ $(job_throughput "$WORK/relayed") == 1010 ]] ||
  fail "job_throughput gave '$(job_throughput "$WORK/relayed")', not 10/2 + 5/1 + 2000/2 = 1010 (a 0-second line skipped)"
printf 'no report\n' >"$WORK/silent"
[[ $(job_throughput "$WORK/silent") == - ]] || fail "job_throughput of a job that reported nothing is not '-'"

command -v cc >/dev/null || fail "cc is needed to build the corpus's omp_spin (scripts/setup.sh installs gcc)"
spin=$(compiled omp_spin) || fail "cannot build tests/corpus/workloads/omp_spin.c"
run_mptrain doctor --json --fail-on never --interval 0.1 -- "$WORKLOADS/procs.sh" 2 env OMP_NUM_THREADS=1 "$spin" 0.3
expect_code 0
[[ $(grep -c '^\[0\] corpus-work [0-9.e+]* [0-9.]*$' "$WORK/err") == 2 ]] ||
  { cat "$WORK/err" >&2; fail "two omp_spin processes did not each report their work"; }
rate=$(job_throughput "$WORK/err")
awk -v r="$rate" 'BEGIN { exit !(r > 0) }' || fail "the job's throughput is '$rate', not a positive number"
echo "PASS"
