#include "cluster/identity.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

using namespace mptrain;
using namespace mptrain::cluster;

namespace {

using Environment = std::vector<std::string>;

// Rank 1 of `mpirun -n 2` (Open MPI 4.1.4, default binding), as recorded on a 2-CPU machine.
const Environment open_mpi_rank_1 = {"OMPI_COMM_WORLD_LOCAL_RANK=1",
                                     "OMPI_COMM_WORLD_LOCAL_SIZE=2",
                                     "OMPI_COMM_WORLD_NODE_RANK=1",
                                     "OMPI_COMM_WORLD_RANK=1",
                                     "OMPI_COMM_WORLD_SIZE=2",
                                     "OMPI_MCA_ess_base_vpid=1",
                                     "OMPI_MCA_orte_bound_at_launch=1",
                                     "OMPI_UNIVERSE_SIZE=2",
                                     "PMIX_HOSTNAME=vm",
                                     "PMIX_NAMESPACE=1930952705",
                                     "PMIX_RANK=1",
                                     "PATH=/usr/bin:/bin"};

// Rank 3 of `mpiexec -n 4 -ppn 2` (Hydra: MPICH, Intel MPI) on the second of two hosts.
const Environment hydra_rank_3 = {"PMI_RANK=3", "PMI_SIZE=4", "PMI_FD=6", "MPI_LOCALRANKID=1", "MPI_LOCALNRANKS=2"};

// Task 3 of `srun -n 5` spread "2(x2),1" over three nodes: the second task of node 1.
const Environment srun_task_3 = {"SLURM_JOB_ID=77",
                                 "SLURM_STEP_ID=0",
                                 "SLURM_PROCID=3",
                                 "SLURM_NTASKS=5",
                                 "SLURM_LOCALID=1",
                                 "SLURM_NODEID=1",
                                 "SLURM_JOB_NODELIST=n[1-3]",
                                 "SLURM_STEP_TASKS_PER_NODE=2(x2),1",
                                 "SLURM_TASKS_PER_NODE=2(x2),1"};

// The batch script of `sbatch -N 2 --ntasks-per-node 2`: the batch step's variables, no SLURM_STEP_ID.
const Environment sbatch_script = {"SLURM_JOB_ID=78",         "SLURM_PROCID=0",           "SLURM_NTASKS=4",
                                   "SLURM_LOCALID=0",         "SLURM_NODEID=0",           "SLURM_TASKS_PER_NODE=2(x2)",
                                   "SLURM_NTASKS_PER_NODE=2", "SLURM_JOB_NODELIST=n[1-2]"};

// A pod of a two-node Kubernetes PyTorchJob, as the training operator starts it.
const Environment pytorch_job_pod_1 = {"PET_NNODES=2", "PET_NODE_RANK=1", "PET_NPROC_PER_NODE=1",
                                       "PET_MASTER_ADDR=job-master-0", "PET_MASTER_PORT=23456"};

Environment plus(Environment environment, const Environment& more) {
  environment.insert(environment.end(), more.begin(), more.end());
  return environment;
}

NodeIdentity identity_of(const Environment& environment, const NodeRequest& request = {}) {
  auto identity = read_node_identity(environment, request);
  INFO((identity.ok() ? std::string() : identity.error().message));
  REQUIRE(identity.ok());
  return std::move(identity).value();
}

std::string identity_refusal(const Environment& environment, const NodeRequest& request = {}) {
  auto identity = read_node_identity(environment, request);
  REQUIRE_FALSE(identity.ok());
  return identity.error().message;
}

NodeRequest request_nodes(int nnodes, std::optional<int> node_rank = std::nullopt) {
  NodeRequest request;
  request.nnodes = nnodes;
  request.node_rank = node_rank;
  return request;
}

bool has_note(const NodeIdentity& identity, const std::string& text) {
  for (const auto& note : identity.notes) {
    if (note.find(text) != std::string::npos) return true;
  }
  return false;
}

void check(const NodeIdentity& identity, int rank, int count, int local_rank, int local_size) {
  CHECK(identity.rank == rank);
  CHECK(identity.count == count);
  CHECK(identity.local_rank == local_rank);
  CHECK(identity.local_size == local_size);
}

}  // namespace

using Catch::Matchers::Contains;

TEST_CASE("without a launcher or option mptrain is a single node", "[cluster]") {
  const auto identity = identity_of({"PATH=/bin", "HOME=/root"});
  check(identity, 0, 1, 0, 1);
  CHECK(identity.single_node());
  CHECK_FALSE(identity.launched_by_mpi());
  CHECK(describe(identity) == "single node");
  CHECK(identity.notes.empty());
}

TEST_CASE("Open MPI's mpirun gives the node and the local rank", "[cluster]") {
  const auto identity = identity_of(open_mpi_rank_1);
  check(identity, 1, 2, 1, 2);
  CHECK(identity.source == IdentitySource::open_mpi);
  CHECK(identity.launched_by_mpi());
  CHECK_FALSE(identity.single_node());
  CHECK(identity.local_source == "Open MPI");
  CHECK(describe(identity) == "node 1 of 2 (local 1 of 2, from Open MPI)");
}

TEST_CASE("Hydra's PMI variables give the node and the local rank", "[cluster]") {
  const auto identity = identity_of(hydra_rank_3);
  check(identity, 3, 4, 1, 2);
  CHECK(identity.source == IdentitySource::pmi);
  CHECK(identity.launched_by_mpi());
}

TEST_CASE("a launcher without local variables means one mptrain per host", "[cluster]") {
  const auto identity = identity_of({"PMI_RANK=2", "PMI_SIZE=3"});
  check(identity, 2, 3, 0, 1);
  CHECK(identity.local_source == "one per host");
}

TEST_CASE("a Slurm job step gives the task, the node list and this node's tasks", "[cluster]") {
  const auto identity = identity_of(srun_task_3);
  check(identity, 3, 5, 1, 2);
  CHECK(identity.source == IdentitySource::slurm);
  CHECK_FALSE(identity.launched_by_mpi());
  CHECK(identity.node_list == "n[1-3]");
  // The last node of "2(x2),1" has one task.
  const auto last = identity_of({"SLURM_STEP_ID=0", "SLURM_PROCID=4", "SLURM_NTASKS=5", "SLURM_LOCALID=0",
                                 "SLURM_NODEID=2", "SLURM_STEP_TASKS_PER_NODE=2(x2),1"});
  check(last, 4, 5, 0, 1);
}

TEST_CASE("Slurm's job-wide task lists stand in for the step's", "[cluster]") {
  const auto from_job = identity_of({"SLURM_STEPID=1", "SLURM_PROCID=1", "SLURM_NTASKS=4", "SLURM_LOCALID=1",
                                     "SLURM_NODEID=0", "SLURM_TASKS_PER_NODE=2(x2)"});
  check(from_job, 1, 4, 1, 2);
  const auto uniform = identity_of(
      {"SLURM_STEP_ID=0", "SLURM_PROCID=5", "SLURM_NTASKS=6", "SLURM_LOCALID=2", "SLURM_NTASKS_PER_NODE=3"});
  check(uniform, 5, 6, 2, 3);
  const auto no_node_id = identity_of(
      {"SLURM_STEP_ID=0", "SLURM_PROCID=3", "SLURM_NTASKS=4", "SLURM_LOCALID=1", "SLURM_STEP_TASKS_PER_NODE=2(x2)"});
  check(no_node_id, 3, 4, 1, 2);
}

TEST_CASE("a Slurm batch script is no job step: a single node, and a note says why", "[cluster]") {
  const auto identity = identity_of(sbatch_script);
  check(identity, 0, 1, 0, 1);
  CHECK(identity.single_node());
  CHECK(has_note(identity, "SLURM_PROCID=0 is ignored"));
  // The batch, extern and interactive steps have ids above every task-running step.
  const auto batch_step = identity_of(plus(sbatch_script, {"SLURM_STEP_ID=4294967291"}));
  CHECK(batch_step.single_node());
  CHECK(identity_of(plus(sbatch_script, {"SLURM_STEP_ID=batch"})).single_node());
}

TEST_CASE("mpirun inside a Slurm allocation: the MPI launcher's variables win", "[cluster]") {
  // Every rank inherits the batch step's SLURM_PROCID=0: normal, so nothing to say.
  const auto in_batch =
      identity_of(plus(sbatch_script, {"OMPI_COMM_WORLD_RANK=3", "OMPI_COMM_WORLD_SIZE=4",
                                       "OMPI_COMM_WORLD_LOCAL_RANK=1", "OMPI_COMM_WORLD_LOCAL_SIZE=2"}));
  check(in_batch, 3, 4, 1, 2);
  CHECK(in_batch.source == IdentitySource::open_mpi);
  CHECK(in_batch.notes.empty());
  // Inside an `srun -n 1` step the task variables are per task but not mptrain's: noted, not an error.
  const auto in_step = identity_of({"SLURM_STEP_ID=0", "SLURM_PROCID=0", "SLURM_NTASKS=1", "SLURM_LOCALID=0",
                                    "SLURM_NTASKS_PER_NODE=1", "OMPI_COMM_WORLD_RANK=3", "OMPI_COMM_WORLD_SIZE=4"});
  check(in_step, 3, 4, 0, 1);
  CHECK(has_note(in_step, "Slurm's SLURM_PROCID=0 and SLURM_NTASKS=1 are ignored"));
}

TEST_CASE("a PyTorchJob's PET variables give the node, one per pod", "[cluster]") {
  const auto identity = identity_of(pytorch_job_pod_1);
  check(identity, 1, 2, 0, 1);
  CHECK(identity.source == IdentitySource::pytorch_job);
  CHECK(identity_of({"PET_NNODES=2:2", "PET_NODE_RANK=1"}).count == 2);
  const auto loopback = identity_of({"PET_NNODES=2", "PET_NODE_RANK=1", "PET_MASTER_ADDR=127.0.0.1"});
  check(loopback, 1, 2, 1, 2);
}

TEST_CASE("by hand, --nnodes and --node-rank mean one mptrain per host", "[cluster]") {
  const auto identity = identity_of({}, request_nodes(2, 1));
  check(identity, 1, 2, 0, 1);
  CHECK(identity.source == IdentitySource::options);
  CHECK(describe(identity) == "node 1 of 2 (local 0 of 1, from --nnodes)");
  auto remote = request_nodes(2, 1);
  remote.master_addr = "10.0.0.1";
  check(identity_of({}, remote), 1, 2, 0, 1);
}

TEST_CASE("a loopback master address puts every node on this host", "[cluster]") {
  for (const char* address : {"127.0.0.1", "localhost", "::1"}) {
    INFO(address);
    auto request = request_nodes(3, 2);
    request.master_addr = address;
    const auto identity = identity_of({}, request);
    check(identity, 2, 3, 2, 3);
    CHECK(identity.local_source == "loopback master address");
    CHECK(has_note(identity, "loopback"));
  }
}

TEST_CASE("by hand, --local-rank and --local-size set the local part", "[cluster]") {
  auto request = request_nodes(2);
  request.local_rank = 1;
  request.local_size = 2;
  const auto identity = identity_of({}, request);
  check(identity, 0, 2, 1, 2);
  CHECK(identity.local_source == "--local-size");
  CHECK(has_note(identity, "--node-rank not given"));
  // They win over the loopback rule, and fill in what a launcher leaves open.
  request.master_addr = "127.0.0.1";
  request.local_rank = 0;
  request.local_size = 1;
  check(identity_of({}, request), 0, 2, 0, 1);
  NodeRequest local;
  local.local_rank = 1;
  local.local_size = 2;
  check(identity_of({"PMI_RANK=3", "PMI_SIZE=4"}, local), 3, 4, 1, 2);
}

TEST_CASE("options that agree with the launcher are accepted", "[cluster]") {
  auto request = request_nodes(2, 1);
  request.local_rank = 1;
  request.local_size = 2;
  check(identity_of(open_mpi_rank_1, request), 1, 2, 1, 2);
}

TEST_CASE("options that contradict the launcher are refused, naming both", "[cluster]") {
  CHECK_THAT(identity_refusal(open_mpi_rank_1, request_nodes(2, 0)),
             Contains("--node-rank 0 contradicts OMPI_COMM_WORLD_RANK=1") && Contains("Open MPI's mpirun"));
  CHECK_THAT(identity_refusal(open_mpi_rank_1, request_nodes(3)),
             Contains("--nnodes 3 contradicts OMPI_COMM_WORLD_SIZE=2"));
  NodeRequest local;
  local.local_rank = 0;
  CHECK_THAT(identity_refusal(open_mpi_rank_1, local),
             Contains("--local-rank 0 contradicts OMPI_COMM_WORLD_LOCAL_RANK=1"));
  local = {};
  local.local_size = 1;
  CHECK_THAT(identity_refusal(srun_task_3, local), Contains("--local-size 1 contradicts the 2 tasks of "
                                                            "SLURM_STEP_TASKS_PER_NODE=2(x2),1 at SLURM_NODEID=1"));
}

TEST_CASE("as in torchrun, an option wins over its PET_ variable", "[cluster]") {
  const auto given = identity_of(pytorch_job_pod_1, request_nodes(2, 0));
  CHECK(given.rank == 0);
  CHECK(given.count == 2);
  CHECK(identity_of({"PET_NNODES=2"}, request_nodes(1)).count == 1);
  const auto counted = identity_of({"PET_NODE_RANK=1"}, request_nodes(2));
  CHECK(counted.rank == 1);
  CHECK(counted.count == 2);
}

TEST_CASE("two launchers' variables that disagree are refused, naming both", "[cluster]") {
  CHECK_THAT(identity_refusal(plus(open_mpi_rank_1, {"PMI_RANK=0", "PMI_SIZE=2"})),
             Contains("OMPI_COMM_WORLD_RANK=1") && Contains("PMI_RANK=0") && Contains("disagree"));
  CHECK(identity_of(plus(open_mpi_rank_1, {"PMI_RANK=1", "PMI_SIZE=2"})).source == IdentitySource::open_mpi);
  CHECK_THAT(identity_refusal(plus(open_mpi_rank_1, {"PET_NNODES=4", "PET_NODE_RANK=1"})),
             Contains("PET_NNODES=4") && Contains("OMPI_COMM_WORLD_SIZE=2"));
  CHECK_THAT(identity_refusal(plus(srun_task_3, {"PET_NNODES=5", "PET_NODE_RANK=0"})),
             Contains("PET_NODE_RANK=0") && Contains("SLURM_PROCID=3"));
}

TEST_CASE("PMIX_RANK must agree with the rank found, and alone needs --nnodes", "[cluster]") {
  CHECK_THAT(identity_refusal({"OMPI_COMM_WORLD_RANK=0", "OMPI_COMM_WORLD_SIZE=2", "PMIX_RANK=1"}),
             Contains("PMIX_RANK=1 disagrees with OMPI_COMM_WORLD_RANK=0"));
  CHECK_THAT(identity_refusal({"PMIX_RANK=1"}), Contains("PMIX_RANK=1 is set") && Contains("give --nnodes"));
  check(identity_of({"PMIX_RANK=1"}, request_nodes(2)), 1, 2, 0, 1);
  CHECK_THAT(identity_refusal({"PMIX_RANK=1"}, request_nodes(2, 0)),
             Contains("PMIX_RANK=1 disagrees with --node-rank 0"));
  // PMI_RANK without PMI_SIZE is such a rank too.
  CHECK_THAT(identity_refusal({"PMI_RANK=1"}), Contains("PMI_RANK=1 is set"));
}

TEST_CASE("malformed or out-of-range variables are refused, naming the variable", "[cluster]") {
  const auto refused = [](const Environment& environment, const std::string& text) {
    INFO(environment.front());
    CHECK_THAT(identity_refusal(environment), Contains(text));
  };
  refused({"OMPI_COMM_WORLD_RANK=abc", "OMPI_COMM_WORLD_SIZE=2"}, "OMPI_COMM_WORLD_RANK=abc is not a whole number");
  refused({"OMPI_COMM_WORLD_RANK=-1", "OMPI_COMM_WORLD_SIZE=2"}, "OMPI_COMM_WORLD_RANK=-1 is negative");
  refused({"OMPI_COMM_WORLD_RANK=0", "OMPI_COMM_WORLD_SIZE=0"}, "OMPI_COMM_WORLD_SIZE=0 is not a count");
  refused({"OMPI_COMM_WORLD_RANK=2", "OMPI_COMM_WORLD_SIZE=2"},
          "OMPI_COMM_WORLD_RANK=2 is not below OMPI_COMM_WORLD_SIZE=2");
  refused({"OMPI_COMM_WORLD_RANK=1"}, "OMPI_COMM_WORLD_RANK=1 is set but OMPI_COMM_WORLD_SIZE is not");
  refused({"OMPI_COMM_WORLD_RANK=0", "OMPI_COMM_WORLD_SIZE=2", "OMPI_COMM_WORLD_LOCAL_RANK=2",
           "OMPI_COMM_WORLD_LOCAL_SIZE=2"},
          "OMPI_COMM_WORLD_LOCAL_RANK=2 is not below OMPI_COMM_WORLD_LOCAL_SIZE=2");
  refused({"OMPI_COMM_WORLD_RANK=0", "OMPI_COMM_WORLD_SIZE=2", "OMPI_COMM_WORLD_LOCAL_RANK=0",
           "OMPI_COMM_WORLD_LOCAL_SIZE=4"},
          "OMPI_COMM_WORLD_LOCAL_SIZE=4 is more than OMPI_COMM_WORLD_SIZE=2");
  refused({"PMI_SIZE=2"}, "PMI_SIZE=2 is set but PMI_RANK is not");
  refused({"PMI_RANK=1 ", "PMI_SIZE=2"}, "PMI_RANK=1  is not a whole number");
  refused({"OMPI_COMM_WORLD_RANK=99999999999999999999", "OMPI_COMM_WORLD_SIZE=2"}, "is not a whole number");
  refused({"OMPI_COMM_WORLD_RANK=0", "OMPI_COMM_WORLD_SIZE=99999999"}, "is more than");
  refused({"SLURM_STEP_ID=0", "SLURM_PROCID=x", "SLURM_NTASKS=2"}, "SLURM_PROCID=x is not a whole number");
  refused({"SLURM_STEP_ID=0", "SLURM_PROCID=1"}, "SLURM_PROCID=1 is set but SLURM_NTASKS is not");
  refused({"SLURM_STEP_ID=0", "SLURM_PROCID=0", "SLURM_NTASKS=4", "SLURM_STEP_TASKS_PER_NODE=2,1(x2)"},
          "SLURM_STEP_TASKS_PER_NODE=2,1(x2) differs between nodes but SLURM_NODEID is not set");
  refused({"SLURM_STEP_ID=0", "SLURM_PROCID=0", "SLURM_NTASKS=4", "SLURM_NODEID=3", "SLURM_TASKS_PER_NODE=2(x2)"},
          "SLURM_TASKS_PER_NODE=2(x2) at SLURM_NODEID=3: it lists 2 nodes, so there is no node 3");
  refused({"SLURM_STEP_ID=0", "SLURM_PROCID=0", "SLURM_NTASKS=4", "SLURM_LOCALID=2", "SLURM_NTASKS_PER_NODE=2"},
          "SLURM_LOCALID=2 is not below SLURM_NTASKS_PER_NODE=2");
  refused({"SLURM_STEP_ID=0", "SLURM_PROCID=0", "SLURM_NTASKS=4", "SLURM_LOCALID=1"},
          "SLURM_LOCALID=1 is not below the local size 1 (one mptrain per host; give --local-size)");
  refused({"PET_NNODES=1:4"}, "PET_NNODES=1:4 is an elastic range");
  refused({"PET_NNODES=two"}, "PET_NNODES=two is not a whole number");
  refused({"PET_NODE_RANK=1"}, "PET_NODE_RANK=1 is set, but neither PET_NNODES nor --nnodes says how many nodes");
  refused({"PET_NNODES=2", "PET_NODE_RANK=1.5"}, "PET_NODE_RANK=1.5 is not a whole number");
}

TEST_CASE("errors about a launcher's variables say which launcher sets them", "[cluster]") {
  CHECK_THAT(identity_refusal({"OMPI_COMM_WORLD_RANK=x", "OMPI_COMM_WORLD_SIZE=2"}),
             Contains("Open MPI's mpirun sets"));
  CHECK_THAT(identity_refusal({"PMI_SIZE=2"}), Contains("Hydra mpiexec"));
  CHECK_THAT(identity_refusal({"SLURM_STEP_ID=0", "SLURM_PROCID=1"}), Contains("Slurm's srun"));
  CHECK_THAT(identity_refusal({"PET_NNODES=0"}), Contains("PyTorchJob"));
}

TEST_CASE("a variable set to the empty string counts as unset", "[cluster]") {
  CHECK(identity_of({"OMPI_COMM_WORLD_RANK=", "OMPI_COMM_WORLD_SIZE="}).single_node());
}

TEST_CASE("inconsistent options are refused, naming them", "[cluster]") {
  NodeRequest request;
  request.node_rank = 1;
  CHECK_THAT(identity_refusal({}, request), Contains("--node-rank 1 needs --nnodes"));
  request = {};
  request.local_size = 2;
  CHECK_THAT(identity_refusal({}, request), Contains("--local-size 2 needs --nnodes"));
  CHECK_THAT(identity_refusal({}, request_nodes(2, 2)), Contains("--node-rank 2 is not below --nnodes 2"));
  request = request_nodes(2, 1);
  request.local_size = 3;
  CHECK_THAT(identity_refusal({}, request), Contains("--local-size 3 is more than --nnodes 2"));
  request = request_nodes(2, 1);
  request.local_rank = 1;
  CHECK_THAT(identity_refusal({}, request), Contains("--local-rank 1 is not below the local size 1"));
}

TEST_CASE("Slurm's compressed tasks-per-node lists are read node by node", "[cluster]") {
  for (int node = 0; node < 3; ++node) CHECK(*slurm_tasks_on_node("2(x3),1", node) == 2);
  CHECK(*slurm_tasks_on_node("2(x3),1", 3) == 1);
  CHECK(*slurm_tasks_on_node("4", 0) == 4);
  CHECK(*slurm_tasks_on_node("1,3(x2),5", 2) == 3);
  CHECK(*slurm_tasks_on_node("1,3(x2),5", 3) == 5);
  CHECK_THAT(slurm_tasks_on_node("2(x3),1", 4).error().message, Contains("lists 4 nodes, so there is no node 4"));
  for (const char* bad : {"", "x", "2(x)", "2(x3", "2(x0)", "2(y3)", "-1", "2(x3)1", " 2"}) {
    INFO(bad);
    CHECK_FALSE(slurm_tasks_on_node(bad, 0).ok());
  }
  CHECK_THAT(slurm_tasks_on_node("0,2", 0).error().message, Contains("node 0 has 0 tasks"));
  CHECK(*slurm_tasks_on_node("0,2", 1) == 2);
}

TEST_CASE("loopback addresses and names are recognised without a lookup", "[cluster]") {
  for (const char* address : {"127.0.0.1", "127.1.2.3", "::1", "[::1]", "::ffff:127.0.0.1", "localhost", "LOCALHOST",
                              "localhost.", "localhost.localdomain", "ip6-localhost", "node.localhost"}) {
    INFO(address);
    CHECK(is_loopback(address));
  }
  for (const char* address : {"", "10.0.0.1", "128.0.0.1", "::", "::2", "::ffff:10.0.0.1", "example.com", "node0",
                              "localhost.example.com", "127.0.0.1.example.com"}) {
    INFO(address);
    CHECK_FALSE(is_loopback(address));
  }
}

TEST_CASE("a node's JSON names its ranks, sizes and sources", "[cluster]") {
  const auto json = node_json(identity_of(open_mpi_rank_1));
  CHECK(json["rank"] == 1);
  CHECK(json["count"] == 2);
  CHECK(json["local_rank"] == 1);
  CHECK(json["local_size"] == 2);
  CHECK(json["local_source"] == "Open MPI");
  CHECK(json["node_list"].is_null());
  CHECK(json.size() == 7);
}
