# An empty --cpus, --topology or --topology-synthetic is refused (it used to
# read as "not given" and plan for the whole machine), and so are counts that
# are not whole numbers, with words that say so.
source "$(dirname "$0")/../lib.sh"
synthetic=(--topology-synthetic "package:2 core:8 pu:2")

check() {  # check PATTERN ARGS...: exit 2, stderr matching PATTERN, no plan on stdout
  local pattern=$1
  shift
  run_mptrain plan "$@"
  expect_usage_error "$pattern"
  [[ ! -s "$WORK/out" ]] || fail "plan $* printed a plan"
}

check '--cpus.*the value is empty' --cpus '' "${synthetic[@]}"
check '--cpus' --json --cpus=
check '--topology-synthetic.*the value is empty' --topology-synthetic ''
check '--topology.*the value is empty' --topology ''
check '-n.*1.5 is not a whole number' -n 1.5 "${synthetic[@]}"
check '-n.*abc is not a whole number' -n abc "${synthetic[@]}"
check '-n.*2.0 is not written as a whole number; write 2' -n 2.0 "${synthetic[@]}"
check '-n.*99999999999999999999 is too large: the most accepted is 1048576' -n 99999999999999999999 "${synthetic[@]}"
check '-t.*0.5 is not a whole number' -t 0.5 "${synthetic[@]}"
check '--reserve.*0.5 is not a whole number' --reserve 0.5 "${synthetic[@]}"
check '--reserve.*-1 is not at least 0' --reserve=-1 "${synthetic[@]}"

run_mptrain topo --topology-synthetic ''
expect_code 2
expect_stderr '^mptrain: error: .*--topology-synthetic.*empty'
