// Fuzz target: launcher variables (Open MPI, PMI, Slurm, PyTorchJob), one
// "NAME=value" entry per line, read with no option and with --nnodes 2
// --node-rank 1 --master-addr 127.0.0.1: an identity read is always in range,
// and every value is also read as a Slurm tasks-per-node list.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/identity.hpp"
#include "util/text.hpp"

namespace {

// An identity's numbers must be ranks below their counts, with no more mptrain on a host than nodes.
void check(const mptrain::Result<mptrain::cluster::NodeIdentity>& identity) {
  if (!identity.ok()) return;
  const auto& node = *identity;
  if (node.rank < 0 || node.rank >= node.count) __builtin_trap();
  if (node.local_rank < 0 || node.local_rank >= node.local_size || node.local_size > node.count) __builtin_trap();
  if (node.single_node() && node.count != 1) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> environment;
  for (const auto line : mptrain::split(text, '\n')) {
    environment.emplace_back(line);
    const auto value = line.substr(line.find('=') == std::string_view::npos ? line.size() : line.find('=') + 1);
    for (int node : {0, 1, 7}) {
      const auto tasks = mptrain::cluster::slurm_tasks_on_node(value, node);
      if (tasks.ok() && *tasks < 1) __builtin_trap();
    }
  }
  check(mptrain::cluster::read_node_identity(environment, {}));
  mptrain::cluster::NodeRequest request;
  request.nnodes = 2;
  request.node_rank = 1;
  request.master_addr = "127.0.0.1";
  check(mptrain::cluster::read_node_identity(environment, request));
  return 0;
}
