// The monitor inside `mptrain run` (both modes): it samples the workers'
// process trees from procmgr's on_tick, shows the live verdict, and puts the
// whole run's diagnosis into the final report.
#pragma once

#include <sys/types.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "affinity/plan.hpp"
#include "monitor/live.hpp"

namespace mptrain::cli {

// Watches a run's workers against the plan's usable CPUs.
class RunMonitor {
 public:
  explicit RunMonitor(const affinity::Plan& plan);

  // Samples the trees rooted at `pids` when an interval has passed (call from on_tick).
  void observe(const std::vector<pid_t>& pids);
  // The verdict over the last seconds, e.g. "healthy" (for a progress line).
  std::string live_verdict() const;
  // The newest verdict that differs from the one before it, as a line to
  // print, or "" when it has not changed since the last call.
  std::string verdict_change();
  // The whole run's diagnosis as the report's `monitor` object.
  nlohmann::json report() const;
  // The whole run's diagnosis as text lines for the final report.
  std::string text() const;

 private:
  monitor::LiveMonitor live_;
  monitor::Verdict shown_ = monitor::Verdict::healthy;
};

}  // namespace mptrain::cli
