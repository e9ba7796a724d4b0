# --reserve K hands each worker's first K PUs to oneCCL and Intel MPI, and OpenMP's places leave them out;
# --dry-run shows it. A user's own setting wins, with a warning.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
need_cpus 2

run_mptrain run -n 1 --reserve 1 --dry-run --json -- true
expect_code 0
first=$(json '.ranks[0].cpus | split(",")[0] | split("-")[0]')
expect_json '.ranks[0].env.CCL_WORKER_COUNT == "1" and .ranks[0].env.CCL_WORKER_AFFINITY == "'"$first"'"'
expect_json '.ranks[0].env.I_MPI_PIN_DOMAIN | test("^\\[0x[0-9a-f]+\\]$")'
expect_json '.ranks[0].env.OMP_PLACES | contains("{'"$first"'}") | not'
expect_json "$cpus"' (.ranks[0].cpus | cpus | length) - 1 == (.ranks[0].env.OMP_NUM_THREADS | tonumber)'

CCL_WORKER_AFFINITY=auto run_mptrain run -n 1 --reserve 1 --dry-run --json -- true
expect_code 0
expect_json '.ranks[0].env.CCL_WORKER_AFFINITY == null and .ranks[0].env.CCL_WORKER_COUNT == "1"'
expect_stderr "CCL_WORKER_AFFINITY=auto is set"

run_mptrain run -n 1 --dry-run --json -- true
expect_code 0
expect_json '.ranks[0].env | has("CCL_WORKER_COUNT") or has("I_MPI_PIN_DOMAIN") | not'
