#include "cluster/rendezvous.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <array>
#include <climits>
#include <utility>

#include "procmgr/port.hpp"
#include "util/environment.hpp"
#include "util/failure.hpp"
#include "util/launcher_variables.hpp"
#include "util/text.hpp"

namespace mptrain::cluster {

namespace {

// The first of `names` set (non-empty) in `environment`, and its value; two empty strings when none is.
std::pair<std::string_view, std::string> first_set(const std::vector<std::string>& environment,
                                                   std::initializer_list<std::string_view> names) {
  std::string value;
  for (auto name : names) {
    if (find_variable(environment, name, &value) && !value.empty()) return {name, value};
  }
  return {};
}

// The port in variable `name`'s `value`; an Error when it is not one, since
// dropping it could leave the nodes on different ports.
Result<int> port_from_variable(std::string_view name, const std::string& value) {
  const auto port = parse_int(value);
  if (!port.ok() || *port < 1 || *port > 65535) {
    return Error{fmt::format("{}={} is not a port (1-65535); fix or unset it, or give --master-port PORT on every node",
                             name, value)};
  }
  return static_cast<int>(*port);
}

}  // namespace

Result<Endpoint> endpoint_without_mpi(const NodeIdentity& node, const std::vector<std::string>& environment,
                                      const Endpoint& given) {
  Endpoint endpoint = given;
  if (node.count == 1) {
    if (endpoint.address.empty()) endpoint.address = "127.0.0.1";
    return endpoint;
  }
  // Started by hand, by Slurm or by a PyTorchJob: node 0's address must be given.
  if (endpoint.address.empty())
    endpoint.address =
        first_set(environment, {launcher_variables::pet_master_addr, launcher_variables::master_addr}).second;
  if (endpoint.address.empty()) {
    return Error{
        fmt::format("{} nodes without MPI need node 0's address: give --master-addr ADDR on every node", node.count)};
  }
  if (endpoint.port == 0) {
    const auto [name, port] =
        first_set(environment, {launcher_variables::pet_master_port, launcher_variables::master_port});
    if (port.empty()) {
      endpoint.port = default_master_port;
    } else if (auto parsed = port_from_variable(name, port); parsed.ok()) {
      endpoint.port = *parsed;
    } else {
      return parsed.error();
    }
  }
  return endpoint;
}

Result<std::unique_ptr<Mpi>> start_mpi_for(const NodeIdentity& node) {
  auto mpi = Mpi::start();
  if (!mpi.ok()) return mpi.error();
  if ((*mpi)->size() != node.count || (*mpi)->rank() != node.rank) {
    return Error{fmt::format("MPI says this is rank {} of {}, but the launcher's variables say node {} of {}",
                             (*mpi)->rank(), (*mpi)->size(), node.rank, node.count)};
  }
  return mpi;
}

void check_same_workers(Mpi& mpi, int workers) {
  std::array<std::int64_t, 2> extremes = {workers, -workers};
  if (auto status = mpi.max(extremes); !status.ok()) runtime_failure("{}", status.error().message);
  if (extremes[0] != -extremes[1]) {
    usage_failure(
        "the nodes plan different numbers of workers (from {} to {}); give the same worker count (-n, or "
        "torchrun's --nproc-per-node) on every node",
        -extremes[1], extremes[0]);
  }
}

Result<Endpoint> share_endpoint(Mpi& mpi, const Endpoint& offer) {
  const auto agreed = mpi.broadcast(mpi.rank() == 0 ? fmt::format("{} {}", offer.address, offer.port) : "", 0);
  if (!agreed.ok()) return agreed.error();
  const auto words = split_words(*agreed);
  const auto port = words.size() == 2 ? parse_int(words[1]) : Result<long long>(Error{});
  if (!port.ok()) return Error{fmt::format("node 0 sent a rendezvous this node cannot read: '{}'", *agreed)};
  return Endpoint{std::string(words[0]), static_cast<int>(*port)};
}

std::string host_name() {
  std::array<char, HOST_NAME_MAX + 1> name{};
  if (::gethostname(name.data(), name.size()) != 0) return "127.0.0.1";
  name.back() = '\0';
  return name.data();
}

std::string training_nodes_refusal(const NodeIdentity& node) {
  if (node.count == 1 || node.launched_by_mpi()) return {};
  return fmt::format(
      "this mptrain learned of {} nodes from {}, which starts no MPI; built-in training across nodes averages the "
      "model over MPI: start one mptrain per node with mpirun (e.g. `mpirun -n {} mptrain run …`), or train on one "
      "node",
      node.count, count_origin(node), node.count);
}

Rendezvous agree_rendezvous(const NodeIdentity& node, int workers, const Endpoint& given) {
  Rendezvous rendezvous;
  Endpoint endpoint = given;
  if (node.count > 1 && node.launched_by_mpi()) {
    rendezvous.mpi = value_or_fail(start_mpi_for(node));
    check_same_workers(*rendezvous.mpi, workers);
    if (node.rank == 0) {
      if (endpoint.address.empty()) endpoint.address = host_name();
      if (endpoint.port == 0) endpoint.port = value_or_fail(procmgr::find_free_port());
    }
    endpoint = value_or_fail(share_endpoint(*rendezvous.mpi, endpoint));
  } else {
    endpoint = value_or_fail(endpoint_without_mpi(node, current_environment(), endpoint), exit_code::usage_error);
  }
  rendezvous.master_addr = endpoint.address;
  rendezvous.master_port = endpoint.port;
  return rendezvous;
}

}  // namespace mptrain::cluster
