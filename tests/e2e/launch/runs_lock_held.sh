# Every user may lock the runs' records directory (as /dev/shm): a process
# that holds that lock for good delays a run by at most 10 s, after which
# the run plans without it, says so, and runs.
# ctest: label long (5 s or more in a Release build, in the programs it runs and the windows it watches: Release stage only)
source "$(dirname "$0")/../lib.sh"
mkdir -p "$MPTRAIN_RUNS_DIR"
# The holder is the sleep itself (the subshell execs it with the locked descriptor), so killing it frees the lock.
(exec 9<"$MPTRAIN_RUNS_DIR" && flock 9 && exec sleep 30) &
locker=$!
trap 'kill $locker 2>/dev/null; rm -rf "$WORK"' EXIT
sleep 0.2
start=$SECONDS
timeout 25 "$MPTRAIN" run -n 1 -t 1 -- true >"$WORK/out" 2>"$WORK/err"
code=$?
expect_code 0
expect_stderr "another process has held the lock on $MPTRAIN_RUNS_DIR for 10 s; this run plans without it"
((SECONDS - start <= 15)) || fail "the run waited $((SECONDS - start)) s for the lock"
exit 0
