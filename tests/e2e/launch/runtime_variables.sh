# Every runtime of the table gets the plan's thread count, pinned or not:
# in a cgroup with a 1-CPU quota (where mptrain cannot pin, and Go, numba,
# rayon and Polars would size themselves to every CPU they see) and under
# -n 2 pinning, each worker's GOMAXPROCS, NUMBA_NUM_THREADS,
# RAYON_NUM_THREADS, POLARS_MAX_THREADS, JULIA_NUM_THREADS,
# TF_NUM_INTRAOP_THREADS, TF_NUM_INTEROP_THREADS and PYTHON_CPU_COUNT are the plan's threads, as
# OMP_NUM_THREADS is; a value the user set wins with --keep-env only.
# (The real clients, numba and Go in such a cgroup, are issue 52's next step.)
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
variables=(OMP_NUM_THREADS NUMBA_NUM_THREADS GOMAXPROCS RAYON_NUM_THREADS POLARS_MAX_THREADS JULIA_NUM_THREADS
  TF_NUM_INTRAOP_THREADS TF_NUM_INTEROP_THREADS PYTHON_CPU_COUNT)
cat >"$WORK/show" <<EOF_SHOW
#!/bin/sh
for v in ${variables[*]}; do echo "\$v=\$(printenv \$v || echo unset)"; done
EOF_SHOW
chmod +x "$WORK/show"
show="$WORK/show"
# expect_all VALUE: every worker line of the last run sets every variable to VALUE.
expect_all() {
  local v
  for v in "${variables[@]}"; do
    grep -q "\] $v=$1\$" "$WORK/out" || { cat "$WORK/out" "$WORK/err" >&2; fail "$v is not $1"; }
    ! grep "\] $v=" "$WORK/out" | grep -vq "=$1\$" || { cat "$WORK/out" >&2; fail "a worker's $v is not $1"; }
  done
}

need_cpus 2
run_mptrain run -n 2 -- "$show"
expect_code 0
expect_all 1
GOMAXPROCS=7 run_mptrain run -n 1 -t 1 -- "$show"
expect_code 0
expect_all 1
expect_stderr "GOMAXPROCS=7"
GOMAXPROCS=7 run_mptrain run -n 1 -t 1 --keep-env -- sh -c 'echo "GOMAXPROCS=$GOMAXPROCS"'
grep -q "\] GOMAXPROCS=7$" "$WORK/out" || { cat "$WORK/out" >&2; fail "--keep-env did not keep the user's GOMAXPROCS"; }

# A 1-CPU quota: no pinning (bind none), the variables still 1.
quota_cgroup "mptrain-runtimes-$$"
run_mptrain run -- "$show" # outside it: one thread per usable CPU
expect_all "$("$MPTRAIN" topo --json | jq -r .usable_cpus)"
in_quota "$MPTRAIN" run -- "$show"
expect_code 0
expect_stderr "1 worker x 1 thread, bind none"
expect_all 1
exit 0
