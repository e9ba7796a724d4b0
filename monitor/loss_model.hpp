// The loss model: how a thread's interval is classed and what the job loses
// by queueing, a pure function of Evidence. Every threshold named below (by
// its doctor option) is a row of the table in thresholds.hpp, with its
// default and the reason it sits there; this comment says what the model
// does with them, never their values.
//
// THE MODEL. Oversubscription is CPU-bound threads queueing for the job's
// CPUs: it costs throughput. Wake-up latency of threads that mostly sleep
// (a service's idle pool, a shell loop of `sleep`) is not oversubscription,
// nor is an idle job. schedstat gives each thread's time on CPU, its time
// runnable but waiting, and its time slices; each thread's interval between
// two samples is classed (QueueRule, in evidence.hpp):
//   working   it ran at least working-cpu-share of the interval, or wanted a
//             CPU at least cpu-bound-demand of it (CPU-bound);
//   queued    the wait of a working interval whose wait per slice reaches
//             queue-wait-per-slice-ms, or of a CPU-bound one (its wait is CPU
//             it lacks even in short slices).
// Over a window of D seconds, with N usable CPUs:
//   runnable_threads_avg R   = Σ (on CPU + wait) ÷ D  (reported)
//   working_threads_avg  R_w = Σ working (on CPU + wait) ÷ D: the job's demand
//   waiting_threads_avg  W   = Σ wait ÷ D  (reported)
//   queued_threads_avg   Q   = Σ queued ÷ D: threads queued behind others
//   wait per slice           = Σ wait ÷ Σ slices; p95 over (thread, interval)
//   a process's pool         = its threads working over the whole window
//
// THROUGHPUT LOSS (Work in evidence.hpp), per interval and over the window:
//   a process's loss  1 − progress ÷ working; a team that meets at barriers
//       (meets_at_barriers) moves only while all its members run, so one
//       queued member stalls the rest;
//   the job's loss    1 − useful ÷ min(wanted, N′ × D − others), N′ = N capped
//       by the smallest cgroup quota, wanted = on CPU + queued, others = the
//       CPU other load used on the usable CPUs (outside_load's, not the job's).
//   A quota's throttling holds every thread of the cgroup back, and a
//   right-sized job held to it loses that time too: each interval's
//   throttled time per CPU (the cgroup's, summed over its CPUs, ÷ the CPUs
//   its working threads ran on) is taken out of each member's queued time
//   before `apart` reckons the share denied; a team's point and `together`
//   keep it (what a quota costs a team depends on how well it scales); the
//   quota itself is the cgroup_throttling finding.
// The verdict follows the larger of the job's loss and the processes' (weighted
// by what they wanted), against warn-throughput-loss and max-throughput-loss
// at the ends of its range (THE RANGE); the report gives the point's
// 10th-90th percentile spread over the intervals and its margin.
//
// THE RANGE. The accounting does not show how often threads of one process
// wait for each other (how often a team meets at barriers, whether a queued
// member held the others up). Each process's loss is bounded by two cases
// (Work in evidence.hpp): `apart`, its threads never wait for each other,
// and a process loses the share it was denied of min(wanted, N CPUs);
// `together`, they move only while all of them run, at worst each queued
// while the others run (1 − Σ queued shares of the time). A runtime known
// to meet at barriers (meets_at_barriers) makes its team's product rule
// (members queued independently, inside the range) the point, others
// `apart`; the range is [apart, together] for the job and per process, and
// the larger of job and processes at each end decides: oversubscribed
// needs the low end at max-throughput-loss, a warning the high end at
// warn-throughput-loss. Where the two ends decide differently the report
// says so and what would narrow it: the job's throughput measured with
// fewer threads (`mptrain tune`).
#pragma once

#include <optional>
#include <string>

#include "monitor/evidence.hpp"
#include "monitor/finding.hpp"
#include "monitor/thresholds.hpp"

namespace mptrain::monitor {

// The rule that tells queueing from wake-up latency under `thresholds`, for
// building Evidence of a job on `usable_cpus` CPUs (N; 0: unknown).
QueueRule queue_rule(const Thresholds& thresholds, int usable_cpus = 0);

// A loss the evidence bounds but does not pin (THE RANGE above): `low`
// where the threads work apart, `high` where they move only together.
struct LossRange {
  double low = 0;
  double high = 0;
};

// The throughput the job loses (THROUGHPUT LOSS above).
struct LossEstimate {
  double job = 0;                // estimated_throughput_loss: against the CPUs the job may use
  double processes = 0;          // the processes' own loss, weighted by the CPU they wanted
  double decides = 0;            // the larger of the two: the point estimate
  double low = 0;                // `decides` over the sampling intervals: 10th percentile, at most `decides`
  double high = 0;               // … and 90th, at least `decides`
  double margin = 0;             // `decides` less the nearest threshold (negative below it)
  LossRange job_range;           // `job` between its bounds (THE RANGE)
  LossRange processes_range;     // `processes` between its bounds
  LossRange decides_range;       // the larger of each end: oversubscribed from its low end, warning from its high end
  std::string unpinned;          // "" when the range decides the same at both ends; else what would narrow it
  std::string unpinned_cmdline;  // the command line of the process that leaves it open the most ("" when pinned)
};

// The loss of the threads that did `work` on their own progress, 1 − progress ÷ working, within [0, 1]
// (0 when none worked).
double progress_loss(const Work& work);

// progress_loss of `work` between its bounds (THE RANGE): where its threads work apart, and together.
LossRange progress_range(const Work& work);

// The CPUs a job may use: `usable_cpus`, capped by the smallest CPU quota of
// the watched cgroups of `evidence` (quota ÷ period rounded down, at least 1).
int job_cpus(const Evidence& evidence, int usable_cpus);

// The loss of the job of `evidence` on `cpus` CPUs, of which other load used
// `others` CPU-seconds, with its spread over the intervals, its margin to
// `thresholds` and, where the range straddles a threshold, what leaves it open.
LossEstimate estimate_loss(const Evidence& evidence, const Thresholds& thresholds, int cpus, double others);

// The severity a job-caused finding earns from `loss`: oversubscribed when
// even its low end reaches max-throughput-loss, a warning when its high end
// reaches warn-throughput-loss; nullopt when neither end costs that much.
std::optional<Verdict> loss_severity(const LossRange& loss, const Thresholds& thresholds);

}  // namespace mptrain::monitor
