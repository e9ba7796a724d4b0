# mptrain SIGKILLed moments after it starts, while it makes the run's
# cgroup or has just made it, leaves no cgroup behind: its watchdog starts
# first, knowing where the cgroup will be.
source "$(dirname "$0")/../lib.sh"
mounts=$(findmnt -t cgroup2,cgroup -n -o TARGET 2>/dev/null | tr '\n' ' ')
[[ -n $mounts ]] || skip "no cgroup mount here"
left=()
# A sleep no other test runs, so that the cleanup below ends only this script's.
nap=29.$$
for delay in 0.002 0.005 0.008 0.01 0.012 0.015 0.02 0.025 0.03 0.04; do
  "$MPTRAIN" run -n 1 -- sleep "$nap" >/dev/null 2>&1 &
  pid=$!
  sleep "$delay"
  kill -KILL "$pid"
  wait "$pid" 2>/dev/null
  for _ in $(seq 40); do
    found=$(find $mounts -maxdepth 6 -type d -name "mptrain-run-$pid-*" 2>/dev/null)
    [[ -z $found ]] && break
    sleep 0.05
  done
  [[ -z $found ]] || left+=("$found (killed after $delay s)")
done
pkill -f "^sleep $nap\$" 2>/dev/null
[[ ${#left[@]} -eq 0 ]] || fail "run cgroups left behind: ${left[*]}"
exit 0
