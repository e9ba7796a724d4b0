# --redirects and --tee need --log-dir and a well-formed value naming only
# ranks the group has; otherwise a usage error (exit 2) and nothing runs.
source "$(dirname "$0")/../lib.sh"

# refused PATTERN ARGS...: `mptrain run ARGS -- touch …` exits 2 with "mptrain: error: …PATTERN", running nothing.
refused() {
  local pattern=$1
  shift
  expect_refused 2 "$pattern" run "$@" -- touch "$WORK/ran"
  [[ ! -e "$WORK/ran" ]] || fail "run $* ran the command"
}

refused '--redirects needs --log-dir DIR' -n 1 --redirects 1
refused '--tee needs --log-dir DIR' -n 1 --tee 0:2
refused "--redirects: '4' is not a stream choice; give 0 \(none\), 1 \(out\), 2 \(err\) or 3 \(all\)" -n 1 --log-dir "$WORK/logs" --redirects 4
refused "--tee: 'both' is not a stream choice" -n 1 --log-dir "$WORK/logs" --tee both
refused "--redirects: 'x' in '0:1,x' is not RANK:VALUE" -n 1 --log-dir "$WORK/logs" --redirects 0:1,x
refused "--redirects: rank 0 is named twice" -n 1 --log-dir "$WORK/logs" --redirects 0:1,0:2
refused "--redirects: the value is empty" -n 1 --log-dir "$WORK/logs" --redirects ''
refused "--tee 0:1,2:3 names rank 2, but the ranks are 0 to 1" -n 2 --allow-oversubscribe --bind none --log-dir "$WORK/logs" --tee 0:1,2:3
[[ ! -e "$WORK/logs" ]] || fail "a log directory was made for a refused command line"
