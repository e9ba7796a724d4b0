# Bad options are usage errors: exit 2 and "mptrain: error:" with what to do.
source "$(dirname "$0")/../lib.sh"
synthetic=(--topology-synthetic "package:2 core:8 pu:2")

check() {  # check PATTERN ARGS...: exit 2, stderr matching PATTERN
  local pattern=$1
  shift
  run_mptrain plan "$@"
  expect_usage_error "$pattern"
}

check 'bad synthetic topology' --topology-synthetic "sockets:two"
check 'give only one of them' --topology "$MPTRAIN_TEST_DATA/affinity/two-sockets.xml" "${synthetic[@]}"
check '--cpus: .*descending' --cpus 3-1 "${synthetic[@]}"
check '--cpus: bad CPU number' --cpus zero "${synthetic[@]}"
check '--cpus 100-101 contains no usable CPU' --cpus 100-101 "${synthetic[@]}"
check '--reserve 8 leaves no compute thread' -n 4 --reserve 8 "${synthetic[@]}"
check 'bind' --bind socket "${synthetic[@]}"
check '40 workers on 32 usable CPUs' -n 40 "${synthetic[@]}"
check 'num-processes' -n 0 "${synthetic[@]}"
