# Helpers for the tune end-to-end tests (sourced; not a test itself).

# build_forked_pools: programs/forked_pools.c (built by CMake) as $WORK/forked_pools.
build_forked_pools() { use_program forked_pools forked_pools; }

# make_ticker SECONDS: writes $WORK/ticker, a program that prints "tick"
# every SECONDS until it is stopped; its rate is the same under any launch
# and any load: each tick waits for its own deadline (start + k SECONDS), so
# a late wake-up never delays the ticks after it.
make_ticker() {
  cat >"$WORK/ticker" <<EOF_TICKER
#!/usr/bin/python3
import sys, time
period = $1
deadline = time.monotonic()
while True:
    print("tick", flush=True)
    deadline += period
    time.sleep(max(0.0, deadline - time.monotonic()))
EOF_TICKER
  chmod +x "$WORK/ticker"
}

# expect_nothing_left PATTERN: no process whose command line matches PATTERN
# outlived the trials (waits up to 2 s for the last teardown).
expect_nothing_left() {
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    pgrep -f "$1" >/dev/null || return 0
    sleep 0.2
  done
  ps -ef | grep -F "$1" >&2
  fail "processes of '$1' outlived the trials"
}

# budget_for SECONDS TRIALS: a --budget of SECONDS plus what TRIALS launches of this build cost beyond
# the program (a sanitizer build starts and stops mptrain for seconds, a release build for milliseconds),
# so that a test's search runs the same rounds in any build.
budget_for() {
  local start end
  start=$(date +%s%N)
  "$MPTRAIN" run --quiet -- true >/dev/null 2>&1 || fail "mptrain run -- true failed"
  "$MPTRAIN" doctor --fail-on never -- true >/dev/null 2>&1 || fail "mptrain doctor -- true failed"
  end=$(date +%s%N)
  awk -v s="$1" -v t="$2" -v ns=$((end - start)) 'BEGIN { printf "%d", s + t * ns / 2e9 + 0.999 }'
}
