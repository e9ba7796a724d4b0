// How the nodes of a launch across machines agree on its rendezvous (SPEC
// "Beyond one machine"): under an MPI launcher node 0 picks MASTER_ADDR and
// MASTER_PORT and broadcasts them, and the nodes check they plan the same
// number of workers; started by hand, the options (or a PyTorchJob's
// variables) say it.
#include <fmt/format.h>
#include <unistd.h>

#include <array>
#include <climits>

#include "cli/commands.hpp"
#include "cli/run.hpp"
#include "procmgr/port.hpp"
#include "util/environment.hpp"
#include "util/failure.hpp"
#include "util/text.hpp"

namespace mptrain::cli {

namespace {

// torchrun's default MASTER_PORT, which nodes started by hand agree on.
constexpr int default_master_port = 29500;

std::string host_name() {
  std::array<char, HOST_NAME_MAX + 1> name{};
  if (::gethostname(name.data(), name.size()) != 0) return "127.0.0.1";
  name.back() = '\0';
  return name.data();
}

// The first of `names` set (non-empty) in this process's environment, and
// its value; two empty strings when none is.
std::pair<std::string_view, std::string> first_set(std::initializer_list<std::string_view> names) {
  const auto environment = current_environment();
  std::string value;
  for (auto name : names) {
    if (find_variable(environment, name, &value) && !value.empty()) return {name, value};
  }
  return {};
}

// The value of the first of `names` set in this process's environment; "" when none is.
std::string first_variable(std::initializer_list<std::string_view> names) { return first_set(names).second; }

// The port in variable `name`'s `value`; a usage Failure when it is not
// one, since dropping it could leave the nodes on different ports.
int port_from_variable(std::string_view name, const std::string& value) {
  const auto port = parse_int(value);
  if (!port.ok() || *port < 1 || *port > 65535) {
    usage_failure("{}={} is not a port (1-65535); fix or unset it, or give --master-port PORT on every node", name,
                  value);
  }
  return static_cast<int>(*port);
}

// Checks that every node plans `workers` workers per node (WORLD_SIZE is K x M).
void check_same_workers(cluster::Mpi& mpi, int workers) {
  std::array<std::int64_t, 2> extremes = {workers, -workers};
  if (auto status = mpi.max(extremes); !status.ok()) runtime_failure("{}", status.error().message);
  if (extremes[0] != -extremes[1]) {
    usage_failure("the nodes plan different numbers of workers (from {} to {}); give the same -n on every node",
                  -extremes[1], extremes[0]);
  }
}

// MASTER_ADDR and MASTER_PORT from node 0, broadcast over MPI.
Rendezvous agree_over_mpi(const cluster::NodeIdentity& node, int workers, const std::string& master_addr,
                          int master_port) {
  Rendezvous rendezvous;
  rendezvous.mpi = start_mpi(node);
  auto& mpi = *rendezvous.mpi;
  check_same_workers(mpi, workers);
  std::string offer;
  if (node.rank == 0) {
    const int port = master_port != 0 ? master_port : value_or_fail(procmgr::find_free_port());
    offer = fmt::format("{} {}", master_addr.empty() ? host_name() : master_addr, port);
  }
  const auto agreed = value_or_fail(mpi.broadcast(offer, 0));
  const auto words = split_words(agreed);
  if (words.size() != 2) runtime_failure("node 0 sent a rendezvous this node cannot read: '{}'", agreed);
  rendezvous.master_addr = std::string(words[0]);
  rendezvous.master_port = static_cast<int>(value_or_fail(parse_int(words[1])));
  return rendezvous;
}

}  // namespace

std::unique_ptr<cluster::Mpi> start_mpi(const cluster::NodeIdentity& node) {
  auto mpi = value_or_fail(cluster::Mpi::start());
  if (mpi->size() != node.count || mpi->rank() != node.rank) {
    runtime_failure("MPI says this is rank {} of {}, but the launcher's variables say node {} of {}", mpi->rank(),
                    mpi->size(), node.rank, node.count);
  }
  return mpi;
}

Rendezvous agree_rendezvous(const cluster::NodeIdentity& node, int workers, const std::string& master_addr,
                            int master_port) {
  if (node.count > 1 && node.launched_by_mpi()) return agree_over_mpi(node, workers, master_addr, master_port);
  Rendezvous rendezvous;
  rendezvous.master_addr = master_addr;
  rendezvous.master_port = master_port;
  if (node.count == 1) {
    if (rendezvous.master_addr.empty()) rendezvous.master_addr = "127.0.0.1";
    return rendezvous;  // port 0: the launcher picks a free one
  }
  // Started by hand, by Slurm or by a PyTorchJob: node 0's address must be given.
  if (rendezvous.master_addr.empty()) rendezvous.master_addr = first_variable({"PET_MASTER_ADDR", "MASTER_ADDR"});
  if (rendezvous.master_addr.empty()) {
    usage_failure("{} nodes without MPI need node 0's address: give --master-addr ADDR on every node", node.count);
  }
  if (rendezvous.master_port == 0) {
    const auto [name, port] = first_set({"PET_MASTER_PORT", "MASTER_PORT"});
    rendezvous.master_port = port.empty() ? default_master_port : port_from_variable(name, port);
  }
  return rendezvous;
}

}  // namespace mptrain::cli
