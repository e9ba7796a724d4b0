// Where a process's cgroup is and what its CPU controller says. The one
// place that parses /proc/PID/cgroup and /proc/self/mountinfo, so that
// `topo`/`plan` (the quota and cpuset limiting N) and `doctor` (throttling of
// the watched processes) always look at the same directory, in cgroup v1, v2
// or a hybrid of both, in a container whose mounts show only a subtree, and
// under mount points of any name. Readers take an FsRoot so tests read
// recorded trees; Linux code in cgroup_linux.cpp.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/fs.hpp"
#include "util/result.hpp"

namespace mptrain {

// Which hierarchy holds a controller (none: no cgroup found).
enum class CgroupVersion { none, v1, v2 };

// 1 or 2, or 0 for CgroupVersion::none.
int version_number(CgroupVersion version);

// One line of /proc/PID/cgroup: "HIERARCHY:CONTROLLERS:PATH".
struct CgroupMembership {
  std::string hierarchy;                 // "0" for the v2 line
  std::vector<std::string> controllers;  // empty for the v2 line "0::/path"
  std::string path;                      // e.g. "/docker/0123abcd"
};

// One cgroup or cgroup2 mount of /proc/self/mountinfo.
struct CgroupMount {
  std::string root;                  // the cgroup shown at the mount point ("/" outside containers)
  std::string mountpoint;            // where it is mounted, e.g. "/sys/fs/cgroup/cpu,cpuacct"
  bool v2 = false;                   // cgroup2 rather than cgroup
  std::vector<std::string> options;  // super options; for v1 they name the controllers
};

// A cgroup and the directory holding its files.
struct CgroupLevel {
  std::string path;  // in the hierarchy, e.g. "/jobs/train"
  std::string dir;   // absolute directory, e.g. "/sys/fs/cgroup/cpu,cpuacct/jobs/train"
};

// Where one controller's files are for one process.
struct CgroupLocation {
  CgroupVersion version = CgroupVersion::none;
  std::vector<CgroupLevel> levels;  // the process's cgroup first, then each ancestor up to the mount point

  // The process's own cgroup path ("/jobs/train"); "" when there are no levels.
  std::string path() const;
  // "v1:/jobs/train" or "v2:/jobs/train": names the cgroup uniquely.
  std::string key() const;
  // `level`'s key in this location's hierarchy.
  std::string key_of(const CgroupLevel& level) const;
};

// CFS bandwidth counters of one cgroup (cumulative).
struct CpuStat {
  std::uint64_t nr_periods = 0;    // enforcement periods that elapsed with runnable tasks
  std::uint64_t nr_throttled = 0;  // periods in which the group was throttled
  std::uint64_t throttled_ns = 0;  // total time throttled (v1 throttled_time, v2 throttled_usec × 1000)
};

// A cgroup's CPU limit: quota ÷ period CPUs, nullopt when unlimited.
struct CpuQuota {
  std::optional<double> cpus;
  std::uint64_t quota_us = 0;
  std::uint64_t period_us = 0;
};

// Parses /proc/PID/cgroup text, skipping malformed lines; never fails.
std::vector<CgroupMembership> parse_proc_cgroup(std::string_view text);
// The cgroup and cgroup2 mounts of /proc/self/mountinfo text (octal
// escapes such as "\040" undone), skipping other and malformed lines.
std::vector<CgroupMount> parse_cgroup_mounts(std::string_view mountinfo);
// Where `controller` ("cpu", "cpuset") is for a process of `memberships`:
// its v1 hierarchy when one is mounted, else the v2 hierarchy; nullopt when
// neither is mounted. Pure.
std::optional<CgroupLocation> locate_controller(const std::vector<CgroupMembership>& memberships,
                                                const std::vector<CgroupMount>& mounts, std::string_view controller);

// Where a process of `memberships` is in one hierarchy: `version` v1 the
// hierarchy that holds `controller`, v2 the unified hierarchy (`controller`
// unused); nullopt when that hierarchy is not mounted. Pure.
std::optional<CgroupLocation> locate_in(const std::vector<CgroupMembership>& memberships,
                                        const std::vector<CgroupMount>& mounts, CgroupVersion version,
                                        std::string_view controller);

// Finds processes' cgroups through this process's mount table, read once.
class CgroupLocator {
 public:
  // Reads /proc/self/mountinfo under `root`; an Error naming the file when it cannot.
  static Result<CgroupLocator> open(const FsRoot& root);

  // Where `controller` is for process `pid` (0: this process), from
  // /proc/PID/cgroup; nullopt when it is not mounted here; an Error naming
  // the file when it cannot be read (a process that is gone).
  Result<std::optional<CgroupLocation>> locate(pid_t pid, std::string_view controller) const;
  // As locate, in the one hierarchy locate_in names.
  Result<std::optional<CgroupLocation>> locate_in(pid_t pid, CgroupVersion version, std::string_view controller) const;

 private:
  CgroupLocator(FsRoot root, std::vector<CgroupMount> mounts) : root_(std::move(root)), mounts_(std::move(mounts)) {}
  FsRoot root_;
  std::vector<CgroupMount> mounts_;
};

// Parses cpu.stat of either version; missing counters stay 0; never fails.
CpuStat parse_cpu_stat(std::string_view text);
// Parses v2 cpu.max ("max 100000" or "50000 100000"); an Error when malformed.
Result<CpuQuota> parse_cpu_max(std::string_view text);
// The quota from v1 cpu.cfs_quota_us and cpu.cfs_period_us texts (-1: unlimited); an Error when malformed.
Result<CpuQuota> parse_cfs_quota(std::string_view quota_text, std::string_view period_text);

// The file that holds the quota of cgroup directory `dir`: cpu.max (v2) or cpu.cfs_quota_us (v1).
std::string quota_file(CgroupVersion version, std::string_view dir);
// Reads the CPU quota of cgroup directory `dir`; an Error naming the file when unreadable or malformed.
Result<CpuQuota> read_cpu_quota(const FsRoot& root, CgroupVersion version, std::string_view dir);
// Reads the throttling counters (cpu.stat) of cgroup directory `dir`; an Error naming the file when unreadable.
Result<CpuStat> read_cpu_stat(const FsRoot& root, std::string_view dir);

}  // namespace mptrain
