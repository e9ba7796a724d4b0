// The detector: a pure function from Evidence and the usable CPUs N to a
// verdict and findings, each finding with its numbers and a concrete fix.
//
// THE MODEL. Oversubscription is CPU-bound threads queueing for the job's
// CPUs: it costs throughput. Wake-up latency of threads that mostly sleep
// (a service's idle pool, a shell loop of `sleep`, a burst of wake-ups) is
// not oversubscription, nor is an idle job. The kernel's own accounting tells
// them apart: schedstat gives each thread's time on CPU, its time runnable
// but waiting on a run queue, and its number of time slices. Each thread's
// interval between two samples is classed (QueueRule, in evidence.hpp):
//   working   it ran ≥ working_cpu_share of the interval, or wanted a CPU ≥
//             cpu_bound_demand of it (CPU-bound, however crowded). Threads
//             of a service that sleep run 0.1–0.5% of the time even when
//             their wake-ups collide; OpenMP workers that sleep at barriers
//             between parallel regions run far more than 5%.
//   queued    the wait of a working interval whose wait per slice ≥
//             queue_wait_per_slice_ms (a woken thread on a CPU with room
//             runs within tens of µs — measured 0.05–0.4 ms mean for 8–256
//             sleeping threads — while one behind a CPU hog waits for its
//             slice, measured 1.4–30 ms; 1 ms sits between), or of a
//             CPU-bound one (its wait is CPU it lacks even in short slices:
//             OpenBLAS's workers yield every 0.01–0.03 ms, yet 4 of them on
//             2 CPUs wait half the time).
// Over a window of D seconds, with N usable CPUs:
//   runnable_threads_avg R = Σ (on CPU + wait) ÷ D  (reported)
//   working_threads_avg  R_w = Σ working (on CPU + wait) ÷ D — the job's
//       demand: a CPU-bound thread counts 1 whether it runs or waits, so
//       outside load does not inflate it, and sleepers' wake-ups are left out
//   waiting_threads_avg  W = Σ wait ÷ D  (reported)
//   queued_threads_avg   Q = Σ queued ÷ D — threads queued behind others
//   wait per slice       Σ wait ÷ Σ slices; p95 over (thread, interval)
//   a process's pool     its threads working over the whole window
// Minimum evidence: C = Σ on CPU ≥ min_cpu_seconds, or as many seconds of
// CPU wanted and denied (Σ working, or a watched cgroup's throttled time: a
// job held to a 1% quota runs little but is no sleeper). Below it no ratio is
// judged: the verdict is healthy with `evidence` saying so (never exit 3 on
// too little); above it healthy means "measured and fine".
// THROUGHPUT LOSS. What the queueing costs, from the same accounting
// (Work in evidence.hpp), per interval and over the window:
//   a process's loss   1 − progress ÷ working: its own work's speed lost
//       against running unimpeded. Threads that work alone lose their
//       queued share; a team that meets at barriers (a runtime for which
//       meets_at_barriers holds, two or more working threads) moves only
//       while all its members run, about Π (1 − queued ÷ working) of the
//       time, so one queued member stalls the rest: the team loses more
//       than its queued share.
//   the job's loss     1 − useful ÷ min(wanted, N′ × D − others), N′ = N
//       capped by the smallest cgroup quota, wanted = on CPU + queued,
//       others = the CPU time other load used on the usable CPUs: the
//       throughput the job's own contention costs it, against what the CPUs
//       it may use and others leave would give it (what others take is
//       outside_load's, and shows in each process's loss). The job's
//       processes that start and end between two samples are never seen,
//       so their CPU time counts as others' — and neither as the job's work
//       nor as its loss. Independent threads and workers that yield or
//       sleep while they wait lose nothing here (a build of 16 compiles on
//       2 CPUs keeps both busy with useful work); a spinning team's time on
//       CPU while a member is queued is no work.
//   estimated_throughput_loss is the job's; each process reports its own.
//   The verdict follows the larger of the job's loss and the processes'
//   (their losses weighted by what they wanted): a job whose processes
//   each run at an eighth of their speed is oversubscribed even where the
//   CPUs stay busy. The report gives its spread over the intervals (10th
//   to 90th percentile, widened to take in the window's own figure) and its
//   margin to the nearest threshold.
// Findings (kind: when; a job-caused one is oversubscribed when the loss ≥
// max_throughput_loss, a warning from warn_throughput_loss, absent below):
//   demand_above_capacity  R_w ÷ N ≥ warn_demand_ratio (oversubscribed needs
//                          ≥ max_demand_ratio too)
//   thread_pool_too_large  M busy processes (working threads wanting ≥
//                          busy_process_demand CPUs over the window, so a
//                          parent that loaded data before forking its
//                          workers is left out) with pools of more than
//                          max(1, ⌊N/M⌋) threads, together more than N
//   overlapping_affinity   ≥ 2 pool threads share a CPU (job demand there ≥
//                          contended_cpu_demand) while a usable CPU is left
//                          (job demand ≤ spare_cpu_demand), queued there
//                          (≥ warn_queued_share threads on average)
//   cgroup_throttling      throttled ÷ CFS periods ≥ warn_throttle_ratio
//                          (oversubscribed from max_throttle_ratio) and
//                          throttled time ÷ D ≥ min_throttled_share
//   outside_load           others use ≥ outside_load_cpus of the job's CPUs
//                          while the job queues: always a warning, the job
//                          is sized right and the machine is busy
//   queueing               the loss ≥ warn_throughput_loss: what the threads
//                          lost; as severe as the worst job-caused finding,
//                          a warning without one
//   idle_capacity          the job's threads want far fewer CPUs than it may
//                          use (IDLE CAPACITY below); severity healthy
//                          ("info"): it never changes the verdict
// The verdict is the worst severity among the findings.
//
// IDLE CAPACITY. A job of M busy processes whose pools are smaller than the
// plan's ⌊N/M⌋ threads, CPU-bound, and leaving CPUs nobody else uses: one
// rank with OMP_NUM_THREADS=1 on 16 usable CPUs. N here is also capped by
// the smallest CPU quota of the watched cgroups (rounded down, at least 1),
// as usable CPUs are: one thread in a cgroup held to 1 CPU uses it all. Every condition must hold
// (only for a watched job, Subject::job: the whole machine is no job with a
// knob):
//   - evidence: the job's CPU-bound threads ran ≥ idle_min_cpu_seconds (a
//     second of CPU: a few intervals of a busy thread, not a start-up);
//   - CPU-bound: threads that wanted a CPU ≥ cpu_bound_demand of the time
//     they lived carry ≥ idle_min_busy_share of the job's demand R_w — a
//     service or a job waiting on I/O would not use more CPUs if it had them;
//   - far fewer: R_w ≤ idle_max_demand_share × N and N − R_w ≥
//     idle_min_spare_cpus (about half the CPUs and a whole one left: a
//     one-thread job on 2 CPUs has it, 3 threads on 4 do not), and for the
//     whole window: no interval's demand above idle_peak_demand_share (0.75) × N
//     (a job that ran wide for a while is sized right);
//   - the pools are below the plan: some busy process's pool < ⌊N/M⌋ (a
//     pool of ⌊N/M⌋ threads that mostly wait is sized right);
//   - nobody else wants those CPUs: no other finding, the job's threads do
//     not queue (Q ÷ R_w < warn_queued_share: they lose under 10% to others)
//     and other load takes at most half (idle_outside_share) of the CPUs the
//     job leaves.
// The finding names what limits each busy process — a thread-count variable
// of its runtime in its environment (OMP_NUM_THREADS=1 and GNU OpenMP), a
// runtime's own knob (torch.set_num_threads), or none (a program that runs
// one thread by itself) — and the plan that uses the CPUs: ⌊N/M⌋ threads
// each, or `mptrain run -n K` ranks.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "monitor/evidence.hpp"
#include "util/cpu_set.hpp"
#include "util/names.hpp"
#include "util/result.hpp"

namespace mptrain::monitor {

// The verdict, ordered by severity.
enum class Verdict { healthy = 0, warning = 1, oversubscribed = 2 };

// "healthy", "warning" or "oversubscribed".
std::string_view to_string(Verdict verdict);
// The Verdict named `text`; an Error listing the names otherwise.
Result<Verdict> parse_verdict(std::string_view text);

// Named thresholds, each overridable by a doctor option of the same name
// (dashes for underscores). Their defaults, help and reasons are the rows of
// threshold_table(); why each sits where it does is also in the model above
// and in mptrain-doctor(1).
struct Thresholds {
  // Every threshold at its default.
  Thresholds();

  double min_cpu_seconds;
  double queue_wait_per_slice_ms;
  double cpu_bound_demand;
  double warn_queued_share;
  double warn_throughput_loss;
  double max_throughput_loss;
  double warn_demand_ratio;
  double max_demand_ratio;
  double warn_throttle_ratio;
  double max_throttle_ratio;
  double min_throttled_share;
  double working_cpu_share;
  double busy_process_demand;
  double contended_cpu_demand;
  double spare_cpu_demand;
  double outside_load_cpus;
  double job_cpu_demand;
  double idle_cpu_busy;
  double idle_min_cpu_seconds;
  double idle_max_demand_share;
  double idle_min_spare_cpus;
  double idle_min_busy_share;
  double idle_max_peak_share;
  double idle_max_outside_share;
};

// One threshold: the doctor option that sets it (without "--"), the member,
// its default, the option's help, and why the default sits where it does.
struct ThresholdRow {
  std::string_view option;
  double Thresholds::*member;
  double value;
  std::string_view help;
  std::string_view reason;
};

// Every threshold, once, in the order the doctor's --help lists them.
std::span<const ThresholdRow> threshold_table();

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
};

// "demand_above_capacity", "thread_pool_too_large", … (the JSON `kind`).
std::string_view to_string(FindingKind kind);

// One cause found, with its numbers and what to do.
struct Finding {
  FindingKind kind = FindingKind::queueing;
  Verdict severity = Verdict::warning;  // healthy for advice that sets no verdict (idle_capacity)
  std::string message;                  // what was measured
  std::string fix;                      // what to do, with numbers
  std::map<std::string, double> numbers;
};

// The throughput the job loses (THROUGHPUT LOSS above).
struct LossEstimate {
  double job = 0;        // estimated_throughput_loss: against the CPUs the job may use
  double processes = 0;  // the processes' own loss, weighted by the CPU they wanted
  double decides = 0;    // the larger of the two: what the verdict follows
  double low = 0;        // `decides` over the sampling intervals: 10th percentile, at most `decides`
  double high = 0;       // … and 90th, at least `decides`
  double margin = 0;     // `decides` less the nearest threshold (negative below it)
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
  std::optional<double> estimated_throughput_loss;  // its own progress lost (nullopt: not measured)
  bool team = false;                                // its pool meets at barriers (meets_at_barriers)
  std::string cpus_allowed;                         // of its busiest thread
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

// The rule that tells queueing from wake-up latency under `thresholds`, for building Evidence.
QueueRule queue_rule(const Thresholds& thresholds);

// The severity `finding` shows (text and JSON): its verdict's name, or "info" for one that sets no verdict.
std::string_view severity_name(const Finding& finding);

// True when `diagnosis` has an idle_capacity finding (what `--fail-on idle` looks for).
bool has_idle_capacity(const Diagnosis& diagnosis);

// The FindingKind named `text` ("outside_load"); an Error listing the names otherwise.
Result<FindingKind> parse_finding_kind(std::string_view text);
// Every finding kind's name, "a, b or c" (for help texts).
std::string finding_kinds_list();

// What makes a command exit 3 (`--fail-on`): a verdict of oversubscribed,
// of warning or worse, an idle_capacity finding (or oversubscribed), never.
enum class FailOn { oversubscribed, warning, idle, never };

// Its names (`--fail-on`).
inline constexpr std::array fail_on_names{Named<FailOn>{FailOn::oversubscribed, "oversubscribed"},
                                          Named<FailOn>{FailOn::warning, "warning"},
                                          Named<FailOn>{FailOn::idle, "idle"}, Named<FailOn>{FailOn::never, "never"}};

// Whether `diagnosis` reaches `fail_on`. With findings of the kinds in
// `ignored` left out (`--ignore outside_load`: other people's load on a
// shared runner is not the job's fault), the verdict is the most severe of
// the findings that remain (healthy when none does).
bool reaches(const Diagnosis& diagnosis, FailOn fail_on, const std::vector<FindingKind>& ignored = {});

// Diagnoses `evidence` for a job that may use `capacity`, with `thresholds`;
// `subject` says whether the evidence is a job's or the whole machine's.
Diagnosis diagnose(const Evidence& evidence, const Capacity& capacity, const Thresholds& thresholds = {},
                   Subject subject = Subject::job);

}  // namespace mptrain::monitor
