# Empty and odd values are usage errors (exit 2) that say what to do, and
# nothing is launched: `run --` with nothing after it (which used to start
# the built-in training), an empty command word, an empty --log-dir or
# --master-addr, ports, counts and seconds that are not what they should be.
source "$(dirname "$0")/../lib.sh"

# refused PATTERN ARGS...: `mptrain run ARGS` exits 2 with "mptrain: error: …PATTERN", running nothing.
refused 2 "nothing to run after '--'" run --
refused 2 "nothing to run after '--'" run -n 1 --json --
refused 2 "the command after '--' is an empty word" run -n 1 -- ''
refused 2 "the command after '--' is an empty word" run -n 1 -- '' touch "$WORK/ran"
refused 2 "--log-dir.*empty" run -n 1 --log-dir '' -- touch "$WORK/ran"
refused 2 "--master-addr.*empty" run -n 1 --master-addr '' -- touch "$WORK/ran"
refused 2 "--cpus.*empty" run -n 1 --cpus '' -- touch "$WORK/ran"
refused 2 "--master-port.*0 is not from 1 to 65535" run -n 1 --master-port 0 -- touch "$WORK/ran"
refused 2 "--master-port.*70000 is not from 1 to 65535" run -n 1 --master-port 70000 -- touch "$WORK/ran"
refused 2 "--master-port.*1.5 is not a whole number" run -n 1 --master-port 1.5 -- touch "$WORK/ran"
refused 2 "--master-port.*http is not a whole number" run -n 1 --master-port http -- touch "$WORK/ran"
refused 2 "--max-restarts.*1.5 is not a whole number" run -n 1 --max-restarts 1.5 -- touch "$WORK/ran"
refused 2 "--children.*70000 is not from 1 to 1024" run -n 1 --children 70000 --allow-oversubscribe -- touch "$WORK/ran"
refused 2 "--max-restarts.*-1 is not at least 0" run -n 1 --max-restarts=-1 -- touch "$WORK/ran"
refused 2 "--grace.*inf is not a finite number" run -n 1 --grace inf -- touch "$WORK/ran"
refused 2 "--grace.*nan is not a finite number" run -n 1 --grace nan -- touch "$WORK/ran"
refused 2 "--grace.*-1 is not from 0 to 604800 \(a week\)" run -n 1 --grace=-1 -- touch "$WORK/ran"
refused 2 "-n.*1.5 is not a whole number" run -n 1.5 -- touch "$WORK/ran"
refused 2 "-t.*2.5 is not a whole number" run -n 1 -t 2.5 -- touch "$WORK/ran"

# The same words are fine where they mean something.
run_mptrain run -n 1 -- touch "$WORK/ran"
expect_code 0
[[ -e "$WORK/ran" ]] || fail "the command did not run"
