# --pid of a kernel thread is refused (there is no job to judge); a --pid
# that exits before --duration is over is said, not silently cut short.
source "$(dirname "$0")/../lib.sh"

kthread=$(awk '$2 == "(kthreadd)" {print $1; exit}' /proc/[0-9]*/stat 2>/dev/null)
[[ -n $kthread ]] || kthread=2
[[ $(cat /proc/$kthread/comm 2>/dev/null) == kthreadd ]] || fail "no kthreadd found to watch (pid $kthread)"
run_mptrain doctor --pid "$kthread" --duration 0.3
expect_usage_error "--pid $kthread: kthreadd is a kernel thread, not a process of a job"

sleep 3 &
short=$!
run_mptrain doctor --pid "$short" --duration 8 --json
expect_code 0
expect_stderr "^mptrain doctor: the watched process exited after [0-9.]+ s of the 8 s asked for; the report covers the time it ran$"
expect_json '.verdict'
echo PASS
