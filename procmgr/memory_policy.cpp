// A worker's NUMA memory policy (group.hpp): the default, and its name.
#include <fmt/format.h>

#include "procmgr/group.hpp"

namespace mptrain::procmgr {

MemoryPolicy node_memory_policy(int node, const CpuSet& online) {
  MemoryPolicy policy;
  if (node >= 0 && online.size() > 1 && online.contains(node)) policy.nodes = CpuSet({node});
  return policy;
}

std::string to_string(const MemoryPolicy& policy) {
  if (policy.nodes.empty()) return "default";
  return fmt::format("{} {}", mptrain::to_string(policy.mode), policy.nodes.to_short_string());
}

}  // namespace mptrain::procmgr
