// This process's cgroup CPU limits: the smallest quota and the nearest
// cpuset from its cgroup up to the mount point, in the directories that
// util/cgroup.hpp locates.
#include "util/cgroup.hpp"

#include <string>

#include "affinity/usable_cpus.hpp"
#include "util/text.hpp"

namespace mptrain::affinity {

namespace {

// The smallest quota from the leaf up: a parent's quota bounds all of its children.
// A quota file that is missing or malformed sets no limit.
void read_quota(const FsRoot& root, const CgroupLocation& where, CgroupCpuLimits& out) {
  for (const CgroupLevel& level : where.levels) {
    const auto quota = read_cpu_quota(root, where.version, level.dir);
    if (!quota.ok() || !quota->cpus) continue;
    if (!out.quota_cpus || *quota->cpus < *out.quota_cpus) {
      out.quota_cpus = quota->cpus;
      out.quota_file = quota_file(where.version, level.dir);
    }
  }
}

// The nearest cpuset from the leaf up (a child's cpuset is always inside its parent's).
void read_cpuset(const FsRoot& root, const CgroupLocation& where, CgroupCpuLimits& out) {
  const std::vector<std::string> names = where.version == CgroupVersion::v2
                                             ? std::vector<std::string>{"cpuset.cpus.effective"}
                                             : std::vector<std::string>{"cpuset.effective_cpus", "cpuset.cpus"};
  for (const CgroupLevel& level : where.levels) {
    for (const std::string& name : names) {
      const std::string file = level.dir + "/" + name;
      auto text = root.read(file);
      if (!text.ok() || trim(*text).empty()) continue;
      auto cpus = CpuSet::parse(*text);
      if (!cpus.ok()) continue;
      out.cpuset = std::move(cpus).value();
      out.cpuset_file = file;
      return;
    }
  }
}

}  // namespace

Result<CgroupCpuLimits> read_cgroup_limits(const FsRoot& root) {
  auto locator = CgroupLocator::open(root);
  if (!locator.ok()) return locator.error();
  auto cpu = locator->locate(0, "cpu");
  if (!cpu.ok()) return cpu.error();
  auto cpuset = locator->locate(0, "cpuset");
  if (!cpuset.ok()) return cpuset.error();
  CgroupCpuLimits out;
  if (*cpu) {
    out.version = (*cpu)->version;
    out.path = (*cpu)->path();
    read_quota(root, **cpu, out);
  }
  if (*cpuset) {
    if (!*cpu) out.version = (*cpuset)->version;
    if (!*cpu) out.path = (*cpuset)->path();
    read_cpuset(root, **cpuset, out);
  }
  return out;
}

}  // namespace mptrain::affinity
