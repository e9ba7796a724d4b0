# Two runs given the same --save-model: the second is refused before it
# trains (exit 1), naming the first run's pid, whatever spelling of the path
# it uses; the first one goes on and saves. Once the first has ended, the
# path is free again and its lock file is gone. Two runs saving to
# different names in one directory do not block each other.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/fixtures.bash"
make_small_data 256 16
train=(run -n 1 -t 1 --data "$WORK/data" --model logreg)
mkdir "$WORK/models"
ln -s "$WORK/models" "$WORK/via"

# The first run trains until it is interrupted.
"$MPTRAIN" "${train[@]}" --epochs 100000 --save-model "$WORK/models/model.ckpt" >"$WORK/first.out" 2>"$WORK/first.err" &
first=$!
trap 'kill -9 "$first" 2>/dev/null; rm -rf "$WORK"' EXIT  # never left training when a check fails
wait_for_workers "$first" 1 >/dev/null || exit 1

# refused_second PATH: a second run saving to PATH is refused before training, naming the first.
refused_second() {
  run_mptrain "${train[@]}" --save-model "$1"
  expect_code 1
  expect_stderr "^mptrain: error: --save-model $1 is being written by another mptrain run \(pid $first\); wait for it to end, or give another --save-model path"
  if grep -q 'samples/s' "$WORK/err" "$WORK/out"; then fail "the second run trained"; fi
}
refused_second "$WORK/models/model.ckpt"
refused_second "$WORK/via/model.ckpt"            # through a symbolic link to the directory
refused_second "$WORK/models/../models/model.ckpt"

# Another name in the same directory is not blocked.
run_mptrain "${train[@]}" --save-model "$WORK/models/other.ckpt"
expect_code 0

# The first run still saves, and its lock file goes with it.
kill -INT "$first"
wait "$first"
code=$?
[[ $code -eq 130 ]] || { cat "$WORK/first.err" >&2; fail "the first run exited $code after SIGINT, not 130"; }
[[ $(head -c 8 "$WORK/models/model.ckpt") == MPTRCKPT ]] || fail "the first run did not save"
leftover=$(ls -A "$WORK/models" | grep '^\.mptrain')
[[ -z "$leftover" ]] || fail "left beside the checkpoints: $leftover"

# Free again: a new run saves there.
run_mptrain "${train[@]}" --resume "$WORK/models/model.ckpt" --save-model "$WORK/via/model.ckpt"
expect_code 0

# A lock file left by a run killed with SIGKILL does not block the next one.
"$MPTRAIN" "${train[@]}" --epochs 100000 --save-model "$WORK/models/model.ckpt" >/dev/null 2>&1 &
killed=$!
workers=$(wait_for_workers "$killed" 1) || exit 1
kill -9 "$killed"
wait "$killed" 2>/dev/null
# Its watchdog kills its workers, which hold the lock with it.
for _ in $(seq 300); do kill -0 $workers 2>/dev/null || break; sleep 0.1; done
kill -0 $workers 2>/dev/null && fail "the workers of the killed run are still alive"
compgen -G "$WORK/models/.mptrain-lock-*" >/dev/null || fail "expected the killed run's lock file to be left"
run_mptrain "${train[@]}" --save-model "$WORK/models/model.ckpt"
expect_code 0
exit 0
