# mptrain-run(1) renders cleanly: the initialisation bound reads
# "±1/sqrt(fan_in)" (not a square glyph and "rtfan_in"), the launcher's
# worker keys are not quotes nested in quotes, mandoc finds no warning, and
# the training faults (a worker's death, divergence, per-epoch snapshots) are
# documented.
source "$(dirname "$0")/../lib.sh"
page="$MPTRAIN_SOURCE_DIR/man/mptrain-run.1"
if command -v mandoc >/dev/null; then
  mandoc -Tlint -Wwarning "$page" >"$WORK/lint" 2>&1 || { cat "$WORK/lint" >&2; fail "mandoc -Tlint warns"; }
  mandoc -Tutf8 "$page" | col -bx >"$WORK/page"
elif command -v man >/dev/null; then
  MANWIDTH=80 man -l "$page" 2>/dev/null | col -bx >"$WORK/page"
else
  skip "neither mandoc nor man to render the page"
fi
[[ -s "$WORK/page" ]] || fail "the page rendered empty"

grep -q 'rtfan_in' "$WORK/page" && fail "\\(sq renders before 'rtfan_in': $(grep rtfan_in "$WORK/page")"
grep -q '1/sqrt(fan_in)' "$WORK/page" || fail "no 1/sqrt(fan_in) in: $(grep -i 'uniform' -A1 "$WORK/page")"
grep -Eq "(’’|''|‘‘)" "$WORK/page" && fail "nested quotes: $(grep -E "(’’|''|‘‘)" "$WORK/page")"
grep -q '(rank, pid, cpus, wall_seconds,' "$WORK/page" || fail "the launcher's worker keys do not read as a plain list"

# The training faults and what mptrain does about them (read as one line, words hyphenated at line ends joined).
sed -z 's/‐\n *//g; s/\n/ /g' "$WORK/page" | tr -s ' ' >"$WORK/text"
for words in 'Faults during training' 'saved as the workers left it' "exits with the worker's code" \
  'Training diverged when a batch' 'nothing is saved' 'copies the parameters into a snapshot' \
  'fits the terminal' 'below 60 columns' 'save_error' 'failed_rank'; do
  grep -qF "$words" "$WORK/text" || fail "mptrain-run(1) does not say: $words"
done
exit 0
