# `doctor --pid PID --pid TID`, TID a thread of PID: the thread stands for
# its process, said once, and the process is watched once (it used to be
# counted as a second process, doubling the runnable threads).
source "$(dirname "$0")/../lib.sh"
python3 -c 'import threading, time
def spin():
    end = time.time() + 30
    while time.time() < end:
        pass
threading.Thread(target=spin, daemon=True).start()
time.sleep(30)' &
job=$!
trap 'kill "$job" 2>/dev/null; rm -rf "$WORK"' EXIT
for _ in $(seq 100); do
  [[ $(ls "/proc/$job/task" 2>/dev/null | wc -l) -ge 2 ]] && break
  sleep 0.05
done
thread=$(ls "/proc/$job/task" | grep -vx "$job" | head -1)
[[ -n $thread ]] || fail "the program started no thread"

run_mptrain doctor --pid "$job" --pid "$thread" --duration 0.5 --json
[[ $code == 0 || $code == 3 ]] || { cat "$WORK/err" >&2; fail "the doctor exited $code"; }
expect_stderr "^mptrain: --pid $thread is a thread of process $job: watching the process"
expect_json "[.processes[] | select(.pid == $job)] | length == 1"
expect_json "[.processes[] | select(.pid == $thread)] | length == 0"
run_mptrain doctor --pid "$thread" --duration 0.3 --json
[[ $code == 0 || $code == 3 ]] || fail "the doctor exited $code for a thread id alone"
expect_json "[.processes[].pid] == [$job]"
exit 0
