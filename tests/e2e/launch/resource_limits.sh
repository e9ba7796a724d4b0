# A resource limit that stops a worker from starting is named with its
# value and the command, and the advice fits: "start fewer workers" only
# where there are several (the doctor's one command has no workers to drop,
# and is not called a rank). Every limit on open files too low for a
# launch, wherever it runs out (the tree tables, the port's socket, a
# pipe), is named with its value and how to raise it.
source "$(dirname "$0")/../lib.sh"
close_inherited_fds

# Open files: `ulimit -n 8` leaves mptrain too few descriptors for a worker's pipes.
(ulimit -n 8 && "$MPTRAIN" doctor -- sleep 0.1) >"$WORK/out" 2>"$WORK/err"
code=$?
expect_code 1
expect_stderr "^mptrain: error: cannot [^:]*: too many open files \(the limit is 8\); raise the limit \(ulimit -n\)$"
for limit in $(seq 8 12); do  # below 8 a sanitizer runtime itself cannot start
  (ulimit -n "$limit" && "$MPTRAIN" doctor -- sleep 0.1) >"$WORK/out" 2>"$WORK/err"
  ! grep -q "rank" "$WORK/err" || fail "ulimit -n $limit: the doctor's command was called a rank: $(cat "$WORK/err")"
done
for limit in $(seq 8 16); do
  (ulimit -n "$limit" && "$MPTRAIN" run -n 6 --allow-oversubscribe --children 1 -- true) >"$WORK/out" 2>"$WORK/err"
  [[ $? == 0 ]] && break
  grep -q "^mptrain: error: .*open files .*raise the limit (ulimit -n)" "$WORK/err" ||
    fail "ulimit -n $limit: no limit named: $(cat "$WORK/err")"
done
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

# Processes: `ulimit -u` binds a user other than root, and counts every process that user has, so
# the run is made as a user id nobody else runs as here (user nobody ran a concurrent test's
# processes in a CI run, and the watchdog, not rank 1, was the start that failed).
uid=""
for candidate in $(seq 61000 61999); do
  if ! getent passwd "$candidate" >/dev/null && ! pgrep -U "$candidate" >/dev/null; then
    uid=$candidate
    break
  fi
done
as_uid=(setpriv --reuid "$uid" --regid "$uid" --clear-groups)
if [[ $(id -u) == 0 && -n $uid ]] && command -v setpriv >/dev/null &&
  "${as_uid[@]}" "$MPTRAIN" --version >/dev/null 2>&1; then
  "${as_uid[@]}" bash -c 'ulimit -u 3 && exec "$0" run -n 2 --allow-oversubscribe -- true' "$MPTRAIN" \
    >"$WORK/out" 2>"$WORK/err"
  code=$?
  expect_code 1
  expect_stderr "^mptrain: error: cannot start rank [01] \(true\): no more processes may start \(this user's limit on processes is 3\); raise the limit \(ulimit -u\), or start fewer workers$"
else
  echo "note: not root, no setpriv, no free user id, or user id $uid cannot run $MPTRAIN here; the process limit was not tested" >&2
fi
exit 0
