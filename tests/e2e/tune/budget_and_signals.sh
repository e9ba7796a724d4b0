# --budget bounds the whole search; SIGINT to tune stops the trial running
# (nothing outlives it) and reports what was measured, exit 130.
# ctest: label long (5 s or more in a Release build, in the programs it runs and the windows it watches: Release stage only)
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/fixtures.bash"
make_ticker 0.1

start=$(date +%s%N)
run_mptrain tune --json --warmup 0.5 --trial 1 --budget 8 --progress tick -- "$WORK/ticker"
end=$(date +%s%N)
expect_code 0
expect_json '.budget_seconds == 8 and .elapsed_seconds <= 8'
expect_json '.skipped | length == (unique | length)'
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

# A program that ignores SIGTERM costs each trial tune's short grace (2 s, then SIGKILL), not run's 10 s:
# the search keeps near its budget.
start=$(date +%s%N)
run_mptrain tune --json --warmup 0.3 --trial 0.7 --budget 6 --progress tick -- \
  /bin/bash -c 'trap "" TERM; exec "$0"' "$WORK/ticker"
end=$(date +%s%N)
expect_code 0
(((end - start) / 1000000 < 6000 + 4000)) || fail "a search with --budget 6 took $(((end - start) / 1000000)) ms"
expect_nothing_left "$WORK/ticker"

# Nothing left behind: a tune killed by SIGKILL leaves its folder, which the next tune removes (nobody
# holds its lock); a folder another tune holds stays; a tune whose reader went away (| head -1) stops,
# SIGPIPE taken as SIGTERM, and removes its own.
export TMPDIR=$WORK/tmp
mkdir -p "$TMPDIR"
"$MPTRAIN" tune --warmup 0.3 --trial 1 --budget 300 --progress tick -- "$WORK/ticker" >/dev/null 2>"$WORK/err" &
tune=$!
for _ in $(seq 100); do grep -q 'trial 1 ' "$WORK/err" && break; sleep 0.1; done
kill -KILL "$tune"
wait "$tune"
killed=("$TMPDIR"/mptrain-tune-*)
[[ -d "${killed[0]}" ]] || fail "no folder of the killed tune in $TMPDIR"
expect_nothing_left "$WORK/ticker"
mkdir "$TMPDIR/mptrain-tune-held"
exec {held}<"$TMPDIR/mptrain-tune-held"
flock -n "$held" || fail "cannot lock $TMPDIR/mptrain-tune-held"
touch -d '1 minute ago' "${killed[0]}" "$TMPDIR/mptrain-tune-held"
sleep 0.2
"$MPTRAIN" tune --warmup 0.3 --trial 0.5 --budget 60 --progress tick -- "$WORK/ticker" 2>&1 | head -1 >"$WORK/first"
piped=${PIPESTATUS[0]}
((piped == 143)) || fail "a tune whose reader went away exited $piped, not 143 (stopped as by SIGTERM)"
grep -q '^mptrain: tune: trial 1 ' "$WORK/first" || fail "the first line was not trial 1's: $(cat "$WORK/first")"
left=$(cd "$TMPDIR" && echo mptrain-tune-*)
[[ "$left" == mptrain-tune-held ]] || fail "left in \$TMPDIR: $left (expected the held folder alone)"
expect_nothing_left "$WORK/ticker"
