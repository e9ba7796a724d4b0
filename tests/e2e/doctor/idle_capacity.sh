# A one-thread CPU-bound program on all usable CPUs leaves CPUs idle: the
# doctor says so in an idle_capacity finding (severity info: the verdict and
# the exit code stay as they are) naming OMP_NUM_THREADS=1 and the plan, and
# exits 3 only with --fail-on idle; a job that uses every CPU, and one that
# sleeps, never get it. Other load on the CPUs the job leaves rightly keeps
# the finding away (they are not idle then): the script tries again, and
# skips when the machine never left them free.
# ctest: lock quiet_cpus (it judges the scheduling of its own load)
# ctest: processors 2 (its load keeps two CPUs busy)
# ctest: timeout 120
# ctest: label long (5 s or more in a Release build, in the programs it runs and the windows it watches: Release stage only)
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/doctor_lib.bash"
N=$(nproc)

found=no
for attempt in 1 2 3; do
  run_mptrain doctor --fail-on idle --json -- env OMP_NUM_THREADS=1 "$BURN" 1 3
  if idle_or_load; then
    found=yes
    break
  fi
  expect_code 0  # one thread is never oversubscribed, whatever else runs
  sleep 2
done
[[ $found == yes ]] || skip "other load took the CPUs the job left in 3 attempts: the finding rightly stayed away"
expect_code 3
expect_json '.verdict == "healthy"'
expect_json '[.findings[] | select(.kind == "idle_capacity")] | length == 1'
idle='[.findings[] | select(.kind == "idle_capacity")][0]'
expect_json "$idle.severity == \"info\""
expect_json "$idle.message | test(\"^1 process × 1 busy thread on $N usable CPUs: OMP_NUM_THREADS=1 in its environment\")"
expect_json "$idle.message | test(\"the plan for $N usable CPUs is 1 process × $N threads\")"
expect_json "$idle.fix | test(\"OMP_NUM_THREADS=$N .*mptrain_burn 1 3\")"
expect_json "$idle.fix | test(\"mptrain run -n $N -- \")"
expect_json "$idle.numbers.idle_cpus >= 0.9"

# Without --fail-on idle the finding changes nothing: exit 0.
run_mptrain doctor --json -- env OMP_NUM_THREADS=1 "$BURN" 1 3
expect_code 0
idle_or_load || true

# A job with a busy thread per CPU uses them all: no finding, whatever the load.
run_mptrain doctor --fail-on idle --json -- "$BURN" "$N" 3
expect_json '[.findings[].kind] | index("idle_capacity") == null'
[[ $code == 0 ]] || expect_json '.verdict == "oversubscribed"'  # other load may queue it: exit 3 for that alone

# Threads that sleep want no CPUs: too little evidence, no finding, exit 0.
run_mptrain doctor --fail-on idle --json -- "$BURN" 1 2 idle
expect_code 0
expect_json '[.findings[].kind] | index("idle_capacity") == null'

# The whole machine is no job: never an idle_capacity finding.
run_mptrain doctor --fail-on idle --json --duration 1
expect_json '[.findings[].kind] | index("idle_capacity") == null'
