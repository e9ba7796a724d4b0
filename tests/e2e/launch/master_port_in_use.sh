# A --master-port that something on this machine already listens on gets a
# warning naming the port (rank 0's rendezvous could not listen there); the
# job still runs, as the port may be the user's own rendezvous.
# ctest: timeout 60
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
# Whatever this script started in the background goes when it ends.
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$WORK"' EXIT
command -v python3 >/dev/null || skip "no python3 to hold a port"

python3 -c '
import socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen()
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
time.sleep(600)
' "$WORK/port" >/dev/null 2>&1 &
holder=$!
wait_for 30 test -s "$WORK/port" || fail "no port was taken"
port=$(cat "$WORK/port")

run_mptrain run -n 1 --master-port "$port" -- sh -c 'echo "port=$MASTER_PORT"'
kill "$holder"
expect_code 0
expect_stderr "^mptrain: warning: --master-port $port is already in use on this machine"
grep -q "port=$port" "$WORK/out" || fail "the workers did not get MASTER_PORT=$port"

# A free port: no warning.
wait "$holder" 2>/dev/null
run_mptrain run -n 1 --master-port "$port" -- true
expect_code 0
! grep -q 'already in use' "$WORK/err" || fail "a free port was called in use"
