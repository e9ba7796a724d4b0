# --dry-run prints each rank's exact command line, CPUs, memory policy and
# variables, and starts nothing. Running the printed lines by hand gives each
# rank the same variables, CPUs and memory policy as a real launch; the JSON
# form (`ranks`) holds the same.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
need_cpus 2

# What a worker reports: every variable but the shell's own and the two
# that name the launching mptrain (its pid, and its tree table's path under
# /proc/PID/fd), which a dry run leaves out, its CPUs, its memory policy.
probe='env | grep -Ev "^(_|SHLVL|OLDPWD|MPTRAIN_PLACE_LAUNCHER|MPTRAIN_PLACE_TABLE)=" | sort
sed -n "s/^Cpus_allowed_list:[[:space:]]*/ALLOWED=/p" /proc/self/status
awk "NR == 1 { print \"POLICY=\" \$2 }" /proc/self/numa_maps'

# printed_line RANK: rank RANK's command in the text dry run (a quoted argument may span lines).
printed_line() {
  awk -v rank="$1" '/^# rank / { on = ($3 == rank ":") ; next } on' "$WORK/dry.txt"
}

# compare OPTIONS...: a real launch and the dry run's lines run by hand agree, rank by rank.
compare() {
  run_mptrain run -n 2 --master-port 29917 "$@" -- sh -c "$probe"
  expect_code 0
  for rank in 0 1; do sed -n "s/^\[$rank\] //p" "$WORK/out" >"$WORK/real.$rank"; done

  run_mptrain run -n 2 --master-port 29917 "$@" --dry-run -- sh -c "$probe"
  expect_code 0
  [[ $(grep -c '^# rank ' "$WORK/out") == 2 ]] || { cat "$WORK/out" >&2; fail "the dry run does not show 2 ranks"; }
  cp "$WORK/out" "$WORK/dry.txt"
  for rank in 0 1; do
    line=$(printed_line $rank)
    sh -c "$line" >"$WORK/hand.$rank" 2>&1 || fail "rank $rank's printed line failed: $line"
    diff "$WORK/real.$rank" "$WORK/hand.$rank" >&2 || fail "rank $rank by hand differs from the real launch ($*)"
  done

  run_mptrain run -n 2 --master-port 29917 "$@" --dry-run --json -- sh -c "$probe"
  expect_code 0
  for rank in 0 1; do
    # Every variable the JSON lists is what the worker saw, and its command line is the text's.
    jq -r ".ranks[$rank].env | to_entries[] | \"\(.key)=\(.value)\"" "$WORK/out" | sort >"$WORK/json.$rank"
    comm -23 "$WORK/json.$rank" <(sort "$WORK/real.$rank") | grep . && fail "rank $rank's JSON env is not what it saw"
    line=$(printed_line $rank)
    [[ $(json ".ranks[$rank].command_line") == "$line" ]] || fail "rank $rank's JSON command line differs from the text"
    jq -e --arg probe "$probe" ".ranks[$rank].rank == $rank and .ranks[$rank].argv == [\"sh\", \"-c\", \$probe]" \
      "$WORK/out" >/dev/null || fail "rank $rank's rank or argv is not the command's"
    cpus=$(grep '^ALLOWED=' "$WORK/real.$rank" | cut -d= -f2)
    expect_json ".ranks[$rank].cpus == \"$cpus\""
  done
}

compare
grep -qx 'POLICY=default' "$WORK/real.0" || fail "the default launch changed the memory policy"
compare --allocator default --omp-bind none -t 1
if command -v numactl >/dev/null; then
  compare --membind 0
  grep -qx 'POLICY=bind:0' "$WORK/real.1" || { cat "$WORK/real.1" >&2; fail "--membind 0 did not bind rank 1's memory"; }
  expect_json '.ranks[1].mems == "0" and .ranks[1].memory_policy == "membind"'
  compare --interleave 0
  grep -qx 'POLICY=interleave:0' "$WORK/real.0" || fail "--interleave 0 did not interleave rank 0's memory"
else
  echo "NOTE: numactl is not installed: the printed lines of --membind/--interleave were not run by hand" >&2
fi

# Nothing runs: a command that would leave a file leaves none.
run_mptrain run -n 2 --dry-run -- touch "$WORK/started"
expect_code 0
[[ ! -e "$WORK/started" ]] || fail "--dry-run started the command"
# A program that does not exist fails the dry run as it would fail the launch.
run_mptrain run -n 2 --dry-run -- no-such-program-here
expect_code 1
expect_stderr "^mptrain: error: cannot run 'no-such-program-here'"
# Output options are checked as for a launch.
run_mptrain run -n 2 --log-dir "$WORK/logs" --tee 0:1,5:2 --dry-run -- true
expect_usage_error '--tee 0:1,5:2 names rank 5'
