# Two users' runs on one machine see each other: root's run plans around
# the CPUs nobody's run holds and the other way round, in one records
# directory every user shares (mode 1777); a record that speaks for
# another user than its file's owner (nobody claiming to be root, its lock
# held) is not believed; each run removes its own record.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
# A run left waiting on its fifo by a failed check must not outlive the script.
trap 'kill $(jobs -p) 2>/dev/null; wait; rm -rf "$WORK"' EXIT
need_cpus 2
((EUID == 0)) || skip "needs root, to run as nobody beside root"
command -v setpriv >/dev/null || fail "setpriv (util-linux) is needed"
id nobody >/dev/null 2>&1 || fail "the user nobody is needed"
# mptrain and its placement library where nobody can run them; a shared records directory.
mkdir -p "$WORK/bin" "$WORK/shared"
cp "$MPTRAIN" "$(dirname "$MPTRAIN")/libmptrain_place.so" "$WORK/bin/"
chmod 755 "$WORK" "$WORK/bin" "$WORK"/bin/*
chmod 1777 "$WORK/shared"
export MPTRAIN_RUNS_DIR=$WORK/shared  # root's and sticky, as /dev/shm
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
as_nobody test -x "$WORK/bin/mptrain" || fail "nobody cannot run $WORK/bin/mptrain: give TMPDIR a folder every user can enter"
report='sed -n "s/^Cpus_allowed_list:\s*/cpus /p" /proc/self/status'
# hold_as WHO NAME: starts a run of WHO (root or nobody) on one CPU whose worker prints its CPUs and
# waits on the fifo $WORK/shared/NAME.fifo; its pid in $held.
hold_as() {
  local prefix=()
  [[ $1 == nobody ]] && prefix=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
  mkfifo -m 666 "$WORK/shared/$2.fifo"
  "${prefix[@]}" "$WORK/bin/mptrain" run -n 1 -t 1 -- sh -c "$report; cat '$WORK/shared/$2.fifo' >/dev/null" \
    >"$WORK/$2.out" 2>"$WORK/$2.err" &
  held=$!
  wait_for 20 grep -q cpus "$WORK/$2.out" || { cat "$WORK/$2.err" >&2; fail "$1's run did not start"; }
}
cpus_of() { sed -n 's/^\[0\] cpus //p' "$1"; }

hold_as nobody theirs
theirs=$held
run_mptrain run -n 1 -t 1 -- sh -c "$report"
expect_code 0
expect_stderr "other mptrain runs hold CPUs $(cpus_of "$WORK/theirs.out") \(pid [0-9]+ on"
[[ $(cpus_of "$WORK/out") != "$(cpus_of "$WORK/theirs.out")" ]] || fail "root's run took the CPU nobody's run holds"
[[ $(stat -c '%U %a' "$MPTRAIN_RUNS_DIR"/mptrain-run-*) == "nobody 644" ]] || fail "nobody's record: $(ls -l "$MPTRAIN_RUNS_DIR")"
echo >"$WORK/shared/theirs.fifo"
wait "$theirs" || { cat "$WORK/theirs.err" >&2; fail "nobody's run failed"; }

hold_as root mine
mine=$held
as_nobody "$WORK/bin/mptrain" run -n 1 -t 1 -- sh -c "$report" >"$WORK/out" 2>"$WORK/err" || fail "nobody's run failed"
expect_stderr "other mptrain runs hold CPUs $(cpus_of "$WORK/mine.out") \(pid $mine on"
[[ $(cpus_of "$WORK/out") != "$(cpus_of "$WORK/mine.out")" ]] || fail "nobody's run took the CPU root's run holds"
echo >"$WORK/shared/mine.fifo"
wait "$mine" || fail "root's run failed"

# nobody plants a record claiming to be root's run on every CPU, and holds its lock: not believed.
usable=$("$MPTRAIN" topo --json | jq -r .usable_cpu_list)
planted="$MPTRAIN_RUNS_DIR/mptrain-run-0-1-0000000000000000"
as_nobody sh -c "printf 'pid 1\nstart 1\nuid 0\ncpus $usable\nnodes \nworkers 1\nthreads 2\nstarted 1\nstate running\narrived 1\nneed 1\nelastic 1\ncommand planted\n' >'$planted'; chmod 644 '$planted'"
setpriv --reuid=nobody --regid=nogroup --clear-groups sh -c "exec 9<'$planted'; flock 9; exec sleep 30" &
locker=$!
wait_for 10 sh -c "! flock -n '$planted' true" || fail "the planted record was never locked"
run_mptrain run -n 1 -t 1 -- true
expect_code 0
! grep -q "other mptrain runs" "$WORK/err" || { cat "$WORK/err" >&2; fail "a record nobody wrote for root was believed"; }
kill "$locker"
wait "$locker" 2>/dev/null
rm -f "$planted"
[[ -z $(ls -A "$MPTRAIN_RUNS_DIR" | grep mptrain-run) ]] || fail "left behind: $(ls -A "$MPTRAIN_RUNS_DIR")"
exit 0
