# Helpers for the launcher's end-to-end scripts (sourced after ../lib.sh; the
# .bash suffix keeps this file from being registered as a test itself).

# need_cpus M: skips unless `mptrain plan -n M` works here (M usable CPUs).
need_cpus() {
  "$MPTRAIN" plan -n "$1" >/dev/null 2>&1 || skip "fewer than $1 usable CPUs for -n $1"
}

# alive PID: true while PID exists and is not a zombie.
alive() {
  local state
  state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
  [[ -n "$state" && "$state" != Z ]]
}

# wait_for SECONDS COMMAND...: polls COMMAND every 50 ms until it succeeds; false on timeout.
wait_for() {
  local deadline=$((SECONDS + $1))
  shift
  until "$@"; do
    ((SECONDS < deadline)) || return 1
    sleep 0.05
  done
}

# files_exist PATTERN...: true when every argument names an existing file.
files_exist() {
  local f
  for f in "$@"; do [[ -s "$f" ]] || return 1; done
}

# none_alive PID...: true when none of the PIDs is alive.
none_alive() {
  local pid
  for pid in "$@"; do ! alive "$pid" || return 1; done
}
