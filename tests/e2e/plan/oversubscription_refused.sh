# Acceptance: M x T > N exits 2 with an explanation and a suggestion.
source "$(dirname "$0")/../lib.sh"

run_mptrain plan -n 4 -t 9 --topology-synthetic "package:2 core:8 pu:2" --json
expect_code 2
expect_stderr '^mptrain: error: .*36 threads exceed the 32 usable CPUs'
expect_stderr 'use -t 8'
expect_stderr '--allow-oversubscribe'
[[ ! -s "$WORK/out" ]] || fail "a refused plan printed something on stdout"
