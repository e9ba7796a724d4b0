# Lines of megabytes come out whole: tagged once or untagged, never mixed
# with another rank's line, so a worker's JSON line still parses. A line
# past 16 MiB is printed in pieces of 16 MiB, each a line, with a warning;
# its log file holds it whole.
# ctest: timeout 300
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
need_cpus 2

# Each rank writes a line of 1 MiB of its digit in pieces of 1 KiB, both at
# once, then a short line.
cat >"$WORK/writer.sh" <<'SCRIPT'
awk -v r="$RANK" 'BEGIN {
  s = ""; for (i = 0; i < 1024; i++) s = s r
  for (i = 0; i < 1024; i++) { printf "%s", s; fflush() }
  print ""; print "after " r
}'
SCRIPT
# check_lines PREFIX_0 PREFIX_1: stdout holds, per rank R, one line of PREFIX_R
# and 1 MiB of R's digit, and PREFIX_R "after R"; nothing else.
check_lines() {
  local rank prefix whole
  for rank in 0 1; do
    prefix=$1
    shift
    whole=$(awk -v p="$prefix" -v r="$rank" 'index($0, p) == 1 {
      body = substr($0, length(p) + 1); if (length(body) == 1048576 && body !~ "[^" r "]") n++ } END { print n + 0 }' \
      "$WORK/out")
    [[ $whole == 1 ]] || fail "rank $rank's 1 MiB line is not whole ($whole whole lines)"
    grep -qxF "${prefix}after $rank" "$WORK/out" || fail "rank $rank's short line is missing"
  done
  [[ $(wc -l <"$WORK/out") == 4 ]] || fail "stdout holds $(wc -l <"$WORK/out") lines, not 4"
}
run_mptrain run -n 2 --no-tag-output -- sh "$WORK/writer.sh"
expect_code 0
check_lines '' ''
run_mptrain run -n 2 -- sh "$WORK/writer.sh"
expect_code 0
check_lines '[0] ' '[1] '
! grep -q 'longer than' "$WORK/err" || fail "a warning of split lines for lines under the limit"

# A JSON document of 300 KB on one line, from both ranks: every line parses.
cat >"$WORK/json.sh" <<'SCRIPT'
awk -v r="$RANK" 'BEGIN {
  printf "{\"rank\": %s, \"values\": [", r
  for (i = 0; i < 50000; i++) { printf "%s%d", (i ? "," : ""), i; if (i % 500 == 0) fflush() }
  print "]}"
}'
SCRIPT
run_mptrain run -n 2 --no-tag-output -- sh "$WORK/json.sh"
expect_code 0
[[ $(wc -l <"$WORK/out") == 2 ]] || fail "the JSON lines were split"
(($(wc -c <"$WORK/out") > 2 * 280000)) || fail "the JSON lines are too short"
jq -e -s 'map(.values | length) == [50000, 50000] and (map(.rank) | sort) == [0, 1]' "$WORK/out" >/dev/null ||
  fail "the JSON lines do not parse"
run_mptrain run -n 2 -- sh "$WORK/json.sh"
expect_code 0
sed -E 's/^\[[01]\] //' "$WORK/out" | jq -e -s 'map(.values | length) == [50000, 50000]' >/dev/null ||
  fail "the tagged JSON lines do not parse"

# Past the limit: 16 MiB + 10 bytes come out as a line of 16 MiB and one of 10.
limit=$((16 * 1024 * 1024))
long="head -c $((limit + 10)) /dev/zero | tr '\\0' y; echo"
run_mptrain run -n 1 --no-tag-output -- sh -c "$long"
expect_code 0
[[ $(awk '{ print length($0) }' "$WORK/out" | tr '\n' ' ') == "$limit 10 " ]] || fail "not cut into 16 MiB and 10 bytes"
expect_stderr "^mptrain: warning: rank 0's stdout had a line longer than 16 MiB; the console got it in pieces of 16 MiB, each a line of its own$"
# Teed to a log file: the file holds it whole, and the warning says so.
run_mptrain run -n 1 --log-dir "$WORK/logs" --tee 1 -- sh -c "$long"
expect_code 0
[[ $(wc -c <"$WORK/logs/rank-0.out") == $((limit + 11)) && $(wc -l <"$WORK/logs/rank-0.out") == 1 ]] ||
  fail "the log file does not hold the long line whole"
[[ $(wc -l <"$WORK/out") == 2 ]] || fail "the console did not get two pieces"
expect_stderr "\(${WORK//./\\.}/logs/rank-0.out holds it whole\)"
