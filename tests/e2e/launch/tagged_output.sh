# Workers' lines are tagged with their rank and never mixed mid-line, even
# when two workers write long lines in small pieces at the same time; an
# unfinished last line is still printed.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
need_cpus 2

writer='awk -v r="$RANK" "BEGIN { for (i = 0; i < 3000; i++) { for (j = 0; j < 20; j++) printf \"%s%s\", r, r r r r; print \"\"; fflush() } printf \"end%s\", r }"'
run_mptrain run -n 2 -- sh -c "$writer"
expect_code 0
[[ $(grep -c '^\[0\] \(0\)\{100\}$' "$WORK/out") == 3000 ]] || fail "rank 0's lines are not intact"
[[ $(grep -c '^\[1\] \(1\)\{100\}$' "$WORK/out") == 3000 ]] || fail "rank 1's lines are not intact"
grep -qx '\[0\] end0' "$WORK/out" || fail "rank 0's unfinished last line is missing"
grep -qx '\[1\] end1' "$WORK/out" || fail "rank 1's unfinished last line is missing"
[[ $(wc -l <"$WORK/out") == 6002 ]] || fail "unexpected lines on stdout"

# stderr is tagged too and stays on stderr.
run_mptrain run -n 2 -- sh -c 'echo "oops $RANK" >&2'
expect_code 0
expect_stderr '^\[1\] oops 1$'
[[ ! -s "$WORK/out" ]] || fail "stderr lines reached stdout"
