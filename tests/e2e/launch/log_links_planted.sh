# Links planted where mptrain writes its own files inside --log-dir (another
# user's, in a shared directory) are never written through, in any layout:
# attempt-A/rank-R.out with --max-restarts (it overwrote the link's target,
# a root-owned file) and the attempt-A folder itself (torchrun's layout sits
# in a folder with a random name, which no one can plant ahead). The link is
# replaced by mptrain's own file or folder; its target is left as it was.
source "$(dirname "$0")/../lib.sh"
printf 'precious\n' >"$WORK/victim"
mkdir -p "$WORK/elsewhere"
# intact: the victim file still holds its one line and nothing was written into the other folder.
intact() {
  [[ $(cat "$WORK/victim") == precious ]] || fail "$1: a planted link was written through: $(cat "$WORK/victim")"
  [[ -z $(ls -A "$WORK/elsewhere") ]] || fail "$1: a planted folder link was written into: $(ls -A "$WORK/elsewhere")"
}

# planted_run NAME LINK TARGET: in a new --log-dir $WORK/NAME, LINK (relative to it) is a link to
# TARGET; a run with --max-restarts 1 succeeds and writes through neither; the log is mptrain's own.
planted_run() {
  logs="$WORK/$1"
  mkdir -p "$(dirname "$logs/$2")"
  ln -s "$3" "$logs/$2"
  run_mptrain run -n 1 --max-restarts 1 --log-dir "$logs" -- sh -c 'echo written'
  expect_code 0
  intact "$2"
  [[ ! -L "$logs/$2" ]] || fail "$2 is still the planted link"
  grep -q '^written$' "$logs/attempt-0/rank-0.out" || fail "the log lost the worker's output"
}
planted_run restarts attempt-0/rank-0.out "$WORK/victim"
[[ -f "$logs/attempt-0/rank-0.out" ]] || fail "attempt-0/rank-0.out is not mptrain's own file"
planted_run folder attempt-0 "$WORK/elsewhere"
[[ -d "$logs/attempt-0" ]] || fail "attempt-0 is not mptrain's own folder"

echo PASS
