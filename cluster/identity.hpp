// Who this mptrain is in a job that spans several nodes (SPEC "Beyond one
// machine"): its node rank and node count, and its local rank and local size
// among the mptrain processes on the same host. They come from the variables
// of the launcher that started it — Open MPI's mpirun, the Hydra mpiexec of
// MPICH and Intel MPI (PMI), Slurm's srun, a Kubernetes PyTorchJob — or from
// torchrun-style options. A pure function of an environment and the options,
// so recorded environments test it.
//
// Precedence, closest to the process first:
//  1. An MPI launcher: OMPI_COMM_WORLD_RANK/_SIZE/_LOCAL_RANK/_LOCAL_SIZE
//     (Open MPI) or PMI_RANK/PMI_SIZE with MPI_LOCALRANKID/MPI_LOCALNRANKS
//     (Hydra). Both present must agree.
//  2. A Slurm job step: SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID and the
//     tasks on this node from SLURM_STEP_TASKS_PER_NODE or
//     SLURM_TASKS_PER_NODE (at SLURM_NODEID) or SLURM_NTASKS_PER_NODE — only
//     in a job step (SLURM_STEP_ID set, not the batch step), where they are
//     per task. Under an MPI launcher they are ignored: `mpirun` inside an
//     allocation leaves the batch step's SLURM_PROCID=0 in every rank.
//  3. A PyTorchJob: PET_NNODES (a number, not an elastic range) and
//     PET_NODE_RANK; they must agree with a launcher above when both are set.
//  4. The options --nnodes and --node-rank (default 0, as torchrun).
//  5. Nothing: a single node, 0 of 1.
// Options that contradict a source's variables, PMIX_RANK disagreeing with the
// rank found, and values that are not whole numbers or out of range are
// errors naming both sides or the variable. The local part comes from the
// source's own variables, else --local-rank/--local-size, else — when the
// master address (--master-addr or PET_MASTER_ADDR) is a loopback address,
// so every node must run on this host — local rank = node rank and local
// size = node count, else one mptrain per host (local 0 of 1).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"

namespace mptrain::cluster {

// Where a node identity came from.
enum class IdentitySource {
  single_node,  // no launcher variable and no option: node 0 of 1
  open_mpi,     // OMPI_COMM_WORLD_* set by Open MPI's mpirun
  pmi,          // PMI_RANK/PMI_SIZE set by the Hydra mpiexec of MPICH or Intel MPI
  slurm,        // SLURM_PROCID/SLURM_NTASKS of a Slurm job step (srun)
  pytorch_job,  // PET_NNODES/PET_NODE_RANK set by a Kubernetes PyTorchJob
  options,      // --nnodes/--node-rank
};

// "single node", "Open MPI", "PMI", "Slurm", "PyTorchJob" or "--nnodes".
std::string_view to_string(IdentitySource source);

// The torchrun-style options as given on the command line; unset when not given.
struct NodeRequest {
  std::optional<int> nnodes;      // --nnodes K
  std::optional<int> node_rank;   // --node-rank R
  std::optional<int> local_rank;  // --local-rank L
  std::optional<int> local_size;  // --local-size S
  std::string master_addr;        // --master-addr ADDR; "" when not given
};

// Who this mptrain is among the mptrain processes of its job.
struct NodeIdentity {
  int rank = 0;        // node rank: 0 .. count - 1
  int count = 1;       // node count
  int local_rank = 0;  // among the mptrain processes on this host: 0 .. local_size - 1
  int local_size = 1;  // mptrain processes on this host
  IdentitySource source = IdentitySource::single_node;
  std::string local_source;        // where the local part came from ("Open MPI", "--local-size", "loopback", ...)
  std::string node_list;           // SLURM_JOB_NODELIST, for display; "" outside Slurm
  std::vector<std::string> notes;  // variables ignored and defaults taken, for `plan` to show

  // True without any launcher variable or option: the caller runs alone and never initialises MPI.
  bool single_node() const { return source == IdentitySource::single_node; }
  // True when an MPI launcher (Open MPI's mpirun, Hydra's mpiexec) started this process.
  bool launched_by_mpi() const { return source == IdentitySource::open_mpi || source == IdentitySource::pmi; }
};

// This mptrain's identity from `environment` ("NAME=value" entries, as
// current_environment() gives) and the options in `request`, by the
// precedence above; an Error (a usage error) naming the variables or options
// that are malformed, out of range or contradict each other.
Result<NodeIdentity> read_node_identity(const std::vector<std::string>& environment, const NodeRequest& request);

// Where `identity`'s node count came from, in words: "--nnodes 2",
// "PET_NNODES=2 (a Kubernetes PyTorchJob)", "Slurm's srun (SLURM_NTASKS=2)".
std::string count_origin(const NodeIdentity& identity);

// "node 1 of 2 (local 1 of 2, from Open MPI)", or "single node" for a single node.
std::string describe(const NodeIdentity& identity);

// The tasks that Slurm's compressed per-node task list `list` gives node
// `node` (0-based): "2(x3),1" gives 2 to each of nodes 0-2 and 1 to node 3;
// an Error saying what is wrong with `list`, or that it has no node `node`.
Result<int> slurm_tasks_on_node(std::string_view list, int node);

// True when `address` names this host's loopback interface: an IPv4 address
// in 127.0.0.0/8, ::1 (bracketed or not, or IPv4-mapped), or the name
// localhost (also "localhost.localdomain", "ip6-localhost", "*.localhost");
// no name is looked up.
bool is_loopback(std::string_view address);

// Whether `environment` is that of a rank a parallel launcher started
// (mpirun, mpiexec, srun: OMPI_COMM_WORLD_SIZE, PMI_SIZE, PMIX_RANK,
// SLURM_STEP_ID), whose output the launcher gathers from several ranks
// (Open MPI through a pseudo-terminal, so stdout looks like one).
bool started_by_parallel_launcher(const std::vector<std::string>& environment);

// `node` as the JSON object `node` of `plan --json` (before its share's
// keys): rank, count, local_rank, local_size, source, local_source, node_list.
nlohmann::json node_json(const NodeIdentity& node);

}  // namespace mptrain::cluster
