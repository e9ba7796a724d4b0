// The plain-struct queries over a Topology (no hwloc here).
#include "affinity/topology.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <set>

#include "util/text.hpp"

namespace mptrain::affinity {

std::string_view to_string(KindRole role) { return name_of(kind_role_names, role, "only"); }

std::string size_text(long long bytes) {
  constexpr std::array units{"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  std::size_t unit = 0;
  while (value >= 1024 && unit + 1 < units.size()) value /= 1024, ++unit;
  return fmt::format("{:.4g} {}", value, units[unit]);
}

namespace {

// What the caches `from` to `to` (exclusive) of `level` are shared by: "one per core" or their CPUs.
std::string shared_by(const Topology& topology, const CacheLevel& level, std::size_t from, std::size_t to) {
  const auto& cores = objects_of(topology, ObjectType::core);
  const std::set<std::vector<int>> core_sets = [&] {
    std::set<std::vector<int>> sets;
    for (const auto& core : cores) sets.insert(core.cpus());
    return sets;
  }();
  bool per_core = true;
  std::string cpus;
  for (std::size_t i = from; i < to; ++i) {
    per_core = per_core && core_sets.count(level.caches[i].cpus.cpus()) != 0;
    if (i > from) cpus += " | ";
    cpus += level.caches[i].cpus.to_short_string();
  }
  return per_core && !cores.empty() ? "one per core" : "CPUs " + cpus;
}

}  // namespace

std::vector<std::string> cache_lines(const Topology& topology) {
  std::vector<std::string> lines;
  for (const auto& level : topology.caches) {
    std::string line = level.name + ":";
    for (std::size_t from = 0; from < level.caches.size();) {
      std::size_t to = from + 1;
      while (to < level.caches.size() && level.caches[to].size_bytes == level.caches[from].size_bytes) ++to;
      const long long size = level.caches[from].size_bytes;
      if (from > 0) line += ";";
      line += fmt::format(" {} x {}, {}", size == 0 ? "size unknown" : size_text(size), to - from,
                          shared_by(topology, level, from, to));
      from = to;
    }
    lines.push_back(std::move(line));
  }
  return lines;
}

std::vector<std::string> kind_lines(const Topology& topology) {
  std::vector<std::string> lines;
  for (const auto& kind : topology.kinds) {
    std::vector<std::string> facts;
    if (!kind.core_type.empty()) facts.push_back(kind.core_type);
    if (kind.max_mhz > 0) facts.push_back(fmt::format("up to {} MHz", kind.max_mhz));
    std::string line = fmt::format("{}: CPUs {}", kind.role == KindRole::only ? "one kind" : to_string(kind.role),
                                   kind.cpus.to_short_string());
    if (!facts.empty()) line += fmt::format(" ({})", fmt::join(facts, ", "));
    lines.push_back(std::move(line));
  }
  return lines;
}

CpuSet kind_cpus(const Topology& topology, int kind) {
  std::vector<int> cpus;
  for (const Pu& pu : topology.pus) {
    if (pu.kind == kind) cpus.push_back(pu.os_index);
  }
  return CpuSet(std::move(cpus));
}

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
