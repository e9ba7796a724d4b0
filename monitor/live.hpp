// Live monitoring of a running job: the driver of `mptrain doctor` and the
// monitor inside `mptrain run`. Call observe() often (e.g. from procmgr's
// GroupOptions::on_tick every 100 ms); it samples once per interval and keeps
// the whole run's evidence plus a recent window for a live verdict.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "monitor/diagnosis.hpp"
#include "monitor/evidence.hpp"
#include "monitor/sampler.hpp"

namespace mptrain::monitor {

// The default sampling interval (`--interval`).
inline constexpr std::chrono::milliseconds default_interval{500};
// The default length of the recent window behind current_verdict().
inline constexpr std::chrono::milliseconds default_window{2000};

// One sampling interval as it ends, for observers (--trace, --every).
struct IntervalEnd {
  double start_s = 0;  // monotonic seconds
  double end_s = 0;
  const Evidence& evidence;  // this interval alone
  Verdict window_verdict;    // the recent window's verdict with this interval in it
};

// How a LiveMonitor samples and judges.
struct MonitorOptions {
  Scope scope = Scope::trees;
  std::vector<pid_t> pids;  // roots (ignored for Scope::machine)
  std::chrono::milliseconds interval = default_interval;
  std::chrono::milliseconds window = default_window;
  Capacity capacity;
  Thresholds thresholds;
  SamplerOptions sampler;
  FsRoot root;
  // Called after each interval is added (not for the first sample, which starts the first interval).
  std::function<void(const IntervalEnd&)> on_interval;
  // The other mptrain runs live now (launch/sharing.hpp reads them), looked at
  // after each sample; an outside_load finding names those on its CPUs.
  std::function<std::vector<OtherRun>()> other_runs;
};

// Samples a watched set periodically and diagnoses it.
class LiveMonitor {
 public:
  explicit LiveMonitor(MonitorOptions options);

  // Sets the roots to `roots` (0 entries ignored) and samples when an interval
  // has passed since the last sample (at once the first time); otherwise only returns.
  void observe(const std::vector<pid_t>& roots);
  // Replaces MonitorOptions::other_runs.
  void watch_other_runs(std::function<std::vector<OtherRun>()> reader) { options_.other_runs = std::move(reader); }
  // Replaces MonitorOptions::on_interval.
  void on_interval(std::function<void(const IntervalEnd&)> observer) { options_.on_interval = std::move(observer); }
  // Samples now, whatever the time since the last sample.
  void sample_now();
  // Takes `now`, a snapshot of the watched set made elsewhere (tests write them by hand), as the next sample.
  void add(Snapshot now);
  // Seconds until the next sample is due (0 when due now).
  double seconds_until_due() const;
  // True when every watched process has gone (after a sample).
  bool all_gone() const { return sampler_.all_gone(); }

  // The verdict over the recent window (inconclusive before two samples).
  Verdict current_verdict() const;
  // The diagnosis of the recent window.
  Diagnosis recent() const;
  // The diagnosis of the whole run so far.
  Diagnosis diagnosis() const;
  // The diagnosis of `evidence` (e.g. several intervals merged) against this monitor's capacity and thresholds.
  Diagnosis judge(const Evidence& evidence) const;
  // The whole run's diagnosis as JSON (to_json), for a run report's `monitor` key.
  nlohmann::json report() const;

 private:
  // What the detector is told it judges: the whole machine for Scope::machine, a job otherwise.
  Subject subject() const { return options_.scope == Scope::machine ? Subject::machine : Subject::job; }
  MonitorOptions options_;
  Sampler sampler_;
  std::optional<Snapshot> last_;
  Evidence total_;
  std::deque<Evidence> recent_;         // the intervals of the recent window, oldest first
  std::map<int, OtherRun> other_runs_;  // every other mptrain run seen while watching
  // `diagnosis` with its outside_load findings naming the other runs seen.
  Diagnosis named(Diagnosis diagnosis) const;
};

}  // namespace mptrain::monitor
