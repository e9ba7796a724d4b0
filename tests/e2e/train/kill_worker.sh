# SIGKILL of one training worker fails the run fast, naming the rank, and
# leaves nothing in /dev/shm.
# ctest: serial
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/fixtures.bash"
make_idx_set "$WORK/data" train 512
make_idx_set "$WORK/data" t10k 32

before=$(shm_listing)
"$MPTRAIN" run -n 2 -t 1 --data "$WORK/data" --model logreg --epochs 100000 >"$WORK/out" 2>"$WORK/err" &
parent=$!
workers=$(wait_for_workers "$parent" 2) || exit 1
sleep 0.3
victim=$(tail -n 1 <<<"$workers")
kill -9 "$victim"
start=$SECONDS
wait "$parent"
code=$?
(( SECONDS - start <= 15 )) || fail "the run took $((SECONDS - start)) s to stop after a worker died"
[[ $code -ne 0 ]] || fail "the run succeeded although a worker was killed"
expect_stderr '^mptrain: error: .*rank [01] .*SIGKILL'
[[ "$(shm_listing)" == "$before" ]] || fail "/dev/shm changed: $(comm -13 <(echo "$before") <(shm_listing))"
