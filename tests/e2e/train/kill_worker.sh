# SIGKILL of one training worker fails the run fast, naming the rank, and
# leaves nothing in /dev/shm.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/fixtures.bash"
make_small_data 512 32

before=$(shm_listing)
start_endless_training
sleep 0.3
victim=$(tail -n 1 <<<"$workers")
kill -9 "$victim"
start=$SECONDS
wait_exit
(( SECONDS - start <= 15 )) || fail "the run took $((SECONDS - start)) s to stop after a worker died"
[[ $code -ne 0 ]] || fail "the run succeeded although a worker was killed"
expect_stderr '^mptrain: error: .*rank [01] .*SIGKILL'
[[ "$(shm_listing)" == "$before" ]] || fail "/dev/shm changed: $(comm -13 <(echo "$before") <(shm_listing))"
