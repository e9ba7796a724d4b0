# --save-model never replaces what is not a regular file: a device node, a
# FIFO, a symbolic link or a directory is refused before any training with
# exit 2, and is still what it was afterwards. An empty regular file is
# replaced (what else a regular file may be: save_model_own_input.sh).
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/fixtures.bash"
make_small_data
train=(run -n 1 -t 1 --data "$WORK/data" --model logreg)

if [[ $(id -u) == 0 ]] && mknod "$WORK/null" c 1 3 2>/dev/null; then
  expect_save_refused "$WORK/null" "^refusing to replace .*: it is a character device, not a regular file"
  [[ -c "$WORK/null" ]] || fail "the device node was replaced"
else
  echo "note: cannot mknod here (not root); the device case uses /dev/null itself"
fi
expect_save_refused /dev/null "^refusing to replace .*: it is a character device, not a regular file"
[[ -c /dev/null ]] || fail "/dev/null is no longer a device"

mkfifo "$WORK/fifo"
expect_save_refused "$WORK/fifo" "^refusing to replace .*: it is a FIFO, not a regular file"
[[ -p "$WORK/fifo" ]] || fail "the FIFO was replaced"

echo keep >"$WORK/target"
ln -s "$WORK/target" "$WORK/link"
expect_save_refused "$WORK/link" "^refusing to replace .*: it is a symbolic link, not a regular file"
[[ -L "$WORK/link" && $(cat "$WORK/target") == keep ]] || fail "the symlink or its target was changed"

mkdir "$WORK/dir"
expect_save_refused "$WORK/dir" "^refusing to replace .*: it is a directory, not a regular file"

: >"$WORK/model.ckpt"
run_mptrain "${train[@]}" --save-model "$WORK/model.ckpt"
expect_code 0
[[ $(head -c 8 "$WORK/model.ckpt") == MPTRCKPT ]] || fail "a regular file was not replaced by the checkpoint"
