# A checkpoint replaced by --save-model keeps its mode (600, 640, 444),
# and, when root gave it to another user in that user's directory, its
# owner and group; a new one gets 0666 less the umask. The same for a
# --trace file. A file another user planted in a shared directory (an empty
# one, mode 666, in a sticky /tmp-like folder) is replaced by root's own, so
# that user cannot rewrite what root will --resume.
# ctest: timeout 120
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/fixtures.bash"
make_small_data
train=(run -n 1 -t 1 --data "$WORK/data" --model logreg)
model="$WORK/model.ckpt"

# expect_stat FILE FORMAT VALUE: stat -c FORMAT of FILE is VALUE.
expect_stat() {
  local got
  got=$(stat -c "$2" "$1")
  [[ "$got" == "$3" ]] || fail "$1: stat $2 is $got, expected $3"
}

# A new file: the umask decides (027 gives 640, 022 gives 644).
(umask 027 && "$MPTRAIN" "${train[@]}" --save-model "$model" >/dev/null 2>"$WORK/err") || fail "first save failed"
expect_stat "$model" %a 640
rm "$model"
(umask 022 && "$MPTRAIN" "${train[@]}" --save-model "$model" >/dev/null 2>"$WORK/err") || fail "first save failed"
expect_stat "$model" %a 644

# A replaced file keeps its mode, whatever the umask.
for mode in 600 640 444; do
  chmod "$mode" "$model"
  cp "$model" "$WORK/before"
  run_mptrain "${train[@]}" --resume "$model" --save-model "$model"
  expect_code 0
  cmp -s "$model" "$WORK/before" && fail "the checkpoint was not replaced (mode $mode)"
  expect_stat "$model" %a "$mode"
done

# The same for a doctor trace.
trace="$WORK/t.json"
run_mptrain doctor --json --fail-on never --interval 0.05 --trace "$trace" -- sleep 0.1
expect_code 0
chmod 600 "$trace"
run_mptrain doctor --json --fail-on never --interval 0.05 --trace "$trace" -- sleep 0.1
expect_code 0
expect_stat "$trace" %a 600

# Owner and group: only root can give a file to another user.
if [[ $(id -u) -ne 0 ]]; then
  echo "note: not root: the owner case was not tested (it needs chown to another user)" >&2
  exit 0
fi
nobody=$(id -u nobody) || fail "no user nobody"
group=$(id -g nobody)
chown "$nobody:$group" "$model" "$trace" "$WORK"
chmod 640 "$model"
run_mptrain "${train[@]}" --resume "$model" --save-model "$model"
expect_code 0
expect_stat "$model" %u:%g:%a "$nobody:$group:640"
run_mptrain doctor --json --fail-on never --interval 0.05 --trace "$trace" -- sleep 0.1
expect_code 0
expect_stat "$trace" %u:%g:%a "$nobody:$group:600"

# Planted: nobody's empty file, mode 666, in a sticky folder everyone may write (as /tmp).
mkdir -m 1777 "$WORK/sticky"
touch "$WORK/sticky/model.ckpt" "$WORK/sticky/t.json"
chown "$nobody:$group" "$WORK/sticky/model.ckpt" "$WORK/sticky/t.json"
chmod 666 "$WORK/sticky/model.ckpt" "$WORK/sticky/t.json"
(umask 022 && "$MPTRAIN" "${train[@]}" --save-model "$WORK/sticky/model.ckpt" >/dev/null 2>"$WORK/err") ||
  { cat "$WORK/err" >&2; fail "saving over a planted file failed"; }
expect_stat "$WORK/sticky/model.ckpt" %u:%a "0:644"
(umask 022 && "$MPTRAIN" doctor --json --fail-on never --interval 0.05 --trace "$WORK/sticky/t.json" -- sleep 0.1 \
  >/dev/null 2>"$WORK/err") || { cat "$WORK/err" >&2; fail "a trace over a planted file failed"; }
expect_stat "$WORK/sticky/t.json" %u:%a "0:644"

# A user who could not keep the owner is refused before training (exit 1):
# nobody, in a directory everyone may write, replacing root's checkpoint.
chmod 755 "$WORK"
chmod -R a+rX "$WORK/data"
as_nobody=(setpriv --reuid "$nobody" --regid "$group" --clear-groups)
if ! "${as_nobody[@]}" test -x "$MPTRAIN" -a -r "$WORK/data/train-images-idx3-ubyte"; then
  echo "note: user nobody cannot run $MPTRAIN or read $WORK here; the refusal as nobody was not tested" >&2
  exit 0
fi
mkdir -m 777 "$WORK/shared"
cp "$WORK/before" "$WORK/shared/model.ckpt"
cp "$WORK/before" "$WORK/shared/before"
chmod 644 "$WORK/shared/model.ckpt"  # nobody may read it, so it is seen to be a checkpoint
"${as_nobody[@]}" "$MPTRAIN" "${train[@]}" --save-model "$WORK/shared/model.ckpt" \
  >"$WORK/out" 2>"$WORK/err"
code=$?
expect_code 1
expect_stderr "^mptrain: error: cannot replace $WORK/shared/model.ckpt keeping its owner \(uid 0\) and group \(gid 0\): Operation not permitted; run as its owner or give another path"
if grep -q 'samples/s' "$WORK/err" "$WORK/out"; then fail "it trained before refusing"; fi
cmp -s "$WORK/shared/model.ckpt" "$WORK/shared/before" || fail "root's checkpoint was changed"
[[ $(ls -A "$WORK/shared" | wc -l) -eq 2 ]] || { ls -A "$WORK/shared" >&2; fail "files left in the directory"; }
exit 0
