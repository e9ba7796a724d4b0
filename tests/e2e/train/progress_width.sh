# On a terminal the progress bar fits the terminal's width: no redraw is
# wider than 80 or 50 columns on such terminals (the shortest form below 60
# columns), and after a resize (SIGWINCH) the redraws fit the new width.
# Each run is on a pseudo-terminal made by util-linux script(1).
# ctest: label long (5 s or more in a Release build, in the programs it runs and the windows it watches: Release stage only)
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/fixtures.bash"
command -v script >/dev/null || skip "no script(1) (util-linux) to make a pseudo-terminal"
command -v stty >/dev/null || skip "no stty to size the pseudo-terminal"
make_small_data 512 32

# The session on the terminal: sized $1 columns, training until SIGINT; with
# $2, resized to $2 columns midway, marked by a line "RESIZED".
cat >"$WORK/session.sh" <<'SESSION'
source "$MPTRAIN_SOURCE_DIR/tests/e2e/lib.sh"
source "$MPTRAIN_SOURCE_DIR/tests/e2e/train/fixtures.bash"
stty cols "$1" rows 24
"$MPTRAIN" run -n 1 -t 1 --data "$DATA" --model logreg --epochs 1000000 >/dev/null &
parent=$!
wait_for_workers "$parent" 1 >/dev/null || exit 1
sleep 1.5
if [[ -n "${2:-}" ]]; then
  stty cols "$2"
  printf '\nRESIZED\n'
  sleep 2
fi
kill -INT "$parent"
wait "$parent"
SESSION

# on_terminal COLUMNS [RESIZE]: runs the session; the terminal's output goes to $WORK/tty.
on_terminal() {
  DATA="$WORK/data" MPTRAIN_SOURCE_DIR="$MPTRAIN_SOURCE_DIR" \
    script -qfec "bash $WORK/session.sh $*" /dev/null </dev/null >"$WORK/tty" 2>&1
  local code=$?
  [[ $code -eq 130 ]] || { cat -v "$WORK/tty" >&2; fail "the session on $1 columns ended with $code, not 130 (SIGINT)"; }
}

# bars [after]: the bar's redraws (the pieces between carriage returns and
# newlines showing a percentage), all of them or only those after "RESIZED".
bars() {
  tr '\r' '\n' <"$WORK/tty" | awk -v after="${1:-}" 'after == "" || seen { if (/%/) print } /^RESIZED$/ { seen = 1 }'
}

# expect_fits WIDTH: every redraw listed on stdin (not a pipe: it must fail this shell) is at most WIDTH columns, and there is one.
expect_fits() {
  local lines
  lines=$(cat)
  [[ -n "$lines" ]] || { cat -v "$WORK/tty" >&2; fail "no progress bar was drawn"; }
  local longest
  longest=$(awk '{ if (length($0) > max) max = length($0) } END { print max + 0 }' <<<"$lines")
  ((longest <= $1)) || { cat -v "$WORK/tty" >&2; fail "a redraw is $longest columns wide on a $1-column terminal"; }
}

on_terminal 80
expect_fits 80 < <(bars)
bars | grep '^\[#*\.*\] ' >/dev/null || fail "no bar on an 80-column terminal: $(bars | head -n 1)"

on_terminal 50
expect_fits 50 < <(bars)
bars | grep -Eqv '^ *[0-9]+%  loss [^ ]+  [a-z]+ *$' && fail "not the shortest form on 50 columns: $(bars | head -n 1)"

# Resized from 120 to 60 columns: after the first redraw (which may have
# been under way), every redraw fits 60 columns.
on_terminal 120 60
bars | grep '.\{81\}' >/dev/null || fail "the bar does not use a wide terminal: $(bars | head -n 1)"
expect_fits 60 < <(bars after | tail -n +2)
exit 0
