# Helpers for the tune end-to-end tests (sourced; not a test itself).

# build_forked_pools: compiles programs/forked_pools.c into $WORK/forked_pools.
build_forked_pools() {
  gcc -O2 -fopenmp "$(dirname "${BASH_SOURCE[0]}")/programs/forked_pools.c" -o "$WORK/forked_pools" ||
    fail "cannot build forked_pools.c with gcc -fopenmp"
}

# make_ticker SECONDS: writes $WORK/ticker, a program that prints "tick"
# every SECONDS until it is stopped; its rate is the same under any launch.
make_ticker() {
  printf '#!/bin/sh\nwhile :; do echo tick; sleep %s; done\n' "$1" >"$WORK/ticker"
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
