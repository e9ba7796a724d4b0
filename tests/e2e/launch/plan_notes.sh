# run shows the plan's notes on stderr as "mptrain: note: …", in both modes
# and in a dry run, as plan does in its report: a second node given no
# --node-rank is told it became node 0, CPUs of --cpus that are not usable
# are named, a Slurm variable that is ignored says so. (They used to appear
# only in the launcher's --json, or nowhere.)
source "$(dirname "$0")/../lib.sh"

note='^mptrain: note: '
run_mptrain run --nnodes 2 --master-addr 10.0.0.1 -n 1 --dry-run -- true
expect_code 0
expect_stderr "$note--node-rank not given: this is node 0, as torchrun assumes; give it on every other node$"
run_mptrain run --nnodes 2 --master-addr 10.0.0.1 -n 1 --dry-run --json -- true
expect_code 0
expect_stderr "$note--node-rank not given: this is node 0"
jq -e . "$WORK/out" >/dev/null || fail "a note reached stdout in --json mode"
run_mptrain run --cpus 0-100 -n 1 --dry-run -- true
expect_code 0
expect_stderr "$note--cpus: CPUs [0-9]+-100 are not usable and were ignored$"
SLURM_PROCID=3 run_mptrain run -n 1 -- true
expect_code 0
expect_stderr "${note}SLURM_PROCID=3 is ignored"
# How a default chose M or T is no news (the report gives M x T): a plain run notes nothing.
for args in "-n 1" "" "-n 1 -t 1 --cpus 0" "--nproc-per-node auto"; do
  run_mptrain run $args -- true
  expect_code 0
  ! grep -q 'note:' "$WORK/err" || fail "notes for run $args: $(cat "$WORK/err")"
done

# Built-in training: the same notes, before training starts.
source "$(dirname "$0")/../train/fixtures.bash"
make_small_data
run_mptrain run --cpus 0-100 -n 1 -t 1 --data "$WORK/data" --model logreg
expect_code 0
expect_stderr "$note--cpus: CPUs [0-9]+-100 are not usable and were ignored$"
echo PASS
