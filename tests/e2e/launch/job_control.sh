# Ctrl-Z (SIGTSTP) stops mptrain and its workers together, as a shell's job
# stops, and SIGCONT (the shell's fg or bg) continues them, for `run -- CMD`
# and `doctor -- CMD` alike: the workers run in a process group of their own,
# which the terminal's Ctrl-Z does not reach, and mptrain alone used to stop
# while they ran on. The command then ends as it would have, nothing lost.
source "$(dirname "$0")/../lib.sh"
# state PID: the state letter of process PID (R, S, T…), empty once it is gone.
state() { awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null; }
# wait_state PID STATES: waits up to 10 s for PID's state to be one of the letters STATES.
wait_state() {
  local _
  for _ in $(seq 100); do
    [[ $(state "$1") == ["$2"] ]] && return 0
    sleep 0.1
  done
  return 1
}
# The worker: a shell that prints 20 numbered lines, one every 0.1 s.
count='for i in $(seq 20); do echo "line $i"; sleep 0.1; done'
for command in "run -n 1 --" "doctor --fail-on never --"; do
  # shellcheck disable=SC2086
  start_mptrain $command sh -c "$count"
  worker=
  for _ in $(seq 100); do
    worker=$(descendants "$launcher" | while read -r pid; do [[ $(cat "/proc/$pid/comm" 2>/dev/null) == sh ]] && echo "$pid"; done | head -1)
    [[ -n $worker ]] && break
    sleep 0.1
  done
  [[ -n $worker ]] || { kill "$launcher"; fail "$command: the worker never started"; }
  kill -TSTP "$launcher"
  wait_state "$launcher" T || { kill -KILL "$launcher"; fail "$command: mptrain did not stop on SIGTSTP"; }
  wait_state "$worker" T || { kill -CONT "$launcher"; kill "$launcher"; fail "$command: the worker ran on while mptrain was stopped"; }
  kill -CONT "$launcher"
  wait_state "$worker" RSD || { kill "$launcher"; fail "$command: the worker was not continued with mptrain"; }
  wait_exit
  expect_code 0
  [[ $(grep -c 'line [0-9]*$' "$WORK/out" "$WORK/err" | awk -F: '{ n += $2 } END { print n }') == 20 ]] ||
    { cat "$WORK/out" "$WORK/err" >&2; fail "$command: lines were lost across the stop"; }
done
echo PASS
