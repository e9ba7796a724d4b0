# A resource limit that stops a worker from starting is named with its
# value and the command, and the advice fits: "start fewer workers" only
# where there are several (the doctor's one command has no workers to drop).
source "$(dirname "$0")/../lib.sh"

# Open files: `ulimit -n 8` leaves mptrain too few descriptors for a worker's pipes.
(ulimit -n 8 && "$MPTRAIN" doctor -- sleep 0.1) >"$WORK/out" 2>"$WORK/err"
code=$?
expect_code 1
expect_stderr "^mptrain: error: cannot [^:]*: too many open files \(the limit is 8\); raise the limit \(ulimit -n\)$"
# With descriptors for some workers only, the advice adds fewer workers: the largest limit that still
# fails (what the caller left open moves it) fails at a later worker's start.
for limit in $(seq 8 64); do
  (ulimit -n "$limit" && "$MPTRAIN" run -n 4 --allow-oversubscribe -- true) >"$WORK/out" 2>"$WORK/try"
  code=$?
  [[ $code == 0 ]] && break
  cp "$WORK/try" "$WORK/err"
done
[[ $code == 0 ]] || fail "4 workers of true did not start even with 64 descriptors"
expect_stderr "rank [1-3]\)?[^:]*: too many open files \(the limit is [0-9]+\); raise the limit \(ulimit -n\), or start fewer workers$"

# Processes: `ulimit -u` binds a user other than root; run as nobody where that works here.
if [[ $(id -u) == 0 ]] && command -v setpriv >/dev/null && id nobody >/dev/null 2>&1 &&
  setpriv --reuid nobody --regid "$(id -g nobody)" --clear-groups "$MPTRAIN" --version >/dev/null 2>&1; then
  setpriv --reuid nobody --regid "$(id -g nobody)" --clear-groups \
    bash -c 'ulimit -u 3 && exec "$0" run -n 2 --allow-oversubscribe -- true' "$MPTRAIN" >"$WORK/out" 2>"$WORK/err"
  code=$?
  expect_code 1
  expect_stderr "^mptrain: error: cannot start rank [01] \(true\): no more processes may start \(this user's limit on processes is 3\); raise the limit \(ulimit -u\), or start fewer workers$"
fi
exit 0
