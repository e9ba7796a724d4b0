# On a terminal a note printed while the bar is shown (each epoch's test
# accuracy with --eval-every-epoch) replaces the bar's line and the bar is
# drawn again below it: no frozen copy of the bar is left above a note.
# The run is on a pseudo-terminal made by util-linux script(1); what the
# terminal shows is rebuilt from its output (a carriage return goes back to
# the line's start, later text overwrites earlier).
# ctest: label long (5 s or more in a Release build, in the programs it runs and the windows it watches: Release stage only)
source "$(dirname "$0")/../lib.sh"
command -v script >/dev/null || skip "no script(1) (util-linux) to make a pseudo-terminal"

# Epochs of 60,000 samples last longer than the bar's 0.2 s between redraws.
script -qfec "stty cols 100 rows 24; $MPTRAIN run -n 2 --epochs 3 --eval-every-epoch --train-limit 60000" /dev/null \
  </dev/null >"$WORK/tty" 2>&1 || { cat -v "$WORK/tty" >&2; fail "the run on a terminal failed"; }
grep -q 'ETA' "$WORK/tty" || { cat -v "$WORK/tty" >&2; fail "no bar was drawn: this check shows nothing here"; }
# The lines the terminal shows, one per newline, each as its last overwrite left it.
/usr/bin/python3 - "$WORK/tty" >"$WORK/screen" <<'PY'
import sys
for raw in open(sys.argv[1], encoding="utf-8", errors="replace").read().split("\n"):
    line, col = [], 0
    for ch in raw:
        if ch == "\r":
            col = 0
            continue
        if col < len(line):
            line[col] = ch
        else:
            line.append(ch)
        col += 1
    print("".join(line).rstrip())
PY
# Epochs 1 and 2 get a note; the last one's accuracy is the final report's.
notes=$(grep -c '^mptrain: epoch [0-9]*: test accuracy' "$WORK/screen")
((notes == 2)) || { cat "$WORK/screen" >&2; fail "$notes epoch notes shown, not 2"; }
# The line above each note is no bar (a bar shows its ETA).
frozen=$(grep -B1 '^mptrain: epoch [0-9]*: test accuracy' "$WORK/screen" | grep -c 'ETA' || true)
((frozen == 0)) || { cat "$WORK/screen" >&2; fail "$frozen frozen bars left above the epoch notes"; }
exit 0
