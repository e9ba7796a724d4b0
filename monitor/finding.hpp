// The detector's plain vocabulary, shared by its rules, its fixes and its
// readers: the verdict, what a finding is about, one finding, and what the
// watched job may use. No logic beyond the names.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "util/cpu_set.hpp"
#include "util/result.hpp"

namespace mptrain::monitor {

// The verdict, ordered by severity; inconclusive (too little evidence to
// judge) is no finding's severity and sits below warning, so that
// `--fail-on warning` does not take it in.
enum class Verdict { healthy = 0, inconclusive = 1, warning = 2, oversubscribed = 3 };

// The name of `verdict`: "healthy", "inconclusive", "warning" or "oversubscribed".
std::string_view to_string(Verdict verdict);
// The Verdict named `text`; an Error listing the names otherwise.
Result<Verdict> parse_verdict(std::string_view text);

// What the watched set is: a job (--pid, `-- CMD`, a run's workers), or the
// whole machine, which is no job and gets no idle_capacity finding.
enum class Subject { job, machine };

// The launch a diagnosis is made inside (the monitor of `mptrain run`), so
// that its fixes move forward and never name the command already running.
struct Launch {
  bool inside_mptrain = false;        // watched by `mptrain run`'s own monitor
  int workers = 0;                    // its -n M
  int children = 0;                   // its --children K (0: none)
  bool keep_program_threads = false;  // its --keep-program-threads
};

// What the job may use: N and which CPUs, and the launch it runs in.
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

// The name of `kind`: "demand_above_capacity", "thread_pool_too_large", … (the JSON `kind`).
std::string_view to_string(FindingKind kind);
// The FindingKind named `text` ("outside_load"); an Error listing the names otherwise.
Result<FindingKind> parse_finding_kind(std::string_view text);
// Every finding kind's name, "a, b or c" (for help texts).
std::string finding_kinds_list();

// One cause found, with its numbers and what to do.
struct Finding {
  FindingKind kind = FindingKind::queueing;
  Verdict severity = Verdict::warning;  // healthy ("info") for one that sets no verdict (idle_capacity, …)
  std::string message;                  // what was measured
  std::string fix;                      // what to do, with numbers
  std::map<std::string, double> numbers;
  CpuSet cpus;                          // the CPUs it is about, where it names some (outside_load)
  std::vector<std::string> other_runs;  // the other mptrain runs on those CPUs, described
};

// Another mptrain run on the machine (launch/sharing.hpp reads them), as findings name it.
struct OtherRun {
  int pid = 0;
  CpuSet cpus;              // the CPUs it holds
  std::string description;  // "pid 12 (uid 1000, CPUs 0-1, 1x2): python3 train.py"
};

// Names in `findings` the `runs` on each outside_load finding's CPUs: its
// other_runs, its message, and a fix that says they are mptrain runs.
void name_other_runs(std::vector<Finding>& findings, const std::vector<OtherRun>& runs);

// The severity `finding` shows (text and JSON): its verdict's name, or "info" for one that sets no verdict.
std::string_view severity_name(const Finding& finding);

}  // namespace mptrain::monitor
