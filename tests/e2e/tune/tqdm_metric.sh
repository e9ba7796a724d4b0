# A real tqdm bar (Debian's python3-tqdm), redrawn with carriage returns on
# stderr, is read with --metric as iterations per second: tqdm's "it/s", and
# its "s/it" below one iteration a second, read as a rate.
# ctest: label long (5 s or more in a Release build, in the programs it runs and the windows it watches: Release stage only)
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/fixtures.bash"
/usr/bin/python3 -c 'import tqdm' 2>/dev/null || skip "no tqdm for /usr/bin/python3 (Debian package python3-tqdm)"
cat >"$WORK/bar.py" <<'PY'
import sys, time
from tqdm import tqdm
slow = len(sys.argv) > 1
for _ in tqdm(range(10**9), mininterval=0.1):
    if slow:
        time.sleep(1.25)
    else:
        sum(range(2000))
PY
budget=$(budget_for 6 2)
slow_budget=$(budget_for 13 2)

run_mptrain tune --json --only-tries --warmup 0.5 --trial 1.5 --budget "$budget" \
  --metric '([0-9.]+)(?:it/s|s/it)' -- /usr/bin/python3 "$WORK/bar.py"
expect_code 0
# The unit is what the bar prints after the number, not "metric".
expect_json '.metric.kind == "it/s" and .metric.higher_is_better == true and .candidates[0].throughput.unit == "it/s"'
expect_json '[.candidates[] | select(.trials > 0) | .throughput.median > 10] | (length >= 2 and all)'
expect_nothing_left "$WORK/bar.py"

# Below one iteration a second tqdm prints seconds per iteration: 1.25s/it reads as 0.8 it/s.
run_mptrain tune --json --only-tries --warmup 3 --trial 3 --budget "$slow_budget" \
  --metric '([0-9.]+)(?:it/s|s/it)' -- /usr/bin/python3 "$WORK/bar.py" slow
expect_code 0
expect_json '[.candidates[] | select(.trials > 0) | .throughput.median | (. > 0.6 and . < 0.9)] | (length >= 1 and all)'
expect_json '.metric.kind == "it/s"'
expect_nothing_left "$WORK/bar.py"
