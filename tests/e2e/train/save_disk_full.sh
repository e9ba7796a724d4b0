# A checkpoint that cannot be written at the end (the disk is full, its
# directory is gone) still gets the report printed, then exit 1 with a
# message saying what to do (free some space only when space is what
# lacked); an earlier file at the path is left intact and
# no temporary file remains.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/fixtures.bash"
make_small_data 256 32
train=(run -n 1 -t 1 --data "$WORK/data" --model logreg)

# expect_report: the last run printed its report (text or JSON).
expect_report() {
  grep -Eq '^  test accuracy|"test_accuracy"' "$WORK/out" || { cat "$WORK/out" "$WORK/err" >&2; fail "no report printed"; }
}

# 1. The directory was removed during training (any user), then SIGINT.
mkdir "$WORK/dir"
start_mptrain "${train[@]}" --epochs 100000 --save-model "$WORK/dir/model.ckpt"
wait_for_workers "$launcher" 1 >/dev/null || exit 1
rm -r "$WORK/dir"
signal_and_wait INT
expect_code 1
expect_report
grep -q "^  model NOT saved   to $WORK/dir/model.ckpt" "$WORK/out" || fail "the report does not say the model was not saved"
expect_stderr "^mptrain: error: cannot save the model: .*No such file or directory.*; $WORK/dir/model.ckpt was not created: choose another --save-model path$"

# 2. A full file system: a small tmpfs, filled up, holding an earlier checkpoint.
if [[ $(id -u) -ne 0 ]] || ! mkdir "$WORK/small" || ! mount -t tmpfs -o size=256k tmpfs "$WORK/small" 2>/dev/null; then
  echo "note: the full-disk case needs root (to mount a small tmpfs); only the vanished directory was tested" >&2
  exit 0
fi
trap 'umount "$WORK/small"; rm -rf "$WORK"' EXIT
run_mptrain "${train[@]}" --save-model "$WORK/small/model.ckpt"
expect_code 0
cp "$WORK/small/model.ckpt" "$WORK/good.ckpt"
dd if=/dev/zero of="$WORK/small/filler" bs=4k 2>/dev/null
run_mptrain "${train[@]}" --epochs 2 --save-model "$WORK/small/model.ckpt" --json
expect_code 1
expect_report
expect_json ".saved_model == null and (.save_error | test(\"No space left\")) and .test_samples == 32"
expect_stderr "^mptrain: error: cannot save the model: .*No space left on device.*; $WORK/small/model.ckpt is as it was before this run: free some space there or choose another --save-model path$"
cmp -s "$WORK/small/model.ckpt" "$WORK/good.ckpt" || fail "the earlier checkpoint changed"
compgen -G "$WORK/small/.mptrain-*" >/dev/null && fail "a temporary or lock file was left beside the checkpoint"
exit 0
