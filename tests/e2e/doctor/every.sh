# --every prints one verdict line per period on stderr while sampling, and
# must not be shorter than --interval.
# ctest: processors 2 (its burners keep two CPUs busy)
# ctest: timeout 60
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/doctor_lib.bash"

run_mptrain doctor --every 0.1 --interval 0.5 --duration 1
expect_usage_error "--every 0.1 is shorter than --interval 0.5.*give --every 0.5 or more"
for bad in 0 abc -1; do
  run_mptrain doctor --every "$bad" --duration 1
  expect_usage_error "--every"
done

run_mptrain doctor --every 500ms --interval 0.25 --fail-on never -- "$BURN" 1 3
expect_code 0
line='^\[ *[0-9]+\.[0-9]{1,3} s\] (healthy|inconclusive|warning|oversubscribed) +runnable [0-9.]+  waiting [0-9.]+  wait/slice [0-9.e+-]+ ms  cpu [0-9]+%  switches [0-9]+/s vol [0-9]+/s invol  loss ([0-9]+%|-)  top [a-z_-]+'
lines=$(grep -cE "$line" "$WORK/err")
# 3 s of burning in 0.5 s periods: about 6 lines (a last partial period prints none).
(( lines >= 4 && lines <= 7 )) || { cat "$WORK/err" >&2; fail "expected about 6 lines for 3 s every 0.5 s, got $lines"; }
grep -E "$line" "$WORK/err" | sed -E 's/^\[ *([0-9.]+) s\].*/\1/' >"$WORK/times"
sort -n -c "$WORK/times" || fail "the lines' times do not increase"
grep -q '^verdict: ' "$WORK/out" || fail "no report after the lines"
