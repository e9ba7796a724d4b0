# --no-tag-output prints workers' lines without "[RANK] ", still whole: two
# workers writing long lines in small pieces never mix within a line.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
need_cpus 2

writer='awk -v r="$RANK" "BEGIN { for (i = 0; i < 2000; i++) { for (j = 0; j < 20; j++) printf \"%s%s\", r, r r r r; print \"\"; fflush() } printf \"end%s\", r }"'
run_mptrain run -n 2 --no-tag-output -- sh -c "$writer"
expect_code 0
[[ $(grep -c '^\(0\)\{100\}$' "$WORK/out") == 2000 ]] || fail "rank 0's lines are not intact"
[[ $(grep -c '^\(1\)\{100\}$' "$WORK/out") == 2000 ]] || fail "rank 1's lines are not intact"
grep -qx 'end0' "$WORK/out" || fail "rank 0's unfinished last line is missing"
[[ $(wc -l <"$WORK/out") == 4002 ]] || fail "unexpected lines on stdout"

run_mptrain run -n 2 --no-tag-output -- sh -c 'echo "oops $RANK" >&2'
expect_code 0
expect_stderr '^oops 1$'

# --tag-output is the default and may be written out; it and --no-tag-output exclude each other.
run_mptrain run -n 1 --tag-output -- echo hi
expect_code 0
[[ $(cat "$WORK/out") == "[0] hi" ]] || fail "--tag-output did not tag"
run_mptrain run -n 1 --tag-output --no-tag-output -- echo hi
expect_usage_error '--tag-output and --no-tag-output cannot be given together; give only one of them'
