# What the workers leave behind ends with a run that fails or is stopped:
# a setsid process that ignores SIGTERM gets SIGKILL after --grace, and
# mptrain still exits with the worker's code (a failure) or 128 + the signal.
# ctest: timeout 120
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
trap 'kill -9 $(cat "$WORK"/pid.* 2>/dev/null) 2>/dev/null; rm -rf "$WORK"' EXIT
export OUT=$WORK

cat >"$WORK/w.sh" <<'SCRIPT'
#!/bin/bash
setsid sh -c 'trap "" TERM; echo $$ >"$OUT/pid.stubborn.$RANK"; while :; do sleep 0.1; done' &
sh -c 'sh -c "echo \$\$ >\"$OUT/pid.daemon.$RANK\"; exec sleep 63" &'
until [[ -s $OUT/pid.stubborn.$RANK && -s $OUT/pid.daemon.$RANK ]]; do sleep 0.05; done
echo started >"$OUT/started.$RANK"
[[ $1 == fail ]] && exit 3
exec sleep 60
SCRIPT
chmod +x "$WORK/w.sh"

# A failing worker.
run_mptrain run -n 1 --grace 0.5 -- "$WORK/w.sh" fail
expect_code 3
for pid in $(cat "$WORK"/pid.*); do ! alive "$pid" || fail "pid $pid outlived a failed run"; done

# SIGTERM to mptrain.
rm -f "$WORK"/pid.* "$WORK"/started.*
start_mptrain run -n 2 --grace 0.5 -- "$WORK/w.sh"
wait_for 30 files_exist "$WORK/started.0" "$WORK/started.1" || fail "workers did not start"
signal_and_wait TERM
expect_code 143
for pid in $(cat "$WORK"/pid.*); do ! alive "$pid" || fail "pid $pid outlived a run stopped by SIGTERM"; done
