# No worker outlives a SIGKILLed mptrain.
# ctest: timeout 60
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
need_cpus 2

start_mptrain run -n 2 -- sh -c "echo \$\$ > $WORK/pid.\$RANK; exec sleep 60"
wait_for 20 files_exist "$WORK/pid.0" "$WORK/pid.1" || fail "workers did not start"
pids="$(cat "$WORK/pid.0") $(cat "$WORK/pid.1")"
alive $pids || fail "workers are not running"
signal_and_wait KILL
wait_for 10 none_alive $pids || fail "workers $pids outlived mptrain"
