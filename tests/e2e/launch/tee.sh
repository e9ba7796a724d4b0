# --tee sends the streams it names to the rank's log file and to the console
# (tagged); a stream named by --redirects and --tee is teed.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
need_cpus 2

# 2: stderr to files and the console; stdout, not named, to the console only (as torchrun does).
run_logged --tee 2
for rank in 0 1; do
  expect_logged "$rank" err
  expect_not_logged "$rank" out
  expect_stderr "^\[$rank\] err $rank$"
  grep -qx "\[$rank\] out $rank" "$WORK/out" || fail "rank $rank's stdout is not on the console"
done

# Tee wins: stdout is named by both, so it is in its file and on the console; stderr only in its file.
run_logged --redirects 3 --tee 1
for rank in 0 1; do
  expect_logged "$rank" out err
  grep -qx "\[$rank\] out $rank" "$WORK/out" || fail "rank $rank's teed stdout is not on the console"
done
! grep -q '^\[' "$WORK/err" || fail "redirected stderr reached the console"

# With --json the teed stdout lines go to stderr, so stdout holds only the report.
run_logged --tee all --json
expect_json '.exit_code == 0'
expect_stderr '^\[1\] out 1$'
expect_logged 1 out
