#include "affinity/usable_cpus.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>

#include "affinity/bind.hpp"
#include "util/names.hpp"
#include "util/text.hpp"

namespace mptrain::affinity {

namespace {

Result<CpuSet> parse_cpu_file(const FsRoot& root, std::string_view file) {
  auto text = root.read(file);
  if (!text.ok()) return text.error();
  auto cpus = CpuSet::parse(*text);
  if (!cpus.ok()) return Error{root.path(file).string() + ": " + cpus.error().message};
  return cpus;
}

Result<CpuSet> affinity_from_status(const FsRoot& root) {
  const std::string_view file = "/proc/self/status";
  auto text = root.read(file);
  if (!text.ok()) return text.error();
  for (std::string_view line : split(*text, '\n')) {
    const std::string_view key = "Cpus_allowed_list:";
    if (!line.starts_with(key)) continue;
    auto cpus = CpuSet::parse(line.substr(key.size()));
    if (!cpus.ok()) return Error{root.path(file).string() + ": " + cpus.error().message};
    return cpus;
  }
  return Error{root.path(file).string() + " has no Cpus_allowed_list line"};
}

std::string cgroup_name(const CgroupCpuLimits& cgroup) {
  return fmt::format("cgroup v{} cpuset", version_number(cgroup.version));
}

}  // namespace

namespace {

constexpr std::array limit_names{
    Named<LimitedBy>{LimitedBy::online, "online"}, Named<LimitedBy>{LimitedBy::affinity, "affinity"},
    Named<LimitedBy>{LimitedBy::cpuset, "cpuset"}, Named<LimitedBy>{LimitedBy::quota, "quota"},
    Named<LimitedBy>{LimitedBy::topology, "topology"}};

}  // namespace

std::string_view to_string(LimitedBy limited_by) { return name_of(limit_names, limited_by, "online"); }

Result<CpuSet> read_online_cpus(const FsRoot& root) { return parse_cpu_file(root, "/sys/devices/system/cpu/online"); }

Result<CpuSet> read_affinity(const FsRoot& root) {
  if (root.is_real()) return current_affinity(0);
  return affinity_from_status(root);
}

Result<UsableCpus> read_usable_cpus(const FsRoot& root) {
  auto online = read_online_cpus(root);
  if (!online.ok()) return online.error();
  auto affinity = read_affinity(root);
  if (!affinity.ok()) return affinity.error();
  auto cgroup = read_cgroup_limits(root);
  if (!cgroup.ok()) return cgroup.error();
  return combine_usable_cpus(std::move(online).value(), std::move(affinity).value(), std::move(cgroup).value());
}

int quota_cap(double quota_cpus) {
  // A tiny epsilon keeps 3.0 from becoming 2 through rounding of quota/period.
  return std::max(1, static_cast<int>(std::floor(quota_cpus + 1e-9)));
}

Result<UsableCpus> combine_usable_cpus(CpuSet online, CpuSet affinity, CgroupCpuLimits cgroup) {
  UsableCpus out;
  const CpuSet allowed = online.intersect(affinity);
  out.cpus = cgroup.cpuset ? allowed.intersect(*cgroup.cpuset) : allowed;
  if (out.cpus.empty()) {
    return Error{fmt::format("no usable CPU: online {} ∩ affinity {} ∩ cpuset {} is empty", online.to_short_string(),
                             affinity.to_short_string(), cgroup.cpuset ? cgroup.cpuset->to_short_string() : "(none)")};
  }
  out.limited_by = allowed.size() < online.size() ? LimitedBy::affinity : LimitedBy::online;
  if (out.cpus.size() < allowed.size()) out.limited_by = LimitedBy::cpuset;
  out.count = out.cpus.size();
  if (cgroup.quota_cpus && quota_cap(*cgroup.quota_cpus) < out.count) {
    out.count = quota_cap(*cgroup.quota_cpus);
    out.limited_by = LimitedBy::quota;
  }
  out.online = std::move(online);
  out.affinity = std::move(affinity);
  out.cgroup = std::move(cgroup);
  return out;
}

UsableCpus usable_cpus_of(const Topology& topology) {
  UsableCpus out;
  out.online = all_cpus(topology);
  out.affinity = out.online;
  out.cpus = out.online;
  out.count = out.cpus.size();
  out.limited_by = LimitedBy::topology;
  return out;
}

std::string explain(const UsableCpus& usable) {
  const std::string n = fmt::format("N = {}", usable.count);
  switch (usable.limited_by) {
    case LimitedBy::topology:
      return fmt::format("{}: every PU of the given topology (this machine's affinity and cgroup do not apply)", n);
    case LimitedBy::online:
      return fmt::format("{}: all online CPUs ({}); no affinity, cpuset or quota limit", n,
                         usable.online.to_short_string());
    case LimitedBy::affinity:
      return fmt::format("{}: the affinity mask {} allows {} of {} online CPUs", n, usable.affinity.to_short_string(),
                         usable.cpus.size(), usable.online.size());
    case LimitedBy::cpuset:
      return fmt::format("{}: the {} {} ({}) leaves CPUs {}", n, cgroup_name(usable.cgroup),
                         usable.cgroup.cpuset->to_short_string(), usable.cgroup.cpuset_file,
                         usable.cpus.to_short_string());
    case LimitedBy::quota:
      return fmt::format("{}: the cgroup CPU quota of {} ({}) rounds down to {} of the {} CPUs {}", n,
                         counted_amount(*usable.cgroup.quota_cpus, "CPU"), usable.cgroup.quota_file, usable.count,
                         usable.cpus.size(), usable.cpus.to_short_string());
  }
  return n;
}

}  // namespace mptrain::affinity
