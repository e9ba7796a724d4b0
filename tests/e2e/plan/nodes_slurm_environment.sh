# Recorded Slurm environments: a job step's task (srun) plans its node's
# share; a batch script (no job step) is a single node; mpirun inside the
# allocation wins over the batch step's variables.
source "$(dirname "$0")/../lib.sh"
machine=(--topology-synthetic "package:2 core:4 pu:2")

# Task 3 of `srun -n 5` spread "2(x2),1": the second task on node 1.
env SLURM_JOB_ID=77 SLURM_STEP_ID=0 SLURM_PROCID=3 SLURM_NTASKS=5 SLURM_LOCALID=1 SLURM_NODEID=1 \
  SLURM_JOB_NODELIST='n[1-3]' SLURM_STEP_TASKS_PER_NODE='2(x2),1' \
  "$MPTRAIN" plan "${machine[@]}" --json >"$WORK/out" 2>"$WORK/err"
code=$?
expect_code 0
expect_json '.node.source == "Slurm" and .node.rank == 3 and .node.count == 5 and .node.node_list == "n[1-3]"'
expect_json '.node.local_rank == 1 and .node.local_size == 2 and .node.cpus == "8-15"'

# The batch script of `sbatch -N 2 --ntasks-per-node 2`.
batch=(SLURM_JOB_ID=78 SLURM_PROCID=0 SLURM_NTASKS=4 SLURM_LOCALID=0 SLURM_NODEID=0 SLURM_TASKS_PER_NODE='2(x2)')
env "${batch[@]}" "$MPTRAIN" plan "${machine[@]}" --json >"$WORK/out" 2>"$WORK/err"
code=$?
expect_code 0
expect_json '.node.source == "single node" and .node.cpus == "0-15"'
expect_json '[.notes[] | select(test("SLURM_PROCID=0 is ignored"))] | length == 1'

# mpirun -n 4 in that batch script: rank 3, the second on its host.
env "${batch[@]}" OMPI_COMM_WORLD_RANK=3 OMPI_COMM_WORLD_SIZE=4 OMPI_COMM_WORLD_LOCAL_RANK=1 \
  OMPI_COMM_WORLD_LOCAL_SIZE=2 "$MPTRAIN" plan "${machine[@]}" --json >"$WORK/out" 2>"$WORK/err"
code=$?
expect_code 0
expect_json '.node.source == "Open MPI" and .node.rank == 3 and .node.cpus == "8-15"'
