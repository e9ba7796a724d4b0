# --redirects and --tee need --log-dir and a well-formed value naming only
# ranks the group has; otherwise a usage error (exit 2) and nothing runs.
source "$(dirname "$0")/../lib.sh"

refused 2 '--redirects needs --log-dir DIR' run -n 1 --redirects 1 -- touch "$WORK/ran"
refused 2 '--tee needs --log-dir DIR' run -n 1 --tee 0:2 -- touch "$WORK/ran"
refused 2 "--redirects: '4' is not a stream choice; give 0 \(none\), 1 \(out\), 2 \(err\) or 3 \(all\)" run -n 1 --log-dir "$WORK/logs" --redirects 4 -- touch "$WORK/ran"
refused 2 "--tee: 'both' is not a stream choice" run -n 1 --log-dir "$WORK/logs" --tee both -- touch "$WORK/ran"
refused 2 "--redirects: 'x' in '0:1,x' is not RANK:VALUE" run -n 1 --log-dir "$WORK/logs" --redirects 0:1,x -- touch "$WORK/ran"
refused 2 "--redirects: rank 0 is named twice" run -n 1 --log-dir "$WORK/logs" --redirects 0:1,0:2 -- touch "$WORK/ran"
refused 2 "--redirects: the value is empty" run -n 1 --log-dir "$WORK/logs" --redirects '' -- touch "$WORK/ran"
refused 2 "--tee 0:1,2:3 names rank 2, but the ranks are 0 to 1" run -n 2 --allow-oversubscribe --bind none --log-dir "$WORK/logs" --tee 0:1,2:3 -- touch "$WORK/ran"
[[ ! -e "$WORK/logs" ]] || fail "a log directory was made for a refused command line"
