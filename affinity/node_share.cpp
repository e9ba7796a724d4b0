#include "affinity/node_share.hpp"

#include <fmt/format.h>

#include <array>
#include <set>

#include "util/names.hpp"
#include "util/text.hpp"

namespace mptrain::affinity {

namespace {

// "CPU 3" or "CPUs 0-3".
std::string cpus_named(const CpuSet& cpus) {
  return fmt::format("{} {}", cpus.size() == 1 ? "CPU" : "CPUs", cpus.to_short_string());
}

// The CPUs of `cpus` in `topology`'s logical order (package, NUMA node, cache, core, PU).
std::vector<int> in_topology_order(const Topology& topology, const CpuSet& cpus) {
  std::vector<int> ordered;
  for (const Pu& pu : topology.pus) {
    if (cpus.contains(pu.os_index)) ordered.push_back(pu.os_index);
  }
  return ordered;
}

// The CPUs of the host this process may be given before any launcher bound
// it: online ∩ cgroup cpuset, within `topology` (the affinity mask left out).
CpuSet host_view(const Topology& topology, const UsableCpus& usable) {
  CpuSet host = usable.online.intersect(all_cpus(topology));
  return usable.cgroup.cpuset ? host.intersect(*usable.cgroup.cpuset) : host;
}

// The CPUs of `cpus`, one set per package that holds any, in topology order.
std::vector<CpuSet> by_package(const Topology& topology, const CpuSet& cpus) {
  std::vector<CpuSet> packages;
  std::set<int> seen;
  for (const Pu& pu : topology.pus) {
    if (!cpus.contains(pu.os_index) || !seen.insert(pu.package).second) continue;
    packages.push_back(package_cpus(topology, pu.package).intersect(cpus));
  }
  return packages;
}

// Share `local_rank` of `local_size` contiguous, equal shares of `pool`; the remainder unused.
Result<NodeShare> equal_share(const Topology& topology, const CpuSet& pool, int local_rank, int local_size) {
  const std::vector<int> ordered = in_topology_order(topology, pool);
  const int size = static_cast<int>(ordered.size()) / local_size;
  if (size == 0) {
    return Error{fmt::format("{} on this host but only {} ({}): each needs at least one; start at most {} per host",
                             counted(local_size, "mptrain process"), counted(pool.size(), "usable CPU"),
                             pool.to_short_string(), pool.size())};
  }
  NodeShare share;
  share.kind = ShareKind::equal_share;
  share.host_cpus = pool;
  const auto begin = ordered.begin() + static_cast<long>(local_rank) * size;
  share.cpus = CpuSet(std::vector<int>(begin, begin + size));
  share.unused = CpuSet(std::vector<int>(ordered.begin() + static_cast<long>(local_size) * size, ordered.end()));
  share.notes.push_back(
      fmt::format("the {} mptrain on this host share its usable CPUs {} equally: {} each, in "
                  "topology order",
                  local_size, pool.to_short_string(), counted(size, "CPU")));
  if (!share.unused.empty()) {
    share.notes.push_back(fmt::format("{} left unused by the split: {}", counted(share.unused.size(), "usable CPU"),
                                      share.unused.to_short_string()));
  }
  return share;
}

// The CPU quota `usable`'s cgroup sets, divided among the `local_size` mptrain sharing it.
void divide_quota(const UsableCpus& usable, int local_size, NodeShare& share) {
  if (!usable.cgroup.quota_cpus) return;
  share.quota_cpus = *usable.cgroup.quota_cpus / local_size;
  if (local_size > 1) {
    share.notes.push_back(
        fmt::format("the cgroup's CPU quota of {} is shared by the {} mptrain on this host: {:g} each",
                    counted_amount(*usable.cgroup.quota_cpus, "CPU"), local_size, *share.quota_cpus));
  }
}

}  // namespace

namespace {

constexpr std::array share_names{Named<ShareKind>{ShareKind::whole_host, "whole host"},
                                 Named<ShareKind>{ShareKind::package, "package"},
                                 Named<ShareKind>{ShareKind::equal_share, "equal share"},
                                 Named<ShareKind>{ShareKind::already_bound, "already bound"}};

}  // namespace

std::string_view to_string(ShareKind kind) { return name_of(share_names, kind, "whole host"); }

Result<NodeShare> node_share(const Topology& topology, const UsableCpus& usable, int local_rank, int local_size,
                             const std::optional<CpuSet>& only) {
  CpuSet pool = usable.cpus.intersect(all_cpus(topology));
  if (pool.empty()) {
    return Error{fmt::format("none of the usable CPUs {} is in the topology of {} ({})", usable.cpus.to_short_string(),
                             topology.source, all_cpus(topology).to_short_string())};
  }
  CpuSet host = host_view(topology, usable);
  if (only) {
    if (pool.intersect(*only).empty()) {
      return Error{fmt::format("it selects CPUs {}, none of them usable; the usable CPUs are {}",
                               only->to_short_string(), pool.to_short_string())};
    }
    pool = pool.intersect(*only);
    host = host.intersect(*only);
  }
  NodeShare share;
  share.cpus = pool;
  share.host_cpus = pool;
  if (local_size > 1 && pool != host) {
    share.kind = ShareKind::already_bound;
    share.host_cpus = host;
    share.notes.push_back(
        fmt::format("this process is already bound to {} of the host's usable {} (its launcher bound it, as "
                    "mpirun does by default): not split again",
                    cpus_named(pool), host.to_short_string()));
  } else if (local_size > 1) {
    const auto packages = by_package(topology, pool);
    if (static_cast<int>(packages.size()) == local_size) {
      share.kind = ShareKind::package;
      share.cpus = packages[static_cast<std::size_t>(local_rank)];
      share.notes.push_back(fmt::format("one package each for the {} mptrain on this host", local_size));
    } else {
      auto equal = equal_share(topology, pool, local_rank, local_size);
      if (!equal.ok()) return equal.error();
      share = std::move(equal).value();
    }
  }
  divide_quota(usable, local_size, share);
  return share;
}

UsableCpus usable_share(const UsableCpus& usable, const NodeShare& share) {
  UsableCpus out = usable;
  out.cpus = share.cpus;
  out.count = share.cpus.size();
  out.cgroup.quota_cpus = share.quota_cpus;
  if (share.quota_cpus && quota_cap(*share.quota_cpus) < out.count) {
    out.count = quota_cap(*share.quota_cpus);
    out.limited_by = LimitedBy::quota;
  }
  return out;
}

}  // namespace mptrain::affinity
