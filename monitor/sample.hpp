// Snapshots: plain structs holding the kernel's cumulative counters for the
// watched threads and the machine at one instant. The sampler fills them from
// /proc; tests write them by hand. The detector works on pairs of them.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "monitor/procfs.hpp"
#include "monitor/runtimes.hpp"
#include "util/cgroup.hpp"

namespace mptrain::monitor {

// One thread's counters at one instant.
struct ThreadSample {
  pid_t tid = 0;
  std::string comm;                         // the thread's name (stat field 2), e.g. "python3" or "omp_worker"
  char state = '?';                         // from stat field 3
  int last_cpu = -1;                        // stat field 39
  std::uint64_t on_cpu_ns = 0;              // schedstat field 1
  std::uint64_t wait_ns = 0;                // schedstat field 2 (run-queue wait)
  std::uint64_t timeslices = 0;             // schedstat field 3 (times it was put on a CPU)
  std::uint64_t voluntary_switches = 0;     // status voluntary_ctxt_switches
  std::uint64_t nonvoluntary_switches = 0;  // status nonvoluntary_ctxt_switches
  std::string cpus_allowed;                 // status Cpus_allowed_list, e.g. "1"
};

// One process and its threads at one instant.
struct ProcessSample {
  pid_t pid = 0;
  pid_t ppid = 0;
  std::string comm;
  std::string cmdline;            // argv, shell-quoted and space-joined (may be empty)
  std::string parent_cmdline;     // its parent's, the same way ("" when unknown)
  ThreadEnv env;                  // thread-count variables from environ (where readable)
  std::string cgroup;             // CgroupLocation::key() of its CPU cgroup ("" when unknown)
  std::vector<Runtime> runtimes;  // threading runtimes it maps (empty when none or unreadable)
  std::vector<ThreadSample> threads;
  // /proc/PID/stat utime + stime: every thread's CPU time, those that have
  // exited included, in clock ticks turned to seconds (nullopt: not read).
  std::optional<double> cpu_s;
};

// A cgroup's throttling counters and quota at one instant.
struct CgroupSample {
  std::string key;  // CgroupLocation::key_of() its level, e.g. "v1:/jobs/train"
  CgroupVersion version = CgroupVersion::none;
  std::string path;  // in its hierarchy, e.g. "/jobs/train"
  std::string dir;   // the directory holding its cpu.stat
  CpuStat stat;
  CpuQuota quota;
};

// The machine's counters at one instant.
struct MachineSample {
  std::vector<CpuTimes> cpus;           // per online CPU, from /proc/stat
  std::optional<CpuPressure> pressure;  // nullopt: the kernel has no PSI
  std::optional<LoadAvg> load;
  std::vector<CgroupSample> cgroups;  // the watched processes' CPU cgroups and their ancestors
};

// Everything the sampler saw at one instant.
struct Snapshot {
  double time_s = 0;  // monotonic clock
  std::vector<ProcessSample> processes;
  MachineSample machine;
};

}  // namespace mptrain::monitor
