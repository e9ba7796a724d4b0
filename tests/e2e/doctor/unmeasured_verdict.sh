# A healthy verdict that rests on too little evidence says "not measured" on
# its own line (the first word stays "healthy", which scripts grep): the
# report's first line, the --every line and the run's monitor line. A
# measured healthy verdict has no such words.
source "$(dirname "$0")/../lib.sh"

qualifier='\(not measured: too little evidence, see "evidence" below\)'
run_mptrain doctor --duration 0.2 -- sleep 1
expect_code 0
head -1 "$WORK/out" | grep -Eq "^verdict: healthy $qualifier$" || fail "first line: $(head -1 "$WORK/out")"
grep -q '^  evidence:               too little: ' "$WORK/out" || fail "no evidence line: $(cat "$WORK/out")"
# (a second of sleep: several periods even where sampling is slow, as under a sanitizer)
run_mptrain doctor --interval 0.1 --every 0.2 -- sleep 1
expect_code 0
expect_stderr '^\[ *[0-9.]+ s\] healthy +runnable .*  \(not measured: too little evidence\)$'
# --json is unchanged: measured false and the note.
run_mptrain doctor --json --duration 0.2 -- sleep 1
expect_json '.verdict == "healthy" and .measured == false and (.evidence | type == "string")'
# A measured verdict (a CPU-bound loop for 1.5 s): no such words.
run_mptrain doctor --fail-on never -- sh -c 'timeout 1.5 sh -c "while :; do :; done"; exit 0'
expect_code 0
if ! grep -q 'evidence:               too little' "$WORK/out"; then
  head -1 "$WORK/out" | grep -q 'not measured' && fail "a measured verdict called not measured: $(cat "$WORK/out")"
fi
# The run's monitor line (a sleeping worker: a few intervals, no CPU used).
run_mptrain run -n 1 -t 1 -- sleep 1.5
expect_code 0
expect_stderr "^monitor verdict: healthy $qualifier$"
echo PASS
