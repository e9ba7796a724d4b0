# Empty and odd values are usage errors (exit 2) that say what to do, and
# nothing is launched: `run --` with nothing after it (which used to start
# the built-in training), an empty command word, an empty --log-dir or
# --master-addr, ports, counts and seconds that are not what they should be.
source "$(dirname "$0")/../lib.sh"

# refused PATTERN ARGS...: `mptrain run ARGS` exits 2 with "mptrain: error: …PATTERN", running nothing.
refused() {
  local pattern=$1
  shift
  expect_refused 2 "$pattern" run "$@"
  [[ ! -e "$WORK/ran" ]] || fail "run $* ran the command"
  ! grep -q 'samples' "$WORK/err" "$WORK/out" || fail "run $* started training"
}

refused "nothing to run after '--'" --
refused "nothing to run after '--'" -n 1 --json --
refused "the command after '--' is an empty word" -n 1 -- ''
refused "the command after '--' is an empty word" -n 1 -- '' touch "$WORK/ran"
refused "--log-dir.*empty" -n 1 --log-dir '' -- touch "$WORK/ran"
refused "--master-addr.*empty" -n 1 --master-addr '' -- touch "$WORK/ran"
refused "--cpus.*empty" -n 1 --cpus '' -- touch "$WORK/ran"
refused "--master-port.*0 is not from 1 to 65535" -n 1 --master-port 0 -- touch "$WORK/ran"
refused "--master-port.*70000 is not from 1 to 65535" -n 1 --master-port 70000 -- touch "$WORK/ran"
refused "--master-port.*1.5 is not a whole number" -n 1 --master-port 1.5 -- touch "$WORK/ran"
refused "--master-port.*http is not a whole number" -n 1 --master-port http -- touch "$WORK/ran"
refused "--max-restarts.*1.5 is not a whole number" -n 1 --max-restarts 1.5 -- touch "$WORK/ran"
refused "--children.*70000 is not from 1 to 1024" -n 1 --children 70000 --allow-oversubscribe -- touch "$WORK/ran"
refused "--max-restarts.*-1 is not at least 0" -n 1 --max-restarts=-1 -- touch "$WORK/ran"
refused "--grace.*inf is not a finite number" -n 1 --grace inf -- touch "$WORK/ran"
refused "--grace.*nan is not a finite number" -n 1 --grace nan -- touch "$WORK/ran"
refused "--grace.*-1 is not from 0 to 604800 \(a week\)" -n 1 --grace=-1 -- touch "$WORK/ran"
refused "-n.*1.5 is not a whole number" -n 1.5 -- touch "$WORK/ran"
refused "-t.*2.5 is not a whole number" -n 1 -t 2.5 -- touch "$WORK/ran"

# The same words are fine where they mean something.
run_mptrain run -n 1 -- touch "$WORK/ran"
expect_code 0
[[ -e "$WORK/ran" ]] || fail "the command did not run"
