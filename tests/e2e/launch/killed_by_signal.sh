# A worker killed by SIGKILL makes mptrain exit 137 and name the signal.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
need_cpus 2

run_mptrain run -n 2 --grace 2 -- sh -c '[ "$RANK" = 0 ] && kill -KILL $$; exec sleep 60'
expect_code 137
expect_stderr '^mptrain: error: rank 0 \(pid [0-9]+\) killed by SIGKILL'
