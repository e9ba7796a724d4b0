# A --log-dir on a full disk: the rank's file holds the bytes written before
# the disk filled (never a hole after them), mptrain keeps reading the worker
# so it runs to its end, and exits 1 naming the rank, the file and the bytes
# lost. Needs a small tmpfs (root and mount); skips with the reason otherwise.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
need_cpus 2

disk="$WORK/disk"
mkdir "$disk"
mount -t tmpfs -o size=64k tmpfs "$disk" 2>"$WORK/mount.err" ||
  skip "cannot mount a 64 KiB tmpfs to fill ($(cat "$WORK/mount.err")); needs root with CAP_SYS_ADMIN"
trap 'umount "$disk" 2>/dev/null; rm -rf "$WORK"' EXIT

total=204800
writer="head -c $total /dev/zero | tr '\\0' x; echo ran > \"$WORK/ran.\$RANK\""
run_mptrain run -n 2 --log-dir "$disk" -- sh -c "$writer"
expect_code 1
lost=0
for rank in 0 1; do
  file="$disk/rank-$rank.out"
  size=$(stat -c %s "$file")
  ((size < total)) || fail "rank-$rank.out holds all $size bytes on a 64 KiB disk"
  [[ -z $(tr -d x <"$file") ]] || fail "rank-$rank.out holds bytes the worker did not write"
  pattern="rank $rank's stdout: ([0-9]+) bytes not written to $file: No space left on device"
  expect_stderr "^mptrain: error: $pattern"
  lost=$(grep -Eo "$pattern" "$WORK/err" | grep -Eo '[0-9]+ bytes' | grep -Eo '[0-9]+')
  ((size + lost == total)) || fail "rank $rank: $size bytes written and $lost lost, not $total"
  [[ -s "$WORK/ran.$rank" ]] || fail "rank $rank did not run to its end"
done
[[ $(grep -c 'exited with code 0' "$WORK/err") == 2 ]] || fail "a worker did not exit 0"

# Teed to the console too: the console got every line, the file's loss is still exit 1.
rm -f "$disk"/rank-*
run_mptrain run -n 1 --log-dir "$disk" --tee 1 -- sh -c 'yes 0123456789abcdef | head -n 8192'
expect_code 1
[[ $(grep -c '^\[0\] 0123456789abcdef$' "$WORK/out") == 8192 ]] || fail "the console lost lines"
expect_stderr "^mptrain: error: rank 0's stdout: [0-9]+ bytes not written to $disk/rank-0.out: No space left"
