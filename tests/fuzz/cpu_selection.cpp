// Fuzz target: --cpus selections (CPU lists and hwloc locations), resolved
// against a fixed synthetic machine: what resolves lies inside that machine.
#include "affinity/cpu_selection.hpp"

#include <cstdint>
#include <string_view>

namespace {

// Two packages, four NUMA nodes, an L3 per node, two L2 and L1 per L3: every level a location names.
const mptrain::affinity::Topology& machine() {
  static const mptrain::affinity::Topology topology =
      mptrain::affinity::load_synthetic_topology("package:2 numa:2 l3:1 l2:2 l1:1 core:2 pu:2").value();
  return topology;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto selection = mptrain::affinity::parse_cpu_selection(text);
  if (!selection.ok()) return 0;
  auto cpus = mptrain::affinity::resolve_cpu_selection(*selection, machine());
  if (!cpus.ok()) return 0;
  // The CPU lists are kept, locations add at least one PU and only PUs of the machine (0-31).
  if (!(cpus->intersect(selection->cpus) == selection->cpus)) __builtin_trap();
  const mptrain::CpuSet located = cpus->minus(selection->cpus);
  if (!located.empty() && located.cpus().back() >= 32) __builtin_trap();
  if (cpus->empty()) __builtin_trap();
  return 0;
}
