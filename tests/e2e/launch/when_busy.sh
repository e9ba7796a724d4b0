# When another run holds the CPUs a run needs, --when-busy chooses: fail
# (exit 75, naming the run that holds them), wait (a progress line, FIFO
# order, a timeout that exits 75, and a start the moment the holder dies,
# even by SIGKILL), or share (the default: its fair part, passive waits,
# said); --ignore-others plans as if alone. A record whose pid is alive but
# whose run is gone (a reused pid) holds nothing.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
# A run left waiting on its fifo by a failed check must not outlive the script.
trap 'kill $(jobs -p) 2>/dev/null; wait; rm -rf "$WORK"' EXIT
need_cpus 2
n=$("$MPTRAIN" topo --json | jq -r .usable_cpus)
usable=$("$MPTRAIN" topo --json | jq -r .usable_cpu_list)
report='echo "cpus $(sed -n "s/^Cpus_allowed_list:\s*//p" /proc/self/status) wait ${OMP_WAIT_POLICY:-active}"'
# hold NAME OPTIONS...: starts a run of OPTIONS whose worker prints its CPUs and then waits on the
# fifo $WORK/NAME.fifo; its pid in $held, its output in $WORK/NAME.out and .err.
hold() {
  local name=$1
  shift
  mkfifo "$WORK/$name.fifo"
  "$MPTRAIN" run "$@" -- sh -c "$report; cat '$WORK/$name.fifo' >/dev/null" >"$WORK/$name.out" 2>"$WORK/$name.err" &
  held=$!
}
started() { grep -q "cpus" "$WORK/$1.out" 2>/dev/null; }
release() { echo >"$WORK/$1.fifo"; }

# A run holds every usable CPU (-t n: a fixed size, so it never shares them away).
hold first -n 1 -t "$n"
first=$held
wait_for 20 started first || fail "the first run did not start"

refused 75 "the machine is busy \(--when-busy fail\): this run needs 1 CPU and other mptrain runs hold the usable CPUs .*pid $first" \
  run --when-busy fail -- touch "$WORK/ran"
run_mptrain run --when-busy wait --wait-timeout 0.3 -- touch "$WORK/ran"
expect_code 75
expect_stderr "^mptrain: note: waiting for 1 free CPU \(0 s so far, --wait-timeout 0.3\): pid $first on"
expect_stderr "^mptrain: error: waited [0-9.]+ s for free CPUs \(--wait-timeout 0.3\).*pid $first"
[[ ! -e $WORK/ran ]] || fail "a run that timed out waiting ran its command"
# Ctrl-C (SIGINT) or SIGTERM while it waits: it stops as the signal would (128 + signal), says so,
# starts nothing and leaves no record behind.
for signal in INT TERM; do
  "$MPTRAIN" run --when-busy wait -- touch "$WORK/ran" >"$WORK/out" 2>"$WORK/err" &
  waiter=$!
  wait_for 20 grep -q "waiting for 1 free CPU" "$WORK/err" || { cat "$WORK/err" >&2; fail "the run does not wait"; }
  kill -"$signal" "$waiter"
  code=0
  wait "$waiter" || code=$?
  expect_code $((128 + $(kill -l "$signal")))
  expect_stderr "^mptrain: error: SIG$signal while planning or waiting for free CPUs: stopped; nothing was started"
  [[ ! -e $WORK/ran ]] || fail "a run stopped by SIG$signal while it waited ran its command"
  ! grep -qx "pid $waiter" "$MPTRAIN_RUNS_DIR"/* 2>/dev/null ||
    fail "a run stopped by SIG$signal while it waited left its record in $MPTRAIN_RUNS_DIR"
  (($(ls "$MPTRAIN_RUNS_DIR" | wc -l) == 1)) || fail "records left: $(ls "$MPTRAIN_RUNS_DIR")"
done
refused 2 "--wait-timeout needs --when-busy wait" run --wait-timeout 1 -- touch "$WORK/ran"
MPTRAIN_START_WINDOW=x refused 2 "MPTRAIN_START_WINDOW: x is not a duration" run -- touch "$WORK/ran"

# Share, the default: its fair part of the machine beside the holder, passive waits, said.
run_mptrain run -- sh -c "$report"
expect_code 0
expect_stderr "this run needs 1 CPU and 0 are free: it shares CPUs .* \(its part of $n CPUs among 2 runs\)"
grep -q "wait passive" "$WORK/out" || { cat "$WORK/out" >&2; fail "a run sharing CPUs waits actively"; }
# --ignore-others: every usable CPU, no note.
run_mptrain run --ignore-others -- sh -c "$report"
expect_code 0
grep -q "cpus $usable wait active" "$WORK/out" || { cat "$WORK/out" >&2; fail "--ignore-others did not plan on every CPU"; }
! grep -q "other mptrain runs" "$WORK/err" || { cat "$WORK/err" >&2; fail "--ignore-others planned around the others"; }

# Wait, first come first served: A (all CPUs) queues before B (one); when the holder is killed with
# SIGKILL, A starts at once and B waits on until A is done.
hold a -n 1 -t "$n" --when-busy wait
a=$held
wait_for 20 grep -q "waiting for $n free CPUs" "$WORK/a.err" || { cat "$WORK/a.err" >&2; fail "A does not say it waits"; }
hold b -n 1 -t 1 --when-busy wait
b=$held
wait_for 20 grep -q "waiting for 1 free CPU" "$WORK/b.err" || { cat "$WORK/b.err" >&2; fail "B does not say it waits"; }
kill -9 "$first"
wait "$first" 2>/dev/null
wait_for 20 started a || { cat "$WORK/a.err" >&2; fail "A did not start when the holder died"; }
grep -q "waited [0-9.]* s for free CPUs" "$WORK/a.err" || { cat "$WORK/a.err" >&2; fail "A does not say how long it waited"; }
sleep 0.6
! started b || { cat "$WORK/b.out" >&2; fail "B, queued after A, started while A held every CPU"; }
release a
wait "$a" || fail "A failed"
wait_for 20 started b || { cat "$WORK/b.err" >&2; fail "B did not start when A ended"; }
release b
wait "$b" || fail "B failed"

# A record whose pid is alive (this shell's) but that no run holds is a dead run's: it holds nothing,
# and its owner's next run removes it.
printf 'pid %s\nstart 1\nuid %s\ncpus %s\nnodes \nworkers 1\nthreads %s\nstarted 1\nstate running\narrived 1\nneed 1\nelastic 1\ncommand stale\n' \
  $$ "$(id -u)" "$usable" "$n" >"$MPTRAIN_RUNS_DIR/mptrain-run-$(id -u)-$$-0000000000000000"
run_mptrain run -- sh -c "$report"
expect_code 0
! grep -q "other mptrain runs" "$WORK/err" || { cat "$WORK/err" >&2; fail "a dead run's record with a live pid held CPUs"; }
[[ -z $(ls -A "$MPTRAIN_RUNS_DIR") ]] || fail "left behind: $(ls -A "$MPTRAIN_RUNS_DIR")"
exit 0
