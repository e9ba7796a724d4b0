# estimated_throughput_loss, the job's and each process's, from real
# processes: N OpenMP processes × N threads on N CPUs (a team that meets at
# barriers every millisecond, its waiters spinning) lose most of their
# throughput, more than their queued share; the same programs with one
# thread each lose next to nothing; N × 2 independent burners on N CPUs
# keep the CPUs busy with work (the job loses little) while each process
# runs at half its speed. The text report has the estimate's line.
# ctest: lock quiet_cpus (it judges the scheduling of its own load)
# ctest: processors 2 (its load keeps two CPUs busy)
# ctest: label timing (it compares the loss it estimates with the loss it measures)
# ctest: timeout 120
# ctest: label long (5 s or more in a Release build, in the programs it runs and the windows it watches: Release stage only)
source "$(dirname "$0")/../lib.sh"
source "$MPTRAIN_SOURCE_DIR/tests/corpus/lib.bash"
source "$(dirname "$0")/doctor_lib.bash"
omp=$(compiled omp_spin) || skip "cannot build tests/corpus/workloads/omp_spin.c with cc -fopenmp (apt-get install gcc)"
# It measures the job's own loss, which other load on the CPUs would add to: it needs them quiet.
reason=$(need_quiet_machine 15) || skip "$reason"

# The team: N processes × N threads, its waiters spinning (OMP_WAIT_POLICY=active: GNU OpenMP's
# default spins a while and then sleeps, and a team whose waiters slept more often than they were
# preempted gave its CPUs to the other team, a case of its own, in half the runs here).
run_mptrain doctor --json --interval 0.25 -- "$WORKLOADS/procs.sh" "$N" env OMP_NUM_THREADS="$N" OMP_WAIT_POLICY=active "$omp" 3
skip_on_outside_load
expect_code 3
expect_json '.verdict == "oversubscribed"'
expect_json '.estimated_throughput_loss > 0.4 and .estimated_throughput_loss <= 1'
# One estimate (the one the verdict followed) and one range; the decomposition under the detail key.
expect_json '.estimated_throughput_loss == .throughput_loss_detail.decides'
expect_json '.throughput_loss.low <= .estimated_throughput_loss and .estimated_throughput_loss <= .throughput_loss.high'
expect_json '.throughput_loss | keys == ["high", "low"]'
# The team loses more than the share of its threads' wanted time they queued.
expect_json '.estimated_throughput_loss > .queued_threads_avg / .working_threads_avg'
expect_json '.throughput_loss_detail | .decides >= .job and .decides >= .processes'
expect_json '.throughput_loss_detail | .interval_low <= .decides and .decides <= .interval_high'
expect_json '.throughput_loss_detail.margin > 0.1'
expect_json '[.processes[] | select(.pool_threads >= 2)] | length >= 2'
expect_json '[.processes[] | select(.pool_threads >= 2) | .team] | all'
expect_json '[.processes[] | select(.pool_threads >= 2) | .estimated_throughput_loss] | all(. > 0.4)'
expect_json '[.findings[] | select(.kind == "queueing")][0].numbers.estimated_throughput_loss > 0.4'

# Fixed: one thread each.
run_mptrain doctor --json --interval 0.25 -- "$WORKLOADS/procs.sh" "$N" env OMP_NUM_THREADS=1 "$omp" 3
skip_on_outside_load
expect_code 0
expect_json '.measured'
expect_json '.estimated_throughput_loss < 0.1'
expect_json '.throughput_loss_detail.processes < 0.1'

# Independent threads, twice as many as CPUs, in one process that maps no
# barrier runtime: the CPUs stay busy with work, each thread runs half the
# time. Whether that costs the process depends on whether its threads wait
# for each other, which the accounting does not show: a range from next to
# nothing (apart) to most (together), a warning and never exit 3, with what
# would pin it.
run_mptrain doctor --json --interval 0.25 -- "$BURN" $((2 * N)) 3
skip_on_outside_load
expect_code 0
expect_json '.verdict == "warning"'
expect_json '.estimated_throughput_loss < 0.15'
expect_json '.throughput_loss_detail.processes_range[0] < 0.15 and .throughput_loss_detail.processes_range[1] > 0.35'
expect_json '.throughput_loss_detail.unpinned | test("fewer threads would narrow it")'
expect_json '[.processes[] | select(.comm == "mptrain_burn")][0] | .team == false and .estimated_throughput_loss_range[1] > 0.35'

# The text report says it: one estimate and one range.
run_mptrain doctor -- "$WORKLOADS/procs.sh" "$N" env OMP_NUM_THREADS="$N" "$omp" 2
expect_code 3
grep -Eq '^  throughput lost \(est\.\): [0-9]+%, range [0-9]+%–[0-9]+% \(oversubscribed needs the low end' "$WORK/out" ||
  { cat "$WORK/out"; fail "no estimate line in the text report"; }
grep -Eq ' LOSS ' "$WORK/out" || { cat "$WORK/out"; fail "no LOSS column in the processes table"; }
