// The detector: a pure function from Evidence and the usable CPUs N to a
// verdict and findings, each finding with its numbers and a concrete fix.
// Every threshold named below (by its doctor option) is a row of the table
// in thresholds.hpp, with its default and the reason it sits there; this
// comment says what the detector does with them, never their values.
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
// Below min-cpu-seconds of CPU run (or wanted and denied, or throttled) no
// ratio is judged: the verdict is inconclusive with `evidence` saying so,
// never healthy and never exit 3 unless --fail-on inconclusive asks.
//
// THROUGHPUT LOSS (Work in evidence.hpp), per interval and over the window:
//   a process's loss  1 − progress ÷ working; a team that meets at barriers
//       (meets_at_barriers) moves only while all its members run, so one
//       queued member stalls the rest;
//   the job's loss    1 − useful ÷ min(wanted, N′ × D − others), N′ = N capped
//       by the smallest cgroup quota, wanted = on CPU + queued, others = the
//       CPU other load used on the usable CPUs (outside_load's, not the job's).
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

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "monitor/evidence.hpp"
#include "monitor/thresholds.hpp"
#include "util/cpu_set.hpp"
#include "util/names.hpp"
#include "util/result.hpp"

namespace mptrain::monitor {

// The verdict, ordered by severity; inconclusive (too little evidence to
// judge) is no finding's severity and sits below warning, so that
// `--fail-on warning` does not take it in.
enum class Verdict { healthy = 0, inconclusive = 1, warning = 2, oversubscribed = 3 };

// "healthy", "inconclusive", "warning" or "oversubscribed".
std::string_view to_string(Verdict verdict);
// The Verdict named `text`; an Error listing the names otherwise.
Result<Verdict> parse_verdict(std::string_view text);

// What the watched set is: a job (--pid, `-- CMD`, a run's workers), or the
// whole machine, which is no job and gets no idle_capacity finding.
enum class Subject { job, machine };

// What the job may use: N and which CPUs.
// The launch a diagnosis is made inside (the monitor of `mptrain run`), so
// that its fixes move forward and never name the command already running.
struct Launch {
  bool inside_mptrain = false;        // watched by `mptrain run`'s own monitor
  int workers = 0;                    // its -n M
  int children = 0;                   // its --children K (0: none)
  bool keep_program_threads = false;  // its --keep-program-threads
};

struct Capacity {
  int usable_cpus = 1;     // N
  CpuSet usable_cpu_list;  // may be empty when unknown
  Launch launch;           // the run this diagnosis is inside, if any
};

// What a finding is about.
enum class FindingKind {
  demand_above_capacity,
  thread_pool_too_large,
  overlapping_affinity,
  cgroup_throttling,
  outside_load,
  queueing,
  idle_capacity,
  two_openmp_runtimes,
  nested_pools,
  allocation_mismatch,
};

// "demand_above_capacity", "thread_pool_too_large", … (the JSON `kind`).
std::string_view to_string(FindingKind kind);

// One cause found, with its numbers and what to do.
struct Finding {
  FindingKind kind = FindingKind::queueing;
  Verdict severity = Verdict::warning;  // healthy ("info") for one that sets no verdict (idle_capacity, …)
  std::string message;                  // what was measured
  std::string fix;                      // what to do, with numbers
  std::map<std::string, double> numbers;
};

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
  double cpu_utilization = 0;          // watched threads' CPU time ÷ (N × duration)
  double machine_cpu_utilization = 0;  // all load on the usable CPUs (/proc/stat)
  std::optional<double> cpu_pressure;  // PSI "some": share of time a task waited; nullopt: no PSI
  std::vector<Finding> findings;
  std::vector<ProcessSummary> processes;  // with any CPU time or wait, busiest first
  std::vector<CgroupSummary> cgroups;     // innermost last within each hierarchy
  std::vector<ThreadSummary> threads;     // every thread that ran, busiest first
};

// The rule that tells queueing from wake-up latency under `thresholds`, for
// building Evidence of a job on `usable_cpus` CPUs (N; 0: unknown).
QueueRule queue_rule(const Thresholds& thresholds, int usable_cpus = 0);

// The severity `finding` shows (text and JSON): its verdict's name, or "info" for one that sets no verdict.
std::string_view severity_name(const Finding& finding);

// True when `diagnosis` has an idle_capacity finding (what `--fail-on idle` looks for).
bool has_idle_capacity(const Diagnosis& diagnosis);

// The FindingKind named `text` ("outside_load"); an Error listing the names otherwise.
Result<FindingKind> parse_finding_kind(std::string_view text);
// Every finding kind's name, "a, b or c" (for help texts).
std::string finding_kinds_list();

// What makes a command exit 3 (`--fail-on`): a verdict of oversubscribed,
// of warning or worse, an idle_capacity finding (or oversubscribed), an
// inconclusive verdict (or oversubscribed), never. warning does not take
// inconclusive in: too little evidence is no sign of a problem.
enum class FailOn { oversubscribed, warning, idle, inconclusive, never };

// Its names (`--fail-on`).
inline constexpr std::array fail_on_names{
    Named<FailOn>{FailOn::oversubscribed, "oversubscribed"}, Named<FailOn>{FailOn::warning, "warning"},
    Named<FailOn>{FailOn::idle, "idle"}, Named<FailOn>{FailOn::inconclusive, "inconclusive"},
    Named<FailOn>{FailOn::never, "never"}};

// Whether `diagnosis` reaches `fail_on`. With findings of the kinds in
// `ignored` left out (`--ignore outside_load`: other people's load on a
// shared runner is not the job's fault), the verdict is the most severe of
// the findings that remain (healthy when none does; inconclusive stays so).
bool reaches(const Diagnosis& diagnosis, FailOn fail_on, const std::vector<FindingKind>& ignored = {});

// Diagnoses `evidence` for a job that may use `capacity`, with `thresholds`;
// `subject` says whether the evidence is a job's or the whole machine's.
Diagnosis diagnose(const Evidence& evidence, const Capacity& capacity, const Thresholds& thresholds = {},
                   Subject subject = Subject::job);

}  // namespace mptrain::monitor
