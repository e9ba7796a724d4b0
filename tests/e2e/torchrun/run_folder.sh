# The run's folder: a --rdzv-id is one file name inside --log-dir ("../x"
# and "a/b" stay inside, a long id is cut); TORCHELASTIC_ERROR_FILE is an
# absolute path however --log-dir or TMPDIR is spelled, so a worker that
# changes directory still writes it; a TMPDIR that cannot hold the folder
# is named; the temporary folder goes even when mptrain is SIGKILLed.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
cd "$WORK" || fail "cannot enter $WORK"

run_mptrain torchrun --nproc-per-node 1 --rdzv-id ../esc --log-dir ld --no-python true
expect_code 0
[[ -z $(find "$WORK" -maxdepth 1 -name '*esc*') ]] || fail "--rdzv-id ../esc made a folder outside --log-dir"
[[ -n $(find "$WORK/ld" -maxdepth 1 -name '.._esc_*') ]] || { ls -la "$WORK/ld" >&2; fail "no run folder for ../esc in ld"; }
run_mptrain torchrun --nproc-per-node 1 --rdzv-id a/b --log-dir ld --no-python true
expect_code 0
[[ -n $(find "$WORK/ld" -maxdepth 1 -name 'a_b_*') ]] || fail "no run folder for a/b"
run_mptrain torchrun --nproc-per-node 1 --rdzv-id "$(printf 'x%.0s' {1..300})" --log-dir ld --no-python true
expect_code 0

# A relative --log-dir, and a worker that changes directory before writing its error file.
run_mptrain torchrun --nproc-per-node 1 --log-dir rel --no-python sh -c 'cd /; echo "$TORCHELASTIC_ERROR_FILE"'
expect_code 0
grep -q "^\[0\] /.*/rel/.*/attempt_0/0/error.json$" "$WORK/out" || { cat "$WORK/out" >&2; fail "the error file's path is not absolute"; }
mkdir -p tmp
TMPDIR=tmp run_mptrain torchrun --nproc-per-node 1 --no-python sh -c 'cd /; echo "$TORCHELASTIC_ERROR_FILE"'
expect_code 0
grep -q "^\[0\] $WORK/tmp/mptrain-torchrun-.*/error.json$" "$WORK/out" || { cat "$WORK/out" >&2; fail "a relative TMPDIR gave a relative path"; }

# A TMPDIR that does not exist: exit 1 naming it.
TMPDIR=/nonexistent/dir run_mptrain torchrun --nproc-per-node 1 --no-python true
expect_code 1
expect_stderr "^mptrain: error: cannot create the run's folder in TMPDIR=/nonexistent/dir: .*set TMPDIR to a directory you can write to"

# mptrain killed with SIGKILL: its watchdog removes the temporary folder (no summary names it).
mkdir -p "$WORK/tmp3"
TMPDIR=$WORK/tmp3 "$MPTRAIN" torchrun --nproc-per-node 1 --no-python sh -c 'touch "$0/started"; sleep 30' "$WORK" \
  >/dev/null 2>&1 &
launcher=$!
for _ in $(seq 200); do [[ -e $WORK/started ]] && break; sleep 0.05; done
[[ -e $WORK/started ]] || fail "the torchrun worker did not start"
[[ -n $(ls -A "$WORK/tmp3") ]] || fail "no temporary folder while running"
kill -9 "$launcher"
wait "$launcher" 2>/dev/null
for _ in $(seq 100); do [[ -z $(ls -A "$WORK/tmp3") ]] && break; sleep 0.05; done
[[ -z $(ls -A "$WORK/tmp3") ]] || { ls -R "$WORK/tmp3" >&2; fail "the temporary folder survived kill -9"; }

# A refusal before any worker starts speaks torchrun's words and leaves no folder behind.
usable=$("$MPTRAIN" plan --json | jq -r '.usable_cpus')
mkdir -p "$WORK/tmp2"
TMPDIR=$WORK/tmp2 run_mptrain torchrun --nproc-per-node $((usable + 1)) --no-python true
expect_usage_error "use --nproc-per-node $usable or fewer"
! grep -Eq -- "(^| |\()-[nt] [0-9]" "$WORK/err" || { cat "$WORK/err" >&2; fail "a torchrun refusal speaks run's -n/-t"; }
[[ -z $(ls -A "$WORK/tmp2") ]] || { ls -R "$WORK/tmp2" >&2; fail "a refused run left its folder"; }
TMPDIR=$WORK/tmp2 run_mptrain torchrun --nproc-per-node 1 --threads-per-process $((usable + 1)) --no-python true
expect_usage_error "use --threads-per-process $usable"
exit 0
