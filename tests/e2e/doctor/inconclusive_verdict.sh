# Too few samples are the verdict `inconclusive`, never `healthy`: in
# the JSON (measured false, an evidence note), on the text report's first
# line, on the --every line and on the run's monitor line. It exits 0,
# even under --fail-on warning; 3 only under --fail-on inconclusive. A
# measured verdict has no such words.
# ctest: label long (5 s or more in a Release build, in the programs it runs and the windows it watches: Release stage only)
source "$(dirname "$0")/../lib.sh"

# A sleeping process watched by --pid: it ran nothing.
sleep 30 &
sleeper=$!
trap 'kill $sleeper 2>/dev/null; rm -rf "$WORK"' EXIT
run_mptrain doctor --json --duration 0.6 --interval 0.2 --pid "$sleeper"
expect_code 0
expect_json '.verdict == "inconclusive" and .measured == false and (.evidence | type == "string")'
run_mptrain doctor --duration 0.6 --interval 0.2 --pid "$sleeper"
expect_code 0
head -1 "$WORK/out" | grep -Eq '^verdict: inconclusive \(too little evidence, see "evidence" below\)$' ||
  fail "first line: $(head -1 "$WORK/out")"
grep -q '^  evidence:               too little: ' "$WORK/out" || fail "no evidence line: $(cat "$WORK/out")"
! grep -q 'healthy' "$WORK/out" || fail "too little evidence called healthy: $(cat "$WORK/out")"
run_mptrain doctor --quiet --duration 0.6 --interval 0.2 --pid "$sleeper"
expect_code 0
[[ $(cat "$WORK/out") == 'verdict: inconclusive (too little evidence)' ]] || fail "--quiet: $(cat "$WORK/out")"

# The gate: warning does not take it in, inconclusive does (exit 3, and says why).
run_mptrain doctor --fail-on warning --duration 0.6 --interval 0.2 --pid "$sleeper"
expect_code 0
run_mptrain doctor --fail-on inconclusive --json --duration 0.6 --interval 0.2 --pid "$sleeper"
expect_code 3
expect_json '.verdict == "inconclusive"'

# The --every line (a second of sleep: several periods even where sampling is slow, as under a sanitizer).
run_mptrain doctor --interval 0.1 --every 0.2 -- sleep 1
expect_code 0
expect_stderr '^\[ *[0-9.]+ s\] inconclusive +runnable .*  \(too little evidence\)$'

# A measured verdict (a CPU-bound loop for 1.5 s): no such words, and --fail-on inconclusive passes it.
run_mptrain doctor --fail-on inconclusive -- sh -c 'timeout 1.5 sh -c "while :; do :; done"; exit 0'
if ! grep -q 'evidence:               too little' "$WORK/out"; then
  expect_code 0
  head -1 "$WORK/out" | grep 'inconclusive' >/dev/null && fail "a measured verdict called inconclusive: $(cat "$WORK/out")"
fi

# The run's monitor line (a sleeping worker watched under a second: too few samples, no CPU used).
run_mptrain run -n 1 -t 1 -- sleep 0.6
expect_code 0
expect_stderr '^monitor verdict: inconclusive \(too little evidence, see "evidence" below\)$'
# Watched longer, the same sleeper is healthy: watched enough, nothing waited, and it says it slept.
run_mptrain run -n 1 -t 1 -- sleep 2
expect_code 0
expect_stderr '^monitor verdict: healthy \(watched [0-9.]+ s; '
run_mptrain run -n 1 -t 1 --verbose -- sleep 2
expect_code 0
expect_stderr '^monitor verdict: healthy$'
expect_stderr '^    evidence: +the job mostly slept \('

echo PASS
