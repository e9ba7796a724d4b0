// How the nodes of a launch across machines agree on its rendezvous, node
// 0's address and port (SPEC "Beyond one machine"): under an MPI launcher
// node 0 offers them and broadcasts them, and the nodes check they plan the
// same number of workers; started by hand, the options (or a PyTorchJob's
// variables) say them.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/identity.hpp"
#include "cluster/mpi.hpp"
#include "util/result.hpp"

namespace mptrain::cluster {

// torchrun's default MASTER_PORT, which nodes started by hand agree on.
inline constexpr int default_master_port = 29500;

// Node 0's address and port.
struct Endpoint {
  std::string address;
  int port = 0;  // 0: a free port, picked by the launcher (one node)
};

// The rendezvous of `node` when no MPI launcher started several nodes
// (pure), from the options (`given`: "" and 0 when not given) and
// `environment`: on one node the address given or 127.0.0.1 and the port
// given; across nodes the address given, PET_MASTER_ADDR or MASTER_ADDR,
// and the port given, PET_MASTER_PORT, MASTER_PORT or 29500. An Error (a
// usage error) when several nodes have no address, or a variable's port is
// not one.
Result<Endpoint> endpoint_without_mpi(const NodeIdentity& node, const std::vector<std::string>& environment,
                                      const Endpoint& given);

// Why built-in training cannot run on `node`'s nodes: several nodes that
// no MPI launcher started (only MPI can average their models); "" when it can.
std::string training_nodes_refusal(const NodeIdentity& node);

// MPI started for `node` (through the plugin); an Error when it cannot be,
// or when MPI's rank and size are not the node's.
Result<std::unique_ptr<Mpi>> start_mpi_for(const NodeIdentity& node);

// Checks that every node of `mpi` plans `workers` workers (WORLD_SIZE is
// K x M); throws a usage Failure when they differ, a runtime Failure when MPI fails.
void check_same_workers(Mpi& mpi, int workers);

// Node 0's `offer` (read on node 0 only), on every node of `mpi`; an Error
// when MPI fails or what node 0 sent cannot be read.
Result<Endpoint> share_endpoint(Mpi& mpi, const Endpoint& offer);

// This host's name, as node 0 offers it when no address is given; 127.0.0.1 when it has none.
std::string host_name();

// What the nodes of a launch agreed on: node 0's address and port, and the
// MPI session they agreed over (null unless an MPI launcher started several
// nodes; kept for the run, to end the whole job when a node fails).
struct Rendezvous {
  std::unique_ptr<Mpi> mpi;
  std::string master_addr;
  int master_port = 0;  // 0: a free port, picked by the launcher (one node)
};

// The rendezvous of `node`, whose mptrain plans `workers` workers, with the
// --master-addr and --master-port `given` ("" and 0 when not given): over
// MPI when an MPI launcher started several nodes (node 0's address — its
// host name unless given — and a free port, broadcast; every node must plan
// as many workers), else endpoint_without_mpi(). Throws a usage Failure when
// several nodes without MPI have no master address, and a runtime Failure
// when MPI fails.
Rendezvous agree_rendezvous(const NodeIdentity& node, int workers, const Endpoint& given);

}  // namespace mptrain::cluster
