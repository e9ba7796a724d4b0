# Bad values of the thread, memory and allocator options are usage errors
# (exit 2) that say what is allowed, and nothing is started.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"

nodes=$(cat /sys/devices/system/node/online)
check() {  # check PATTERN OPTIONS...: `run OPTIONS -- touch FILE` is a usage error matching PATTERN.
  local pattern=$1
  shift
  run_mptrain run "$@" -- touch "$WORK/started"
  expect_usage_error "$pattern"
  [[ ! -e "$WORK/started" ]] || fail "a worker was started despite: $*"
}
check "--membind 4095: this machine's NUMA nodes are $nodes" --membind 4095
check "--interleave x: not a list of NUMA nodes such as 0-1, or all" --interleave x
check '--membind ,: not a list of NUMA nodes' --membind ,
check '--membind and --interleave cannot be given together' --membind 0 --interleave 0
check "--omp-bind: 'spread' is not one of close or none" --omp-bind spread
check "--allocator: 'mimalloc' is not one of jemalloc, tcmalloc or default" --allocator mimalloc

# Launcher options with the built-in training are refused too.
for option in --dry-run "--omp-bind none" "--allocator jemalloc" "--membind 0"; do
  # shellcheck disable=SC2086
  run_mptrain run $option --epochs 1
  expect_usage_error "applies only when launching a command"
done
