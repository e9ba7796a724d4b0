// The detector: a pure function from Evidence and the usable CPUs N to a
// verdict and findings, each finding with its numbers and a concrete fix.
//
// Measures (over the watched threads, from schedstat):
//   runnable threads (average) = (Σ time on CPU + Σ run-queue wait) ÷ duration
//   run-delay ratio            = Σ run-queue wait ÷ Σ time on CPU
// Findings (kind: when):
//   demand_above_capacity  runnable threads ÷ N ≥ warn_demand_ratio
//   thread_pool_too_large  M busy processes run more busy threads than N and
//                          one has more than max(1, floor(N/M))
//   overlapping_affinity   ≥ 2 busy threads share a CPU (job demand there ≥
//                          contended_cpu_demand) while a usable CPU is left
//                          (job demand ≤ spare_cpu_demand)
//   cgroup_throttling      nr_throttled ÷ nr_periods ≥ warn_throttle_ratio
//   outside_load           other processes use ≥ outside_load_cpus on the
//                          job's CPUs while the job waits
//   run_delay              run-delay ratio ≥ warn_run_delay_ratio
// The verdict is the worst severity among the findings. run_delay counts as
// oversubscribed (≥ max_run_delay_ratio) only when the job itself causes it
// (too many threads, overlap, throttling); when outside load alone explains
// it, it stays a warning: the job is sized right, the machine is busy.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "monitor/evidence.hpp"
#include "util/cpu_set.hpp"
#include "util/result.hpp"

namespace mptrain::monitor {

// The verdict, ordered by severity.
enum class Verdict { healthy = 0, warning = 1, oversubscribed = 2 };

// "healthy", "warning" or "oversubscribed".
std::string_view to_string(Verdict verdict);
// The Verdict named `text`; an Error listing the names otherwise.
Result<Verdict> parse_verdict(std::string_view text);

// Named thresholds, each overridable by a doctor option of the same name.
struct Thresholds {
  static constexpr double default_warn_demand_ratio = 1.05;  // runnable threads ÷ N
  static constexpr double default_max_demand_ratio = 1.25;
  static constexpr double default_warn_run_delay_ratio = 0.10;  // Σ wait ÷ Σ on CPU
  static constexpr double default_max_run_delay_ratio = 0.50;
  static constexpr double default_warn_throttle_ratio = 0.05;  // throttled ÷ periods
  static constexpr double default_max_throttle_ratio = 0.25;
  static constexpr double default_busy_thread_demand = 0.50;    // (on CPU + wait) ÷ time watched
  static constexpr double default_contended_cpu_demand = 1.50;  // job's threads wanting one CPU
  static constexpr double default_spare_cpu_demand = 0.50;      // job's use of a CPU it leaves
  static constexpr double default_outside_load_cpus = 0.25;     // CPUs of others on the job's CPUs

  double warn_demand_ratio = default_warn_demand_ratio;
  double max_demand_ratio = default_max_demand_ratio;
  double warn_run_delay_ratio = default_warn_run_delay_ratio;
  double max_run_delay_ratio = default_max_run_delay_ratio;
  double warn_throttle_ratio = default_warn_throttle_ratio;
  double max_throttle_ratio = default_max_throttle_ratio;
  double busy_thread_demand = default_busy_thread_demand;
  double contended_cpu_demand = default_contended_cpu_demand;
  double spare_cpu_demand = default_spare_cpu_demand;
  double outside_load_cpus = default_outside_load_cpus;
};

// What the job may use: N and which CPUs.
struct Capacity {
  int usable_cpus = 1;     // N
  CpuSet usable_cpu_list;  // may be empty when unknown
};

// One cause found, with its numbers and what to do.
struct Finding {
  std::string kind;  // e.g. "overlapping_affinity"
  Verdict severity = Verdict::warning;
  std::string message;  // what was measured
  std::string fix;      // what to do, with numbers
  std::map<std::string, double> numbers;
};

// One watched process in the report.
struct ProcessSummary {
  pid_t pid = 0;
  std::string comm;
  std::string cmdline;
  int threads = 0;       // most threads seen at once
  int busy_threads = 0;  // threads whose demand ≥ busy_thread_demand
  double cpu_seconds = 0;
  double wait_seconds = 0;
  double run_delay_ratio = 0;
  std::string cpus_allowed;  // of its busiest thread
  ThreadEnv env;
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
  std::string note;  // "" when sufficient; otherwise what was too little, with the numbers
};

// One CPU cgroup of the watched processes (or an ancestor) over the window.
struct CgroupSummary {
  CgroupVersion version = CgroupVersion::none;
  std::string path;  // in its hierarchy, e.g. "/jobs/train"
  std::string dir;   // the directory its counters were read from
  std::optional<double> quota_cpus;
  double throttled_ratio = 0;  // throttled periods ÷ periods (0 without periods)
};

// The detector's result.
struct Diagnosis {
  Verdict verdict = Verdict::healthy;
  Capacity capacity;
  double duration_s = 0;
  int intervals = 0;
  EvidenceSummary evidence;
  double runnable_threads_avg = 0;     // (Σ on CPU + Σ wait) ÷ duration
  double waiting_threads_avg = 0;      // Σ wait ÷ duration
  double run_delay_ratio = 0;          // Σ wait ÷ Σ on CPU
  double wait_per_slice_ms_mean = 0;   // Σ wait ÷ Σ time slices
  double wait_per_slice_ms_p95 = 0;    // over (thread, interval) pairs that ran
  double voluntary_switches_per_second = 0;
  double nonvoluntary_switches_per_second = 0;
  double cpu_utilization = 0;          // watched threads' CPU time ÷ (N × duration)
  double machine_cpu_utilization = 0;  // all load on the usable CPUs (/proc/stat)
  std::optional<double> cpu_pressure;  // PSI "some": share of time a task waited; nullopt: no PSI
  std::vector<Finding> findings;
  std::vector<ProcessSummary> processes;  // with any CPU time or wait, busiest first
  std::vector<CgroupSummary> cgroups;     // innermost last within each hierarchy
  std::vector<ThreadSummary> threads;     // every thread that ran, busiest first
};

// Diagnoses `evidence` for a job that may use `capacity`, with `thresholds`.
Diagnosis diagnose(const Evidence& evidence, const Capacity& capacity, const Thresholds& thresholds = {});

}  // namespace mptrain::monitor
