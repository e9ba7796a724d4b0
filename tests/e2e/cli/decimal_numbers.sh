# Numbers are decimal everywhere: a leading zero is no octal prefix, a
# leading "+" or surrounding blanks are allowed, and hexadecimal is refused
# (CLI11 alone reads "010" as 8 and "0x10" as 16).
source "$(dirname "$0")/../lib.sh"

run_mptrain plan -n 010 -t 1 --allow-oversubscribe --json
expect_code 0
expect_json '.num_processes == 10'
run_mptrain plan -n 08 -t 1 --allow-oversubscribe --json
expect_code 0
expect_json '.num_processes == 8'
run_mptrain plan -n ' 2 ' -t 01 --allow-oversubscribe --json
expect_code 0
expect_json '.num_processes == 2 and .threads_per_process == 1'
run_mptrain plan -n +2 -t 1 --allow-oversubscribe --json
expect_code 0
expect_json '.num_processes == 2'
run_mptrain plan -n 0x10 -t 1 --allow-oversubscribe
expect_usage_error "0x10 is not a whole number"
run_mptrain plan -n 000 -t 1
expect_usage_error "is not from 1 to"

# The launcher's numbers, seen in the dry run's variables.
run_mptrain run -n 1 --master-port 0100 --max-restarts 010 --dry-run --json -- /bin/true
expect_code 0
expect_json '.ranks[0].env.MASTER_PORT == "100"'
expect_json '.ranks[0].env.TORCHELASTIC_MAX_RESTARTS == "10"'
# Training numbers: a seed and a batch size with leading zeros.
run_mptrain run -n 1 --seed 010 --batch-size 064 --epochs 00 --train-limit 0100 --json
expect_code 0
expect_json '.seed == 10 and .batch_size == 64'
# Real numbers: hexadecimal floats are refused too.
run_mptrain run -n 1 --lr 0x1p-4 --epochs 0 --train-limit 10
expect_usage_error "0x1p-4 is not a number"
# (sh itself spins, so its pid is the busy process; it is killed right after.)
sh -c 'while :; do :; done' &
busy=$!
run_mptrain doctor --pid "0$busy" --duration 0.5 --json
kill "$busy" 2>/dev/null
[[ $code == 0 || $code == 3 ]] || fail "doctor --pid 0$busy exited $code: $(cat "$WORK/err")"
expect_json ".processes | map(.pid) | index($busy) != null"
# One grammar: a leading "+" is read by every number, whole or real, in run, doctor and torchrun alike.
run_mptrain run -n 1 --lr +0.1 --epochs 0 --train-limit 10 --json
expect_code 0
expect_json '.lr == 0.1'
run_mptrain run -n 1 --grace +1 --max-restarts=+1 --dry-run --json -- /bin/true
expect_code 0
expect_json '.ranks[0].env.TORCHELASTIC_MAX_RESTARTS == "1"'
run_mptrain doctor --duration +0.2 --json
[[ $code == 0 || $code == 3 ]] || fail "doctor --duration +0.2 exited $code: $(cat "$WORK/err")"
run_mptrain torchrun --nproc-per-node +1 --dry-run --json --no-python true
expect_code 0
expect_json '(.ranks | length) == 1'
echo PASS
