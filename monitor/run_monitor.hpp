// The monitor inside `mptrain run` (both modes): it samples the workers'
// process trees when the group's supervisor ticks, says when the live verdict
// changes, spreads the busy threads no runtime placed, and puts the whole
// run's diagnosis into the final report.
#pragma once

#include <sys/types.h>

#include <array>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "monitor/live.hpp"
#include "monitor/spreader.hpp"
#include "util/names.hpp"

namespace mptrain::monitor {

// Whether the run's monitor spreads the busy threads no runtime placed (`--spread-threads`).
enum class SpreadThreads { off, on };

// Its names (`--spread-threads`).
inline constexpr std::array spread_threads_names{Named<SpreadThreads>{SpreadThreads::on, "on"},
                                                 Named<SpreadThreads>{SpreadThreads::off, "off"}};

// A change of the live verdict: the line to print, and whether it is good news
// (the workers are healthy again: a note, not a warning).
struct VerdictChange {
  std::string message;  // "" when the verdict has not changed
  bool recovered = false;
};

// Watches a run's workers against `capacity` (its launch marked inside
// mptrain) and, with SpreadThreads::on, gives their busy threads a CPU each
// as it finds them.
class RunMonitor {
 public:
  // `capacity.launch`: the run's own -n, --children and --keep-program-threads, which its fixes never propose again.
  explicit RunMonitor(Capacity capacity, SpreadThreads spread = SpreadThreads::off);
  RunMonitor(const RunMonitor&) = delete;
  RunMonitor& operator=(const RunMonitor&) = delete;

  // Samples the trees rooted at `pids` when an interval has passed (call from on_tick).
  void observe(const std::vector<pid_t>& pids);
  // Takes `now`, a snapshot of the workers made elsewhere (tests write them by hand), as the next sample.
  void add(Snapshot now) { live_.add(std::move(now)); }
  // The verdict over the last seconds, e.g. "healthy", "inconclusive" before enough ran (for a progress line).
  std::string live_verdict() const;
  // The newest verdict that differs from the one before it, as a line to
  // print, or an empty message when it has not changed since the last call
  // or is inconclusive (a quiet spell leaves the last verdict standing).
  VerdictChange verdict_change();
  // The whole run's diagnosis.
  Diagnosis diagnosis() const { return live_.diagnosis(); }
  // The whole run's diagnosis as the report's `monitor` object.
  nlohmann::json report() const;
  // The whole run's diagnosis as text lines for the final report, as
  // set_detail says.
  std::string text() const;
  // Names the other mptrain runs `reader` returns in the findings (LiveMonitor::watch_other_runs).
  void watch_other_runs(std::function<std::vector<OtherRun>()> reader) { live_.watch_other_runs(std::move(reader)); }
  // How much text() says: --quiet the verdict and the fixes only; by default
  // two short lines for a healthy run and the whole report otherwise;
  // --verbose the whole report always.
  enum class Detail { quiet, short_when_healthy, full };
  void set_detail(Detail detail) { detail_ = detail; }
  // How many threads the spreader pinned to a CPU of their own; nullopt when it was off.
  std::optional<int> spread_threads() const;

 private:
  // Applies the moves the interval `evidence` calls for.
  void spread(const Evidence& evidence);

  std::optional<ThreadSpreader> spreader_;
  LiveMonitor live_;
  Verdict shown_ = Verdict::healthy;
  Detail detail_ = Detail::short_when_healthy;
};

}  // namespace mptrain::monitor
