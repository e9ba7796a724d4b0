// The monitor inside `mptrain run` (both modes): it samples the workers'
// process trees from procmgr's on_tick, shows the live verdict, and puts the
// whole run's diagnosis into the final report.
#pragma once

#include <sys/types.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "affinity/plan.hpp"
#include "monitor/live.hpp"
#include "monitor/spreader.hpp"

namespace mptrain::cli {

// Whether the run's monitor spreads the busy threads no runtime placed (monitor/spreader.hpp).
enum class SpreadThreads { off, on };

// Watches a run's workers against the plan's usable CPUs and, with
// SpreadThreads::on, gives their busy threads a CPU each as it finds them.
// A change of the live verdict: the line to print, and whether it is good news
// (the workers are healthy again: a note, not a warning).
struct VerdictChange {
  std::string message;  // "" when the verdict has not changed
  bool recovered = false;
};

class RunMonitor {
 public:
  // `launch`: the run's own -n, --children and --keep-program-threads, which its fixes never propose again.
  explicit RunMonitor(const affinity::Plan& plan, SpreadThreads spread = SpreadThreads::off,
                      const monitor::Launch& launch = {});
  RunMonitor(const RunMonitor&) = delete;
  RunMonitor& operator=(const RunMonitor&) = delete;

  // Samples the trees rooted at `pids` when an interval has passed (call from on_tick).
  void observe(const std::vector<pid_t>& pids);
  // The verdict over the last seconds, e.g. "healthy" (for a progress line).
  std::string live_verdict() const;
  // The newest verdict that differs from the one before it, as a line to
  // print, or an empty message when it has not changed since the last call.
  VerdictChange verdict_change();
  // The whole run's diagnosis.
  monitor::Diagnosis diagnosis() const { return live_.diagnosis(); }
  // The whole run's diagnosis as the report's `monitor` object.
  nlohmann::json report() const;
  // The whole run's diagnosis as text lines for the final report (with
  // `quiet`, the verdict line and each fix only).
  std::string text() const;
  // --quiet: text() says the verdict and the fixes only.
  void set_quiet(bool quiet) { quiet_ = quiet; }
  // How many threads the spreader pinned to a CPU of their own; nullopt when it was off.
  std::optional<int> spread_threads() const;

 private:
  // Applies the moves the interval `evidence` calls for.
  void spread(const monitor::Evidence& evidence);

  std::optional<monitor::ThreadSpreader> spreader_;
  monitor::LiveMonitor live_;
  monitor::Verdict shown_ = monitor::Verdict::healthy;
  bool quiet_ = false;
};

}  // namespace mptrain::cli
