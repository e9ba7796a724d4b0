# An option given twice, under one name or two of its names, is refused
# with a message that says so (not CLI11's "At Most 1 required but received 2").
source "$(dirname "$0")/../lib.sh"

run_mptrain plan -n 2 --nproc-per-node 2
expect_usage_error "--num-processes was given 2 times; -n, --num-processes, --nproc-per-node are one option: give it once"
run_mptrain plan -n 1 -n 2 -n 1
expect_usage_error "--num-processes was given 3 times"
run_mptrain plan --bind core --bind none
expect_usage_error "--bind was given 2 times; give it once"
echo PASS
