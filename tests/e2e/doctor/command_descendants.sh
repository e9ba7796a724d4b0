# `doctor -- CMD` leaves nothing of CMD behind: a background job that left
# CMD's process group (setsid) and a double-forked daemon end with the watch.
# ctest: timeout 60
source "$(dirname "$0")/../lib.sh"
alive() { [[ -e /proc/$1 ]] && [[ $(awk '{print $3}' /proc/"$1"/stat 2>/dev/null) != Z ]]; }
trap 'kill -9 $(cat "$WORK"/pid.* 2>/dev/null) 2>/dev/null; rm -rf "$WORK"' EXIT
export OUT=$WORK
cmd='setsid sh -c "echo \$\$ >$OUT/pid.setsid; exec sleep 61" & sh -c "sh -c \"echo \\\$\\\$ >$OUT/pid.daemon; exec sleep 62\" &"; until [ -s $OUT/pid.setsid ] && [ -s $OUT/pid.daemon ]; do sleep 0.05; done'
run_mptrain doctor --fail-on never -- sh -c "$cmd"
expect_code 0
pids=$(cat "$WORK"/pid.*)
[[ $(wc -w <<<"$pids") == 2 ]] || fail "CMD did not start its two descendants"
for pid in $pids; do ! alive "$pid" || fail "pid $pid outlived doctor -- CMD"; done
