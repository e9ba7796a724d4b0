# A user's file that has the name of --save-model's lock file (given as
# --resume, say) is never truncated or removed: the run is refused before
# training, naming it, and the file is left as it was.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/fixtures.bash"
make_small_data
train=(run -n 1 -t 1 --data "$WORK/data" --model logreg)

# The lock file's name: the one a run creates beside the model (seen while it trains).
run_mptrain "${train[@]}" --save-model "$WORK/model.ckpt"
expect_code 0
"$MPTRAIN" "${train[@]}" --epochs 100000 --save-model "$WORK/probe.ckpt" >/dev/null 2>&1 &
probe=$!
trap 'kill -9 "$probe" 2>/dev/null; rm -rf "$WORK"' EXIT
wait_for_workers "$probe" 1 >/dev/null || exit 1
lock=$(find "$WORK" -maxdepth 1 -name '.mptrain-lock-*' | head -1)
kill -9 "$probe"
wait "$probe" 2>/dev/null
[[ -n $lock ]] || fail "no lock file beside the model while training"
name=$(basename "$lock")

# A checkpoint of the user's under that name, beside another target of the same name in a new folder.
mkdir "$WORK/d"
cp "$WORK/model.ckpt" "$WORK/d/$name"
run_mptrain "${train[@]}" --resume "$WORK/d/$name" --save-model "$WORK/d/probe.ckpt"
expect_code 1
expect_stderr "^mptrain: error: --save-model .*probe.ckpt: its lock file's name, .*, is taken by a file that is not an mptrain lock file"
cmp -s "$WORK/model.ckpt" "$WORK/d/$name" || fail "the user's file under the lock file's name was changed"
exit 0
