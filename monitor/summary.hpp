// The report's summaries of a window of evidence: whether it holds enough
// to judge, and each watched process, thread and CPU cgroup over it. Pure
// functions over Evidence, called by the detector.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "monitor/evidence.hpp"
#include "monitor/loss_model.hpp"
#include "monitor/thresholds.hpp"

namespace mptrain::monitor {

// One watched process in the report.
struct ProcessSummary {
  pid_t pid = 0;
  std::string comm;
  std::string cmdline;
  int threads = 0;       // most threads seen at once
  int threads_ran = 0;   // threads that ran in the window
  int pool_threads = 0;  // its working threads (THE MODEL)
  double cpu_seconds = 0;
  double wait_seconds = 0;
  double run_delay_ratio = 0;
  double wait_per_slice_ms = 0;
  std::optional<double> estimated_throughput_loss;           // its own progress lost (nullopt: not measured)
  std::optional<LossRange> estimated_throughput_loss_range;  // … between its bounds (THE RANGE; nullopt: not measured)
  bool team = false;                                         // its pool meets at barriers (meets_at_barriers)
  std::string cpus_allowed;                                  // of its busiest thread
  ThreadEnv env;
  std::vector<Runtime> runtimes;
};

// One watched thread over the window (the --threads table).
struct ThreadSummary {
  pid_t pid = 0;
  pid_t tid = 0;
  std::string comm;
  double cpu_seconds = 0;
  double wait_seconds = 0;
  std::uint64_t timeslices = 0;
  double wait_per_slice_ms = 0;  // wait ÷ slices (0 without slices)
  std::uint64_t voluntary_switches = 0;
  std::uint64_t nonvoluntary_switches = 0;
  int last_cpu = -1;
  std::string cpus_allowed;
};

// Whether the window held enough to judge, and if not, why.
struct EvidenceSummary {
  bool sufficient = false;
  std::string note;    // what was too little, with the numbers; for `quiet`, how little ran; else ""
  bool quiet = false;  // sufficient only as a long watch of a job that mostly slept: healthy, nothing waited
};

// A job that runs too little to judge its ratios is still judged healthy when
// watched this long: at least this many whole sampling intervals and seconds,
// so that a thread denied a CPU would show its run-queue wait in more than
// one sample (a time slice is milliseconds; an interval is 0.1-1 s).
inline constexpr int quiet_min_intervals = 4;
inline constexpr double quiet_min_seconds = 1.0;
// A job "mostly slept" when its threads ran, and waited, less than this share
// of one CPU over the watch (min-cpu-seconds' default is the same share of
// the default 2 s window).
inline constexpr double quiet_max_share = 0.1;

// One CPU cgroup of the watched processes (or an ancestor) over the window.
struct CgroupSummary {
  CgroupVersion version = CgroupVersion::none;
  std::string path;  // in its hierarchy, e.g. "/jobs/train"
  std::string dir;   // the directory its counters were read from
  std::optional<double> quota_cpus;
  double throttled_ratio = 0;  // throttled periods ÷ periods (0 without periods)
};

// Whether `evidence` holds enough to judge under `thresholds` (min-cpu-seconds
// run, or wanted and denied, or throttled), or the job mostly slept through
// a watch of quiet_min_intervals and quiet_min_seconds, running and waiting
// less than quiet_max_share of one CPU (quiet: healthy);
// when not, a note with the numbers and what would be enough.
EvidenceSummary judge_evidence(const Evidence& evidence, const Thresholds& thresholds);

// Each process of `evidence` with any CPU time or wait, busiest first, its
// pool threads taken from `pools` (pool threads per pid; absent: none).
std::vector<ProcessSummary> summarize_processes(const Evidence& evidence, const std::map<pid_t, int>& pools);

// Each thread of `evidence` that ran, busiest first.
std::vector<ThreadSummary> summarize_threads(const Evidence& evidence);

// Each CPU cgroup of `evidence`, in its order (innermost last within each hierarchy).
std::vector<CgroupSummary> summarize_cgroups(const Evidence& evidence);

}  // namespace mptrain::monitor
