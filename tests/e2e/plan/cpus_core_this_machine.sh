# On this machine, --cpus core:0 is the PUs hwloc-calc gives for core:0
# (counted over the whole machine, as --disallowed counts), those usable.
source "$(dirname "$0")/../lib.sh"
command -v hwloc-calc >/dev/null || skip "hwloc-calc is not installed (Debian package hwloc)"

core0=$(hwloc-calc --disallowed --physical-output --intersect pu core:0) || fail "hwloc-calc failed"
run_mptrain topo --json
expect_code 0
usable=$(json .usable_cpu_list)
run_mptrain plan --cpus core:0 --json
if jq -e -n --arg a "$core0" --arg b "$usable" "$cpus"' ($a | cpus) - ($b | cpus) | length == ($a | cpus | length)' >/dev/null; then
  # none of core 0's PUs is usable here
  expect_usage_error "--cpus core:0 \(CPUs .*\) contains no usable CPU"
  exit 0
fi
expect_code 0
expect_json ".topology == \"this machine\" and .num_processes == 1"
jq -e --arg core0 "$core0" --arg usable "$usable" "$cpus"'
  (.usable_cpu_list | cpus) == (($core0 | cpus) - (($core0 | cpus) - ($usable | cpus)))' "$WORK/out" >/dev/null ||
  { cat "$WORK/out" >&2; fail "--cpus core:0 is not core 0's usable PUs ($core0 on this machine, usable $usable)"; }
