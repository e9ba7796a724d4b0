// The usable CPU count N: online ∩ affinity ∩ cgroup cpuset, capped by the
// cgroup CPU quota (rounded down, at least 1). Readers take an FsRoot so
// tests read recorded /proc and /sys trees; see read_affinity for the one
// value that is not a file.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "affinity/topology.hpp"
#include "util/cgroup.hpp"
#include "util/cpu_set.hpp"
#include "util/fs.hpp"
#include "util/result.hpp"

namespace mptrain::affinity {

// Which cgroup hierarchy holds the CPU controllers (util/cgroup.hpp).
using mptrain::CgroupVersion;
using mptrain::version_number;

// The cgroup CPU controls that apply to this process.
struct CgroupCpuLimits {
  CgroupVersion version = CgroupVersion::none;
  std::string path;                  // the process's cgroup ("/a/b") of the cpu controller
  std::optional<CpuSet> cpuset;      // effective cpuset; nullopt without a cpuset controller
  std::string cpuset_file;           // the file the cpuset came from
  std::optional<double> quota_cpus;  // quota / period, smallest along the path; nullopt: no quota
  std::string quota_file;            // the file holding the limiting quota
};

// What made N as small as it is.
enum class LimitedBy { online, affinity, cpuset, quota, topology };

// "online", "affinity", "cpuset", "quota" or "topology".
std::string_view to_string(LimitedBy limited_by);

// The usable CPUs and how they were found.
struct UsableCpus {
  CpuSet online;
  CpuSet affinity;
  CgroupCpuLimits cgroup;
  CpuSet cpus;    // online ∩ affinity ∩ cgroup cpuset
  int count = 0;  // N: |cpus|, capped by the quota
  LimitedBy limited_by = LimitedBy::online;
};

// The online CPUs (/sys/devices/system/cpu/online under `root`); an Error naming the file otherwise.
Result<CpuSet> read_online_cpus(const FsRoot& root);
// This process's affinity mask: sched_getaffinity when `root` is the real
// "/", otherwise Cpus_allowed_list of /proc/self/status under `root` (a
// recorded tree cannot record a system call); an Error otherwise.
Result<CpuSet> read_affinity(const FsRoot& root);
// The cgroup (v1 or v2, located by util/cgroup.hpp under `root`) cpuset and
// CPU quota of this process, walking up nested cgroups; an Error when
// /proc/self/cgroup or /proc/self/mountinfo cannot be read.
Result<CgroupCpuLimits> read_cgroup_limits(const FsRoot& root);
// Everything above combined into N; an Error when a file is unreadable or no CPU is left.
Result<UsableCpus> read_usable_cpus(const FsRoot& root);

// Combines the three sets and the quota into N (pure); an Error when the intersection is empty.
Result<UsableCpus> combine_usable_cpus(CpuSet online, CpuSet affinity, CgroupCpuLimits cgroup);
// Every PU of `topology` usable, for planning another machine (limited_by topology).
UsableCpus usable_cpus_of(const Topology& topology);
// The CPU count a quota of `quota_cpus` CPUs allows: rounded down, at least 1.
int quota_cap(double quota_cpus);
// One sentence saying how N was found, e.g. "2 of 2 online CPUs: no affinity, cpuset or quota limit".
std::string explain(const UsableCpus& usable);

}  // namespace mptrain::affinity
