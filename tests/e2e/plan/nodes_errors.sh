# Node options and launcher variables that are malformed, out of range or
# contradict each other are usage errors naming both sides.
source "$(dirname "$0")/../lib.sh"
machine=(--topology-synthetic "package:2 core:4 pu:2")
open_mpi_rank_1=(OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_LOCAL_RANK=1
  OMPI_COMM_WORLD_LOCAL_SIZE=2)

check() {  # check PATTERN ARGS...: plan ARGS exits 2 with stderr matching PATTERN
  local pattern=$1
  shift
  run_mptrain plan "${machine[@]}" "$@"
  expect_usage_error "$pattern"
}
# check_env PATTERN VARIABLE=VALUE... -- ARGS...: the same with those variables set.
check_env() {
  local pattern=$1 variables=()
  shift
  while [[ $1 != -- ]]; do variables+=("$1"); shift; done
  shift
  env "${variables[@]}" "$MPTRAIN" plan "${machine[@]}" "$@" >"$WORK/out" 2>"$WORK/err"
  code=$?
  expect_usage_error "$pattern"
}

check '--node-rank 1 needs --nnodes' --node-rank 1
check '--local-size 2 needs --nnodes' --local-size 2
check '--node-rank 2 is not below --nnodes 2' --nnodes 2 --node-rank 2
check '--local-size 3 is more than --nnodes 2' --nnodes 2 --local-size 3
check '--local-rank 1 is not below the local size 1' --nnodes 2 --local-rank 1
check 'nnodes: 0 is not at least 1' --nnodes 0
check '17 mptrain processes on this host but only 16 usable CPUs' --nnodes 17 --local-size 17
check_env '--node-rank 0 contradicts OMPI_COMM_WORLD_RANK=1' "${open_mpi_rank_1[@]}" -- --node-rank 0
check_env '--nnodes 3 contradicts OMPI_COMM_WORLD_SIZE=2' "${open_mpi_rank_1[@]}" -- --nnodes 3
check_env '--local-rank 0 contradicts OMPI_COMM_WORLD_LOCAL_RANK=1' "${open_mpi_rank_1[@]}" -- --local-rank 0
check_env 'OMPI_COMM_WORLD_RANK=1 .*and PMI_RANK=0 .*disagree' "${open_mpi_rank_1[@]}" PMI_RANK=0 PMI_SIZE=2 --
check_env 'PMIX_RANK=0 disagrees with OMPI_COMM_WORLD_RANK=1' "${open_mpi_rank_1[@]}" PMIX_RANK=0 --
check_env 'OMPI_COMM_WORLD_RANK=one is not a whole number' OMPI_COMM_WORLD_RANK=one OMPI_COMM_WORLD_SIZE=2 --
check_env 'OMPI_COMM_WORLD_RANK=2 is not below OMPI_COMM_WORLD_SIZE=2' OMPI_COMM_WORLD_RANK=2 \
  OMPI_COMM_WORLD_SIZE=2 --
check_env 'SLURM_LOCALID=-1 is negative' SLURM_STEP_ID=0 SLURM_PROCID=0 SLURM_NTASKS=2 SLURM_LOCALID=-1 --
check_env 'SLURM_TASKS_PER_NODE=2\(x2\) at SLURM_NODEID=2: it lists 2 nodes' SLURM_STEP_ID=0 SLURM_PROCID=0 \
  SLURM_NTASKS=4 SLURM_NODEID=2 SLURM_TASKS_PER_NODE='2(x2)' --
check_env 'PET_NNODES=1:4 is an elastic range' PET_NNODES=1:4 --
check_env 'PMIX_RANK=1 is set, but no variable says how many nodes' PMIX_RANK=1 --

# run refuses the same before starting anything.
env "${open_mpi_rank_1[@]}" "$MPTRAIN" run --node-rank 0 -- /bin/true >"$WORK/out" 2>"$WORK/err"
code=$?
expect_usage_error '--node-rank 0 contradicts OMPI_COMM_WORLD_RANK=1'
