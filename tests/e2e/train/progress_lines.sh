# Off a terminal, training's progress is a line after the first second and
# then every 2 seconds (a short run used to print one line, at 0%), each
# with the epoch and the time left.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/fixtures.bash"
require_real_data
run_mptrain run -n 1 -t 1 --model cnn --epochs 12
expect_code 0
grep -E '^mptrain: +[0-9]+%  epoch [0-9]+/12  [0-9]+/[0-9]+ samples  [0-9]+ samples/s  (ETA [0-9:]+  )?loss ' "$WORK/err" >"$WORK/lines"
[[ $(wc -l <"$WORK/lines") -ge 2 ]] || { cat "$WORK/err" >&2; fail "fewer than two progress lines in a run of several seconds"; }
grep -q 'ETA [0-9]*:[0-9][0-9] ' "$WORK/lines" || { cat "$WORK/lines" >&2; fail "no line says the time left"; }
! grep -q '^mptrain: +0%' "$WORK/lines" || { cat "$WORK/lines" >&2; fail "a line at 0% was printed"; }
exit 0
