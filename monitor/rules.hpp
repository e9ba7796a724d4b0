// The detector's rules: the figures every rule reads, worked out once from
// a window of evidence (THE MODEL and THROUGHPUT LOSS in loss_model.hpp),
// and the checks that turn them into findings, each with its numbers and a
// concrete fix. Every threshold named below (by its doctor option) is a row
// of the table in thresholds.hpp.
//
// FINDINGS (FindingKind; a job-caused one is oversubscribed from
// max-throughput-loss, a warning from warn-throughput-loss, absent below
// and wherever fewer than min-queued-threads were queued on average):
//   demand_above_capacity  R_w ÷ N from warn-demand-ratio (oversubscribed
//                          needs max-demand-ratio too)
//   thread_pool_too_large  M busy processes (busy-process-demand) whose pools
//                          exceed max(1, ⌊N/M⌋) threads, together more than N
//   overlapping_affinity   pool threads share a CPU (contended-cpu-demand)
//                          while a usable CPU is left (spare-cpu-demand;
//                          unless their affinity keeps them off it, others
//                          busy there below idle-cpu-busy), queued there
//                          (warn-queued-share)
//   cgroup_throttling      throttled ÷ CFS periods from warn-throttle-ratio
//                          (max-throttle-ratio), for at least
//                          min-throttled-share of the time
//   outside_load           others use outside-load-cpus of the job's CPUs
//                          (job-cpu-demand; and usable CPUs others keep
//                          busy, idle-cpu-busy) while it queues: always a
//                          warning
//   queueing               the loss itself: as severe as the worst
//                          job-caused finding, a warning without one; info
//                          where only min-queued-threads keeps it from one
//   idle_capacity          IDLE CAPACITY below; severity healthy ("info")
//   two_openmp_runtimes    a process maps two OpenMP runtimes (findings_users.hpp);
//                          as severe as the loss, else info
//   nested_pools           the program's own threads each call a threaded
//                          runtime; job-caused
//   allocation_mismatch    a process may use fewer CPUs than its launcher
//                          gave it; as severe as the loss, else info
// The verdict is the worst severity among the findings.
//
// IDLE CAPACITY. Only for a watched job (Subject::job): M busy processes
// whose pools are below the plan's ⌊N/M⌋ threads, CPU-bound, leaving CPUs
// nobody else uses (one rank with OMP_NUM_THREADS=1 on 16 CPUs). N is capped
// by the smallest CPU quota of the watched cgroups. All must hold: the
// CPU-bound threads ran idle-min-cpu-seconds; they carry idle-min-busy-share
// of R_w; R_w ≤ idle-max-demand-share × N, N − R_w ≥ idle-min-spare-cpus,
// and no interval above idle-max-peak-share × N; some busy pool < ⌊N/M⌋; no
// other finding that sets a verdict and no allocation_mismatch, Q ÷ R_w
// below warn-queued-share, and others take at most
// idle-max-outside-share of the CPUs the job leaves. The finding names what
// limits each process (a runtime's thread-count variable, its own knob, or
// none) and the plan that uses the CPUs: ⌊N/M⌋ threads each, or `mptrain run
// -n K` ranks; where the job's pool threads slept instead (findings_users.hpp,
// explain_blocked), what they wait on instead of a thread count.
#pragma once

#include <sys/types.h>

#include <map>
#include <optional>
#include <vector>

#include "monitor/evidence.hpp"
#include "monitor/finding.hpp"
#include "monitor/loss_model.hpp"
#include "monitor/thresholds.hpp"
#include "util/cpu_set.hpp"

namespace mptrain::monitor {

// The figures the rules share, worked out once from a window of evidence.
struct JobFigures {
  const Evidence& evidence;
  const Thresholds& t;
  int n = 1;
  double duration = 0;
  double runnable = 0;              // R: average runnable threads
  double working = 0;               // R_w: average working threads wanting a CPU
  double queued = 0;                // Q: average threads queued behind others' slices
  LossEstimate loss;                // THROUGHPUT LOSS
  std::optional<Verdict> severity;  // what the loss earns a job-caused finding (nullopt: below warn_throughput_loss)
  std::map<pid_t, int> pools;       // pool threads per process with at least one
  std::map<pid_t, int> busy_pools;  // the same for the busy processes only (busy_process_demand)
  int busy_pool_total = 0;
  CpuSet usable;  // the usable CPUs (those seen when unknown)
  Launch launch;  // the run this diagnosis is inside, if any

  // R_w ÷ N: the job's demand against its CPUs.
  double demand_ratio() const { return working / n; }
  // Q ÷ N: the threads queued per usable CPU.
  double queued_share() const { return queued / n; }
  // True when `thread` worked over the whole window, by the same test as an interval's (QueueRule::working).
  bool is_pool_thread(const ThreadEvidence& thread) const;
};

// The figures of `evidence` for a job that may use `capacity`, under
// `thresholds`; the launch is `capacity`'s, else the `mptrain run` the
// watched processes' environment names. `evidence` and `thresholds` must
// outlive the result, which refers to them.
JobFigures job_figures(const Evidence& evidence, const Capacity& capacity, const Thresholds& thresholds);

// The findings of `job` (FINDINGS above): the job's own causes, then
// outside load, then what the queueing cost, then, for Subject::job with
// nothing worse, idle CPUs (IDLE CAPACITY above); empty when none holds.
std::vector<Finding> find_causes(const JobFigures& job, Subject subject);

}  // namespace mptrain::monitor
