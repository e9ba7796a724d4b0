# Each rank sees torchrun's variables, T thread counts, its CPU list, and its
# Cpus_allowed_list equals the plan's CPUs for that rank.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
need_cpus 2

"$MPTRAIN" plan -n 2 --json >"$WORK/plan.json" || fail "plan failed"
threads=$(jq -r .threads_per_process "$WORK/plan.json")

script='
for v in RANK LOCAL_RANK WORLD_SIZE LOCAL_WORLD_SIZE MASTER_ADDR MASTER_PORT OMP_NUM_THREADS MKL_NUM_THREADS BLIS_NUM_THREADS \
         OPENBLAS_NUM_THREADS MPTRAIN_CPUS MPTRAIN_RESTART_COUNT; do
  eval "echo $v=\${$v-unset}"
done
sed -n "s/^Cpus_allowed_list:[[:space:]]*/ALLOWED=/p" /proc/self/status'
OMP_NUM_THREADS=99 run_mptrain run -n 2 --json -- sh -c "$script"
expect_code 0
expect_stderr 'warning: OMP_NUM_THREADS=99 is set'

for rank in 0 1; do
  cpus=$(jq -r ".workers[$rank].cpus" "$WORK/plan.json")
  grep "^\[$rank\] " "$WORK/err" | sed "s/^\[$rank\] //" >"$WORK/env.$rank"
  for expected in "RANK=$rank" "LOCAL_RANK=$rank" WORLD_SIZE=2 LOCAL_WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 \
                  "OMP_NUM_THREADS=$threads" "MKL_NUM_THREADS=$threads" "OPENBLAS_NUM_THREADS=$threads" "BLIS_NUM_THREADS=$threads" \
                  "MPTRAIN_CPUS=$cpus" "ALLOWED=$cpus" MPTRAIN_RESTART_COUNT=0; do
    grep -qx "$expected" "$WORK/env.$rank" || { cat "$WORK/env.$rank" >&2; fail "rank $rank lacks $expected"; }
  done
  grep -Eqx 'MASTER_PORT=[0-9]+' "$WORK/env.$rank" || fail "rank $rank has no numeric MASTER_PORT"
  expect_json ".workers[$rank].cpus == \"$cpus\" and .workers[$rank].exit_code == 0"
done
cmp <(grep MASTER_PORT "$WORK/env.0") <(grep MASTER_PORT "$WORK/env.1") || fail "ranks got different MASTER_PORTs"
expect_json '.num_processes == 2 and .exit_code == 0 and .restarts == 0 and (.workers | length) == 2'
expect_json '[.workers[] | has("rank", "pid", "cpus", "wall_seconds", "cpu_seconds", "exit_code", "status")] | all'

# --master-addr, --master-port and --keep-env.
OMP_NUM_THREADS=99 run_mptrain run -n 2 --master-addr 10.1.2.3 --master-port 23456 --keep-env -- \
  sh -c 'echo "$MASTER_ADDR:$MASTER_PORT:$OMP_NUM_THREADS"'
expect_code 0
grep -qx '\[1\] 10.1.2.3:23456:99' "$WORK/out" || { cat "$WORK/out" >&2; fail "--master-addr/--master-port/--keep-env ignored"; }
! grep -q 'warning: OMP_NUM_THREADS' "$WORK/err" || fail "--keep-env still warns"
