# A progress bar a worker redraws with carriage returns (tqdm's way) is
# passed on live, read from mptrain's stderr while the program runs: each
# whole update tagged with its rank, drawn over the previous one. A line of
# another rank, or mptrain's own line, never joins the open bar: the bar's
# line is ended first, and its next update starts afresh. The log file
# keeps the program's bytes as they were.
source "$(dirname "$0")/../lib.sh"
cat >"$WORK/bar.sh" <<'SH'
if [ "$RANK" = 0 ]; then
  printf '\r 10%%|#' >&2
  sleep 2
  printf '\r 20%%|##' >&2
  sleep 60
else
  sleep 1
  echo "rank 1 here" >&2
  sleep 60
fi
SH

# waits_for BYTES SECONDS: $WORK/err holds BYTES (printf-style) within SECONDS, or fail showing it.
waits_for() {
  local want seen
  want=$(printf "$1" && echo x)
  want=${want%x}
  for _ in $(seq $(($2 * 10))); do
    seen=$(cat "$WORK/err" && echo x)
    [[ "${seen%x}" == *"$want"* ]] && return 0
    sleep 0.1
  done
  fail "after $2 s mptrain's stderr does not hold $(printf '%q' "$want"): $(cat -v "$WORK/err")"
}

start_mptrain run -n 2 -t 1 --log-dir "$WORK/logs" --tee 2 -- sh "$WORK/bar.sh"
# The first update is on the console before the program draws the next one (2 s later).
waits_for '\r[0]  10%%|#' 2
# Rank 1's line ends rank 0's open bar first; the bar's next update starts on a line of its own.
waits_for '\r[0]  10%%|#\n[1] rank 1 here\n' 3
waits_for '[1] rank 1 here\n\r[0]  20%%|##' 3
signal_and_wait TERM
# mptrain's own lines (its stop report) start on a line of their own, not glued to the bar.
grep -q $'20%|##mptrain' "$WORK/err" && fail "mptrain's line joined the bar: $(cat -v "$WORK/err")"
cmp -s "$WORK/logs/rank-0.err" <(printf '\r 10%%|#\r 20%%|##') ||
  fail "the log file does not hold the program's bytes: $(cat -v "$WORK/logs/rank-0.err")"
echo PASS
