# An mptrain run inside a worker, left running in the background with a
# setsid process of its own, ends with the outer run: the inner mptrain gets
# SIGTERM and ends its workers; nothing of either run is left, no cgroup either.
# ctest: timeout 120
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
trap 'kill -9 $(cat "$WORK"/pid.* 2>/dev/null) 2>/dev/null; rm -rf "$WORK"' EXIT
export OUT=$WORK MPTRAIN

cat >"$WORK/w.sh" <<'SCRIPT'
#!/bin/bash
"$MPTRAIN" run -n 1 -- sh -c 'echo $$ >"$OUT/pid.worker"; setsid sh -c "echo \$\$ >\"$OUT/pid.setsid\"; exec sleep 77" & exec sleep 78' >"$OUT/inner.log" 2>&1 &
echo $! >"$OUT/pid.inner"
until [[ -s $OUT/pid.setsid && -s $OUT/pid.worker ]]; do sleep 0.05; done
SCRIPT
chmod +x "$WORK/w.sh"
run_mptrain run -n 1 -- "$WORK/w.sh"
expect_code 0
pids=$(cat "$WORK"/pid.*)
[[ $(wc -w <<<"$pids") == 3 ]] || fail "the inner run did not start"
for pid in $pids; do ! alive "$pid" || fail "pid $pid of the inner run outlived the outer run"; done
grep -q 'killed by SIGTERM' "$WORK/inner.log" || { cat "$WORK/inner.log" >&2; fail "the inner run did not stop its worker"; }
