// The plain-struct queries over a Topology (no hwloc here).
#include "affinity/topology.hpp"

#include <set>

namespace mptrain::affinity {

CpuSet all_cpus(const Topology& topology) {
  std::vector<int> cpus;
  for (const Pu& pu : topology.pus) cpus.push_back(pu.os_index);
  return CpuSet(std::move(cpus));
}

CpuSet package_cpus(const Topology& topology, int package) {
  std::vector<int> cpus;
  for (const Pu& pu : topology.pus) {
    if (pu.package == package) cpus.push_back(pu.os_index);
  }
  return CpuSet(std::move(cpus));
}

CpuSet numa_node_cpus(const Topology& topology, int node) {
  std::vector<int> cpus;
  for (const Pu& pu : topology.pus) {
    if (pu.numa_node == node) cpus.push_back(pu.os_index);
  }
  return CpuSet(std::move(cpus));
}

std::vector<int> numa_node_ids(const Topology& topology) {
  std::set<int> ids;
  for (const Pu& pu : topology.pus) ids.insert(pu.numa_node);
  return {ids.begin(), ids.end()};
}

const std::vector<CpuSet>& objects_of(const Topology& topology, ObjectType type) {
  return topology.objects[static_cast<std::size_t>(type)];
}

}  // namespace mptrain::affinity
