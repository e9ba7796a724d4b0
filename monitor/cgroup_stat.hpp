// CPU-controller cgroups of watched processes: which cgroup a process is in
// (v1 "cpu" hierarchy or v2 unified), its CFS throttling counters (cpu.stat)
// and its quota. Readers take an FsRoot so tests read recorded trees.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/fs.hpp"
#include "util/result.hpp"

namespace mptrain::monitor {

// A cgroup of the CPU controller: its version and its path inside the hierarchy.
struct CgroupRef {
  int version = 0;       // 1 or 2
  std::string path;      // e.g. "/mptrain-doctor-42" ("/" for the root)
  std::string stat_dir;  // absolute directory holding cpu.stat, e.g. "/sys/fs/cgroup/cpu/mptrain-doctor-42"

  // "v1:/path" or "v2:/path": a key naming the cgroup uniquely.
  std::string key() const;
  bool operator==(const CgroupRef&) const = default;
};

// CFS bandwidth counters of one cgroup (cumulative).
struct CpuStat {
  std::uint64_t nr_periods = 0;    // enforcement periods that elapsed with runnable tasks
  std::uint64_t nr_throttled = 0;  // periods in which the group was throttled
  std::uint64_t throttled_ns = 0;  // total time throttled (v1 throttled_time, v2 throttled_usec × 1000)
};

// The group's CPU limit: quota ÷ period CPUs, nullopt when unlimited.
struct CpuQuota {
  std::optional<double> cpus;
  std::uint64_t quota_us = 0;
  std::uint64_t period_us = 0;
};

// The CPU controller's path in /proc/PID/cgroup text: the v1 line whose
// controllers include "cpu", else the v2 "0::" line; nullopt when neither.
// Returns {version, path} with stat_dir left empty.
std::optional<CgroupRef> parse_cpu_cgroup(std::string_view proc_cgroup_text);
// Parses cpu.stat of either version; missing counters stay 0; never fails.
CpuStat parse_cpu_stat(std::string_view text);
// Parses v2 cpu.max ("max 100000" or "50000 100000"); an Error when malformed.
Result<CpuQuota> parse_cpu_max(std::string_view text);
// The quota from v1 cpu.cfs_quota_us and cpu.cfs_period_us texts (-1: unlimited); an Error when malformed.
Result<CpuQuota> parse_cfs_quota(std::string_view quota_text, std::string_view period_text);

// The CPU cgroup of process `pid`, with the directory holding its cpu.stat
// located under `root`; an Error when /proc/PID/cgroup cannot be read or the
// cgroup's directory is not mounted where expected.
Result<CgroupRef> read_cpu_cgroup(const FsRoot& root, pid_t pid);
// `group` and its ancestors up to (not including) the hierarchy root, innermost first.
std::vector<CgroupRef> with_ancestors(const CgroupRef& group);
// Reads the throttling counters of `group`; an Error naming the path when unreadable.
Result<CpuStat> read_cpu_stat(const FsRoot& root, const CgroupRef& group);
// Reads the CPU quota of `group`; an Error naming the path when unreadable.
Result<CpuQuota> read_cpu_quota(const FsRoot& root, const CgroupRef& group);

}  // namespace mptrain::monitor
