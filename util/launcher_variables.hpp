// The names of the launchers' environment variables, each spelled once:
// those torchrun sets for a worker (procmgr/environment.hpp sets them),
// those MPI, Slurm and a Kubernetes PyTorchJob set for mptrain itself
// (cluster/identity.hpp reads them), and torchrun's error file
// (cluster/torchrun_failures.hpp).
#pragma once

#include <array>
#include <string_view>

namespace mptrain::launcher_variables {

// What torchrun tells each worker about its group.
inline constexpr std::string_view rank = "RANK";
inline constexpr std::string_view local_rank = "LOCAL_RANK";
inline constexpr std::string_view world_size = "WORLD_SIZE";
inline constexpr std::string_view local_world_size = "LOCAL_WORLD_SIZE";
inline constexpr std::string_view group_rank = "GROUP_RANK";
inline constexpr std::string_view group_world_size = "GROUP_WORLD_SIZE";
inline constexpr std::string_view role_name = "ROLE_NAME";
inline constexpr std::string_view role_rank = "ROLE_RANK";
inline constexpr std::string_view role_world_size = "ROLE_WORLD_SIZE";
inline constexpr std::string_view master_addr = "MASTER_ADDR";
inline constexpr std::string_view master_port = "MASTER_PORT";
inline constexpr std::string_view max_restarts = "TORCHELASTIC_MAX_RESTARTS";
inline constexpr std::string_view restart_count = "TORCHELASTIC_RESTART_COUNT";
inline constexpr std::string_view run_id = "TORCHELASTIC_RUN_ID";
inline constexpr std::string_view use_agent_store = "TORCHELASTIC_USE_AGENT_STORE";
inline constexpr std::string_view error_file = "TORCHELASTIC_ERROR_FILE";

// What mptrain adds for each worker: its CPUs and its attempt.
inline constexpr std::string_view mptrain_cpus = "MPTRAIN_CPUS";
inline constexpr std::string_view mptrain_restart_count = "MPTRAIN_RESTART_COUNT";
// The names of the variables mptrain set for a worker, comma-separated: a
// launch started inside that worker (a nested mptrain run) plans without them.
inline constexpr std::string_view mptrain_set = "MPTRAIN_SET";

// Open MPI's mpirun.
inline constexpr std::string_view ompi_rank = "OMPI_COMM_WORLD_RANK";
inline constexpr std::string_view ompi_size = "OMPI_COMM_WORLD_SIZE";
inline constexpr std::string_view ompi_local_rank = "OMPI_COMM_WORLD_LOCAL_RANK";
inline constexpr std::string_view ompi_local_size = "OMPI_COMM_WORLD_LOCAL_SIZE";
// Set to 1 for a rank Open MPI 4 bound at launch (to one core when it starts two ranks or fewer).
inline constexpr std::string_view ompi_bound_at_launch = "OMPI_MCA_orte_bound_at_launch";
// The Hydra mpiexec of MPICH and Intel MPI (PMI), and any PMIx launcher.
inline constexpr std::string_view pmi_rank = "PMI_RANK";
inline constexpr std::string_view pmi_size = "PMI_SIZE";
inline constexpr std::string_view mpi_local_rank_id = "MPI_LOCALRANKID";
inline constexpr std::string_view mpi_local_ranks = "MPI_LOCALNRANKS";
inline constexpr std::string_view pmix_rank = "PMIX_RANK";
// The prefixes of every variable an MPI launcher sets for its ranks.
inline constexpr std::array<std::string_view, 3> mpi_prefixes = {"OMPI_", "PMIX_", "PMI_"};

// Slurm's srun (a job step) and its allocation.
inline constexpr std::string_view slurm_step_id = "SLURM_STEP_ID";
inline constexpr std::string_view slurm_step_id_old = "SLURM_STEPID";  // older Slurm's spelling
inline constexpr std::string_view slurm_procid = "SLURM_PROCID";
inline constexpr std::string_view slurm_ntasks = "SLURM_NTASKS";
inline constexpr std::string_view slurm_localid = "SLURM_LOCALID";
inline constexpr std::string_view slurm_nodeid = "SLURM_NODEID";
inline constexpr std::string_view slurm_step_tasks_per_node = "SLURM_STEP_TASKS_PER_NODE";
inline constexpr std::string_view slurm_tasks_per_node = "SLURM_TASKS_PER_NODE";
inline constexpr std::string_view slurm_ntasks_per_node = "SLURM_NTASKS_PER_NODE";
inline constexpr std::string_view slurm_job_nodelist = "SLURM_JOB_NODELIST";
inline constexpr std::string_view slurm_nodelist = "SLURM_NODELIST";
// The CPUs per task a job asked for (sbatch -c), and the ones srun gives a step (Slurm 22.05 on: srun -c only).
inline constexpr std::string_view slurm_cpus_per_task = "SLURM_CPUS_PER_TASK";
inline constexpr std::string_view srun_cpus_per_task = "SRUN_CPUS_PER_TASK";

// torchrun reads option --NAME from PET_NAME (a Kubernetes PyTorchJob sets them).
inline constexpr std::string_view pet_prefix = "PET_";
inline constexpr std::string_view pet_nnodes = "PET_NNODES";
inline constexpr std::string_view pet_node_rank = "PET_NODE_RANK";
inline constexpr std::string_view pet_master_addr = "PET_MASTER_ADDR";
inline constexpr std::string_view pet_master_port = "PET_MASTER_PORT";

// The variables that say a launcher gave this mptrain its node rank.
inline constexpr std::array<std::string_view, 5> node_rank_givers = {ompi_rank, pmi_rank, pmix_rank, slurm_procid,
                                                                     pet_node_rank};

}  // namespace mptrain::launcher_variables
