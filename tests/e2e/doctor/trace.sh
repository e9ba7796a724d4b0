# --trace writes a Chrome trace (JSON Object Format) whose tracks agree with
# the report of the same run: each burner thread's on_cpu counter track,
# integrated over time, is that thread's cpu_seconds in --json --threads
# (within 10%); every usable CPU has a utilization track; every event has
# ph, ts, pid and tid, and ts are sorted.
# ctest: processors 2 (its burners keep two CPUs busy)
# ctest: timeout 60
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/doctor_lib.bash"

trace="$WORK/t.json"
run_mptrain doctor --trace "$trace" --json --threads --fail-on never --interval 0.2 -- "$BURN" 2 1.5
expect_code 0
[[ -s "$trace" ]] || fail "no trace written to $trace"
# on_trace FILTER: the jq FILTER is true on the trace.
on_trace() { jq -e "$@" "$trace" >/dev/null || fail "trace check failed: ${*: -1}"; }
on_trace '.displayTimeUnit == "ms" and (.traceEvents | type == "array")'
on_trace '[.traceEvents[] | has("ph") and has("ts") and has("pid") and has("tid")] | all'
on_trace '[.traceEvents[].ts] as $ts | $ts == ($ts | sort)'

# The burner's two spinning threads (its main thread, tid = pid, only waits).
json '.threads[] | select(.comm == "mptrain_burn" and .tid != .pid) | "\(.pid) \(.tid) \(.cpu_seconds)"' >"$WORK/burners"
[[ $(wc -l <"$WORK/burners") -eq 2 ]] || { cat "$WORK/out" >&2; fail "--threads does not list the 2 burner threads"; }
while read -r pid tid cpu; do
  on_trace --arg name "mptrain_burn $tid" --argjson pid "$pid" --argjson tid "$tid" \
    'any(.traceEvents[]; .ph == "M" and .name == "thread_name" and .pid == $pid and .tid == $tid and .args.name == $name)'
  # The area under the step function: each value holds until the track's next event.
  area=$(jq --argjson pid "$pid" --argjson tid "$tid" -r '
    [.traceEvents[] | select(.ph == "C" and .pid == $pid and .tid == $tid)] as $e
    | [range(0; ($e | length) - 1) as $k | $e[$k].args.on_cpu * ($e[$k + 1].ts - $e[$k].ts) / 1e6] | add // 0' "$trace")
  awk -v area="$area" -v cpu="$cpu" 'BEGIN { d = area - cpu; if (d < 0) d = -d; exit !(d <= 0.1 * cpu + 0.005) }' ||
    fail "thread $tid: its trace track holds $area CPU seconds, the report $cpu"
done <"$WORK/burners"

# usable_cpus LIST: the CPU numbers of a list such as "0-1,3", one per line.
usable_cpus() {
  local range
  for range in ${1//,/ }; do seq "${range%-*}" "${range#*-}"; done
}
for cpu in $(usable_cpus "$(json .usable_cpu_list)"); do
  on_trace --arg name "cpu $cpu" 'any(.traceEvents[]; .ph == "C" and .name == $name and (.args.utilization | type == "number"))'
done
on_trace 'any(.traceEvents[]; .ph == "M" and .name == "process_name" and .args.name == "CPUs")'
on_trace 'any(.traceEvents[]; .ph == "i" and .s == "g" and (.name | startswith("verdict: ")))'
