// The rendezvous of a launch across nodes (cluster/rendezvous.hpp): over MPI
// when an MPI launcher started several nodes, else from the options and the
// environment.
#include "cli/run.hpp"
#include "cluster/rendezvous.hpp"
#include "procmgr/port.hpp"
#include "util/environment.hpp"
#include "util/failure.hpp"

namespace mptrain::cli {

std::unique_ptr<cluster::Mpi> start_mpi(const cluster::NodeIdentity& node) {
  return value_or_fail(cluster::start_mpi_for(node));
}

Rendezvous agree_rendezvous(const cluster::NodeIdentity& node, int workers, const std::string& master_addr,
                            int master_port) {
  Rendezvous rendezvous;
  cluster::Endpoint endpoint{master_addr, master_port};
  if (node.count > 1 && node.launched_by_mpi()) {
    rendezvous.mpi = start_mpi(node);
    cluster::check_same_workers(*rendezvous.mpi, workers);
    if (node.rank == 0) {
      if (endpoint.address.empty()) endpoint.address = cluster::host_name();
      if (endpoint.port == 0) endpoint.port = value_or_fail(procmgr::find_free_port());
    }
    endpoint = value_or_fail(cluster::share_endpoint(*rendezvous.mpi, endpoint));
  } else {
    endpoint =
        value_or_fail(cluster::endpoint_without_mpi(node, current_environment(), endpoint), exit_code::usage_error);
  }
  rendezvous.master_addr = endpoint.address;
  rendezvous.master_port = endpoint.port;
  return rendezvous;
}

}  // namespace mptrain::cli
