# Off a terminal, training's progress is a line after the first second and
# then every 2 seconds (a short run used to print one line, at 0%), each
# with the epoch and the time left.
# ctest: label long (5 s or more in a Release build, in the programs it runs and the windows it watches: Release stage only)
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/fixtures.bash"
require_real_data

# The run must last several seconds in any build (a sanitizer build trains
# tens of times slower): each try is sized from the rate the last one
# reported, to about 8 seconds; a short probe gives the first rate.
run_mptrain run -n 1 -t 1 --model mlp --train-limit 2000 --epochs 1 --json
expect_code 0
rate=$(json '.samples_per_second | floor')
for try in 1 2 3; do
  (( rate > 0 )) || fail "a run reports no rate"
  limit=$(( rate / 2 ))
  (( limit < 200 )) && limit=200
  (( limit > 60000 )) && limit=60000
  epochs=$(( (rate * 8 + limit - 1) / limit ))
  (( epochs < 2 )) && epochs=2
  run_mptrain run -n 1 -t 1 --model mlp --train-limit "$limit" --epochs "$epochs" --json
  expect_code 0
  grep -E "^mptrain: +[0-9]+%  epoch [0-9]+/$epochs  [0-9]+/[0-9]+ samples  [0-9]+ samples/s  (ETA [0-9:]+  )?loss " \
    "$WORK/err" >"$WORK/lines" || true
  (( $(wc -l <"$WORK/lines") >= 2 )) && break
  # Fewer than two lines: fine only when the run was shorter than 3 seconds.
  awk -v s="$(json .train_seconds)" 'BEGIN { exit !(s < 3) }' ||
    { cat "$WORK/err" >&2; fail "fewer than two progress lines in a run of $(json .train_seconds) s"; }
  rate=$(json '.samples_per_second | floor')
done
[[ $(wc -l <"$WORK/lines") -ge 2 ]] || { cat "$WORK/err" >&2; fail "no try lasted long enough for two progress lines"; }
grep -q 'ETA [0-9]*:[0-9][0-9] ' "$WORK/lines" || { cat "$WORK/lines" >&2; fail "no line says the time left"; }
! grep -q '^mptrain: +0%' "$WORK/lines" || { cat "$WORK/lines" >&2; fail "a line at 0% was printed"; }
exit 0
