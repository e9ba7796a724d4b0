# Bad input is a usage error (exit 2) with a message that says what to do.
source "$(dirname "$0")/../lib.sh"

run_mptrain tune --metric '([0-9' -- true
expect_code 2
expect_stderr "is no regular expression"

run_mptrain tune --metric 'x([0-9]+)'
expect_code 2
expect_stderr "give the program after --"

run_mptrain tune --try "python3 train.py" -- true
expect_code 2
expect_stderr "which is no option"

run_mptrain tune --metric 'a' --progress 'b' -- true
expect_code 2

run_mptrain tune --train "--model mlp" -- true
expect_code 2
expect_stderr "not with a program"

OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=2 run_mptrain tune -- true
expect_code 2
expect_stderr "one node"

run_mptrain tune --dry-run --num-processes 1,2 --try "--bind none --allocator jemalloc" -- true
expect_code 0
grep -q -- '--bind none --allocator jemalloc  *--try' "$WORK/out" || { cat "$WORK/out" >&2; fail "the dry run does not list the --try candidate"; }
grep -q '(bare)' "$WORK/out" || fail "the dry run does not list the baseline"

# An option with which run runs nothing is no candidate: it would "win" at no cost.
for nothing in --dry-run --help --version; do
  run_mptrain tune "--try=$nothing" -- true
  expect_code 2
  expect_stderr "holds $nothing, with which run runs nothing"
done
