# Odd values are refused with a message that says what to do: nothing or an
# empty word after --, --usable-cpus above the CPUs online, a --pid that is no
# number or a zombie, a /proc that cannot be read under MPTRAIN_FSROOT, an
# --interval out of bounds, a --warn-* threshold above its --max-*. A bare
# --interval number is seconds.
# ctest: timeout 90
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../launch/common.bash"
# Whatever this script started in the background goes when it ends.
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$WORK"' EXIT

refused 2 "nothing to run after '--'" doctor --
refused 2 "nothing to run after '--'" doctor --json --duration 0.1 --
refused 2 "the command after '--' is an empty word" doctor -- ''

online=$(getconf _NPROCESSORS_ONLN)
refused 2 "--usable-cpus $((online + 1)): this machine has only $online CPUs? online; give at most $online" doctor \
  --usable-cpus $((online + 1)) --duration 0.1
refused 2 "--usable-cpus 999" doctor --usable-cpus 999 --duration 0.1
refused 2 "1.5 is not a whole number" doctor --usable-cpus 1.5
refused 2 "--pid.*1.5 is not a whole number" doctor --pid 1.5
refused 2 "--pid.*0 is not at least 1" doctor --pid 0
refused 2 "--pid.*abc is not a whole number" doctor --pid abc
refused 2 "--pid.*-3 is not at least 1" doctor --pid=-3

# A zombie: a child of bash exits once its parent has become `sleep 600`,
# which never reaps it. (A child that exits at once can be reaped by bash
# itself before the exec, and is no zombie.)
bash -c 'until [ -e "$1.go" ]; do sleep 0.05; done & echo $! >"$1"; exec sleep 600' zombie-maker "$WORK/zombie" \
  >/dev/null 2>&1 &
maker=$!
exec_done() { [[ -s "$WORK/zombie" && $(cat "/proc/$maker/comm" 2>/dev/null) == sleep ]]; }
wait_for 30 exec_done || fail "the zombie's parent did not become sleep"
touch "$WORK/zombie.go"
is_zombie() { [[ $(awk '{print $3}' "/proc/$(cat "$WORK/zombie")/stat" 2>/dev/null) == Z ]]; }
wait_for 30 is_zombie || fail "no zombie was made"
zombie=$(cat "$WORK/zombie")
refused 2 "--pid $zombie: process $zombie \(bash\) is a zombie.*parent \(pid $maker\)" doctor --pid "$zombie" --duration 0.1
kill "$maker"

# No /proc under MPTRAIN_FSROOT: a failure naming the variable, not "healthy".
MPTRAIN_FSROOT=/nonexistent refused 1 "MPTRAIN_FSROOT=/nonexistent: .*proc/stat" doctor --duration 0.1
mkdir "$WORK/empty-root"
MPTRAIN_FSROOT="$WORK/empty-root" refused 1 "MPTRAIN_FSROOT=$WORK/empty-root: " doctor --duration 0.1 --json
MPTRAIN_FSROOT=/nonexistent refused 1 "MPTRAIN_FSROOT=/nonexistent" doctor --fail-on never -- true

# --interval: seconds, or a number with ms or s; 50ms to 60s.
for interval in 0.5 0.05 250ms 1s; do
  run_mptrain doctor --duration 0.2 --interval "$interval" --fail-on never --json
  expect_code 0
  expect_json '.verdict'
done
for interval in 0.001 5ms 10ms 0.049 61 61s nan nans inf -1 '' 1m 0.5h; do
  refused 2 "--interval" doctor --interval "$interval" --duration 0.1
done
refused 2 "5ms is not from 50ms to 60s" doctor --interval 5ms
refused 2 "0.001 is not from 50ms to 60s" doctor --interval 0.001

# A warning threshold above its maximum is named with both values.
refused 2 "--warn-demand-ratio 5 is above --max-demand-ratio 2" doctor --warn-demand-ratio 5 --max-demand-ratio 2
refused 2 "--warn-throughput-loss 0.9 is above --max-throughput-loss 0.5" doctor \
  --warn-throughput-loss 0.9 --max-throughput-loss 0.5
refused 2 "--warn-throttle-ratio 0.8 is above --max-throttle-ratio 0.1" doctor \
  --warn-throttle-ratio 0.8 --max-throttle-ratio 0.1
refused 2 "--warn-demand-ratio.*inf is not a finite number" doctor --warn-demand-ratio inf
