// The detector's result: the verdict, the window's figures, the findings and
// the summaries, a plain struct that the report, the gate and the advice read.
#pragma once

#include <optional>
#include <vector>

#include "monitor/finding.hpp"
#include "monitor/loss_model.hpp"
#include "monitor/summary.hpp"

namespace mptrain::monitor {

// The detector's result over one window of evidence.
struct Diagnosis {
  Verdict verdict = Verdict::healthy;
  Capacity capacity;
  double duration_s = 0;
  int intervals = 0;
  EvidenceSummary evidence;
  double runnable_threads_avg = 0;    // (Σ on CPU + Σ wait) ÷ duration
  double waiting_threads_avg = 0;     // Σ wait ÷ duration
  double queued_threads_avg = 0;      // wait of slices that queued behind others ÷ duration
  double working_threads_avg = 0;     // working threads' (on CPU + wait) ÷ duration
  std::optional<LossEstimate> loss;   // nullopt when too little was measured
  double run_delay_ratio = 0;         // Σ wait ÷ Σ on CPU
  double wait_per_slice_ms_mean = 0;  // Σ wait ÷ Σ time slices
  double wait_per_slice_ms_p95 = 0;   // over (thread, interval) pairs that ran
  double voluntary_switches_per_second = 0;
  double nonvoluntary_switches_per_second = 0;
  double cpu_utilization = 0;              // watched threads' CPU time ÷ (N × duration)
  double short_lived_cpu_utilization = 0;  // … of it, threads that came and went between samples
  double machine_cpu_utilization = 0;      // all load on the usable CPUs (/proc/stat)
  std::optional<double> cpu_pressure;      // PSI "some": share of time a task waited; nullopt: no PSI
  std::vector<Finding> findings;
  std::vector<ProcessSummary> processes;  // with any CPU time or wait, busiest first
  std::vector<CgroupSummary> cgroups;     // innermost last within each hierarchy
  std::vector<ThreadSummary> threads;     // every thread that ran, busiest first
};

}  // namespace mptrain::monitor
