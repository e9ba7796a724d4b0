# Messages in place of CLI11's own words and of silence: an option without
# its value, arguments a command does not take (in the order given), the
# failing command's own --help; the doctor says when its watched command
# failed and why it exits with that code; a watch within one interval says
# PSI was not measured (not that the kernel lacks it); a diverged run names
# a save target that never existed as "not created".
source "$(dirname "$0")/../lib.sh"

run_mptrain plan -n
expect_usage_error "--num-processes needs a value \(INT:from 1 to 1048576, auto or cpu\), right after it \(see 'mptrain plan --help'\)$"
run_mptrain run --model
expect_usage_error "--model needs a value \(MODEL:\{cnn,mlp,logreg\}\), right after it \(see 'mptrain run --help'\)$"
run_mptrain doctor --fail-on
expect_usage_error "--fail-on needs a value .*\(see 'mptrain doctor --help'\)$"
run_mptrain topo -n 2
expect_usage_error "mptrain topo does not take: -n 2 \(see 'mptrain topo --help'\)$"
run_mptrain plan foo bar
expect_usage_error "mptrain plan does not take: foo bar"
run_mptrain plan --cpus $'\e[31mred' extra $'\e[0m'
[[ $code == 2 ]] || fail "exit $code"
LC_ALL=C grep -q $'\e' "$WORK/err" && fail "an escape byte from the command line reached the message: $(cat -v "$WORK/err")"

run_mptrain doctor -- sh -c 'exit 7'
expect_code 7
expect_stderr "^mptrain doctor: the watched command sh exited with code 7; the doctor exits with its code"
run_mptrain doctor --json -- sh -c 'kill -KILL $$'
expect_code 137
expect_json '.command_exit_code == 137'
expect_stderr "the watched command sh was killed by SIGKILL \(exit 137\)"
run_mptrain doctor -- true
expect_code 0
grep -q "CPU pressure (PSI):     not measured: the watch ended within one sampling interval" "$WORK/out" ||
  fail "a watch within one interval did not say PSI was not measured: $(cat "$WORK/out")"

source "$(dirname "$0")/../train/fixtures.bash"
make_small_data 256 32
run_mptrain run -n 1 -t 1 --data "$WORK/data" --model logreg --lr 3e38 --save-model "$WORK/never.ckpt"
expect_code 1
expect_stderr "training diverged: .*the model was not saved, $WORK/never.ckpt was not created"
[[ ! -e $WORK/never.ckpt ]] || fail "a diverged model was saved"
echo PASS
