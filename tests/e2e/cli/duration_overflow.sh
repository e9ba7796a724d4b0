# Every duration option refuses a value too large for its clock with exit 2
# and the bound, instead of wrapping around to a short one (--grace 1e10
# once became 0.5 s): --grace, --sync-every, and doctor's --duration,
# --interval and --every.
source "$(dirname "$0")/../lib.sh"

check() {
  local pattern=$1
  shift
  run_mptrain "$@"
  expect_usage_error "$pattern"
}
check '--grace.*1e10 is not from 0 to 604800 \(a week\)' run -n 1 --grace 1e10 -- true
check '--grace.*9223372036854775807 is not from 0 to 604800' run -n 1 --grace 9223372036854775807 -- true
check '--sync-every.*1e10 is not from 0.01 to 3600' run -n 1 --sync-every 1e10 --epochs 0
check '--duration.*1e10 is not above 0 and at most 86400' doctor --duration 1e10
check '--interval.*1e10 is not from' doctor --interval 1e10
check '--interval.*1e10ms is not from' doctor --interval 1e10ms
check '--every.*1e10 is not from' doctor --every 1e10
