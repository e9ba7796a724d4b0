# --budget bounds the whole search; SIGINT to tune stops the trial running
# (nothing outlives it) and reports what was measured, exit 130.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/fixtures.bash"
make_ticker 0.1

start=$(date +%s%N)
run_mptrain tune --json --warmup 0.5 --trial 1 --budget 8 --progress tick -- "$WORK/ticker"
end=$(date +%s%N)
expect_code 0
expect_json '.budget_seconds == 8 and .elapsed_seconds <= 8'
(( (end - start) / 1000000 < 8000 + 4000 )) || fail "a search with --budget 8 took $(( (end - start) / 1000000 )) ms"
expect_nothing_left "$WORK/ticker"

"$MPTRAIN" tune --json --warmup 0.5 --trial 2 --budget 300 --progress tick -- "$WORK/ticker" >"$WORK/out" 2>"$WORK/err" &
tune=$!
for _ in $(seq 100); do grep -q 'trial 2 ' "$WORK/err" && break; sleep 0.1; done
kill -INT "$tune"
wait "$tune"
code=$?
expect_code 130
expect_json '.interrupted_by_signal == 2'
expect_json '[.candidates[] | select(.trials > 0)] | length >= 2'
expect_nothing_left "$WORK/ticker"
