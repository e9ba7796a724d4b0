# Runs started together by a shell loop see each other in the start window
# and divide the free CPUs: two runs each get their own CPUs and threads
# for them (not every CPU each); more runs than CPUs each get one CPU, as
# evenly as they go, with their OpenMP threads waiting passively; nothing
# is left behind.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
need_cpus 2
# A window wide enough for a loaded machine to start four mptrain processes in.
export MPTRAIN_START_WINDOW=1
n=$("$MPTRAIN" topo --json | jq -r .usable_cpus)
# start_together K: K plain runs (-n 1, threads as the plan decides) from one loop; each worker prints
# its CPUs, its OMP_NUM_THREADS and its OMP_WAIT_POLICY into $WORK/run-I.out.
start_together() {
  local i pids=()
  rm -f "$WORK"/run-*.out "$WORK"/run-*.err
  for ((i = 0; i < $1; i++)); do
    "$MPTRAIN" run -- sh -c 'echo "cpus $(sed -n "s/^Cpus_allowed_list:\s*//p" /proc/self/status)";
                            echo "threads $OMP_NUM_THREADS"; echo "wait ${OMP_WAIT_POLICY:-active}"' \
      >"$WORK/run-$i.out" 2>"$WORK/run-$i.err" &
    pids+=($!)
  done
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || { cat "$WORK/run-$i.err" >&2; fail "run $i of $1 failed"; }
  done
}
# field I KEY: what run I's worker printed after KEY.
field() { sed -n "s/^\[0\] $2 //p" "$WORK/run-$1.out"; }
# expand LIST: the CPUs of the kernel list LIST, one per line.
expand() { tr ',' '\n' <<<"$1" | awk -F- '{ for (c = $1; c <= ($2 == "" ? $1 : $2); c++) print c }'; }

start_together 2
both=$( (expand "$(field 0 cpus)"; expand "$(field 1 cpus)") | sort -n)
[[ -z $(uniq -d <<<"$both") ]] || { cat "$WORK"/run-*.out >&2; fail "two runs started together share CPUs"; }
(($(wc -l <<<"$both") == n)) || { cat "$WORK"/run-*.out >&2; fail "two runs did not divide the $n CPUs"; }
(($(field 0 threads) + $(field 1 threads) == n && $(field 0 threads) >= 1 && $(field 1 threads) >= 1)) ||
  { cat "$WORK"/run-*.out >&2; fail "two runs do not run a thread per CPU of their own"; }
for i in 0 1; do
  grep -q "runs started together share the free CPUs" "$WORK/run-$i.err" || grep -q "other mptrain runs hold" "$WORK/run-$i.err" ||
    { cat "$WORK/run-$i.err" >&2; fail "run $i does not say it planned beside the other"; }
done

# More runs than CPUs (on two CPUs: four): one CPU each, no CPU with more than its share of runs, passive waits.
k=$((2 * n))
((k <= 8)) || k=8
start_together "$k"
for ((i = 0; i < k; i++)); do
  [[ $(field $i threads) == 1 && $(expand "$(field $i cpus)" | wc -l) == 1 ]] ||
    { cat "$WORK/run-$i.out" "$WORK/run-$i.err" >&2; fail "run $i of $k is not one thread on one CPU"; }
  [[ $(field $i wait) == passive ]] || { cat "$WORK/run-$i.out" >&2; fail "run $i of $k, sharing a CPU, waits actively"; }
done
most=$(for ((i = 0; i < k; i++)); do field $i cpus; done | sort | uniq -c | sort -rn | awk 'NR == 1 { print $1 }')
((most <= (k + n - 1) / n)) || { cat "$WORK"/run-*.out >&2; fail "$most of $k runs on one CPU of $n"; }
[[ -z $(ls -A "$MPTRAIN_RUNS_DIR") ]] || fail "left behind: $(ls -A "$MPTRAIN_RUNS_DIR")"
exit 0
