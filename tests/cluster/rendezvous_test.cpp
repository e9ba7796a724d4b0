// The rendezvous of nodes started without MPI, and where a node count came from.
#include "cluster/rendezvous.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

using namespace mptrain;
using namespace mptrain::cluster;

namespace {

NodeIdentity rendezvous_nodes(int count, IdentitySource source = IdentitySource::options) {
  NodeIdentity node;
  node.count = count;
  node.source = source;
  return node;
}

}  // namespace

TEST_CASE("one node meets on the loopback address, on the port given or a free one") {
  const auto endpoint = endpoint_without_mpi(rendezvous_nodes(1, IdentitySource::single_node), {}, {});
  REQUIRE(endpoint.ok());
  CHECK(endpoint->address == "127.0.0.1");
  CHECK(endpoint->port == 0);
  const auto given = endpoint_without_mpi(rendezvous_nodes(1), {"MASTER_ADDR=10.0.0.9"}, {"node0", 1234});
  REQUIRE(given.ok());
  CHECK(given->address == "node0");
  CHECK(given->port == 1234);
}

TEST_CASE("several nodes without MPI take node 0's address from the options, then the variables") {
  const auto options = endpoint_without_mpi(rendezvous_nodes(2), {"PET_MASTER_ADDR=a", "MASTER_PORT=7"}, {"given", 0});
  REQUIRE(options.ok());
  CHECK(options->address == "given");
  CHECK(options->port == 7);
  const auto pet =
      endpoint_without_mpi(rendezvous_nodes(2), {"MASTER_ADDR=b", "PET_MASTER_ADDR=a", "PET_MASTER_PORT=8"}, {});
  REQUIRE(pet.ok());
  CHECK(pet->address == "a");
  CHECK(pet->port == 8);
  const auto fallback = endpoint_without_mpi(rendezvous_nodes(2), {"PET_MASTER_ADDR=", "MASTER_ADDR=b"}, {});
  REQUIRE(fallback.ok());
  CHECK(fallback->address == "b");
  CHECK(fallback->port == default_master_port);
}

TEST_CASE("several nodes without an address, or with a variable that is no port, are refused") {
  const auto none = endpoint_without_mpi(rendezvous_nodes(3), {}, {});
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().message == "3 nodes without MPI need node 0's address: give --master-addr ADDR on every node");
  const auto bad = endpoint_without_mpi(rendezvous_nodes(2), {"MASTER_ADDR=a", "MASTER_PORT=70000"}, {});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message ==
        "MASTER_PORT=70000 is not a port (1-65535); fix or unset it, or give --master-port PORT on every node");
}

TEST_CASE("a node count's origin names the option or the launcher's variable") {
  CHECK(count_origin(rendezvous_nodes(2)) == "--nnodes 2");
  CHECK(count_origin(rendezvous_nodes(2, IdentitySource::slurm)) == "Slurm's srun (SLURM_NTASKS=2)");
  CHECK(count_origin(rendezvous_nodes(3, IdentitySource::pytorch_job)) == "PET_NNODES=3 (a Kubernetes PyTorchJob)");
}

TEST_CASE("agree_rendezvous: without MPI, the endpoint given and no MPI session") {
  const auto rendezvous = agree_rendezvous(rendezvous_nodes(1), 2, {"node0", 1234});
  CHECK(rendezvous.mpi == nullptr);
  CHECK(rendezvous.master_addr == "node0");
  CHECK(rendezvous.master_port == 1234);
}

TEST_CASE("built-in training across nodes needs an MPI launcher") {
  CHECK(training_nodes_refusal(rendezvous_nodes(1)).empty());
  CHECK(training_nodes_refusal(rendezvous_nodes(2, IdentitySource::open_mpi)).empty());
  CHECK(
      training_nodes_refusal(rendezvous_nodes(2))
          .starts_with(
              "this mptrain learned of 2 nodes from --nnodes 2, which starts no MPI; built-in training across nodes"));
}
