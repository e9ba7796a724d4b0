// `doctor --every`: sampling intervals grouped into periods, and the one-line
// verdict printed for each period while sampling (as `pidstat 1` prints).
#pragma once

#include <optional>
#include <string>

#include "monitor/diagnosis.hpp"
#include "monitor/evidence.hpp"
#include "monitor/live.hpp"

namespace mptrain::monitor {

// A period that has just ended: its intervals merged, and when it ended.
struct Period {
  Evidence evidence;
  double since_start_s = 0;  // from the first sample to the period's end
  double every_s = 1;        // the length of the periods
};

// Groups intervals (from MonitorOptions::on_interval) into periods of
// `every_s` seconds, counted from the first sample, each ending with the
// first interval that reaches its end within half an interval
// (`interval_s`) — sampling jitter does not skip a line.
class Periods {
 public:
  Periods(double every_s, double interval_s) : every_s_(every_s), slack_s_(interval_s / 2) {}

  // Adds `interval`; returns the period it ends, or nullopt while the period goes on.
  std::optional<Period> add(const IntervalEnd& interval);

 private:
  double every_s_;
  double slack_s_;
  std::optional<double> origin_s_;
  double next_end_s_ = 0;  // since the first sample
  Evidence current_;
};

// The `--every` line for the `diagnosis` of a period ending `since_start_s`
// seconds after the first sample, without a newline, for example
// "[   3.0 s] oversubscribed  runnable 3.98  waiting 1.97  wait/slice 11.2 ms
// cpu 100%  switches 4/s vol 251/s invol  top demand_above_capacity"; an
// inconclusive period (too little evidence) ends in "  (too little evidence)".
// The time has as many decimals as periods of `every_s` need to differ
// (one from 0.1 s, two below, three below 0.01 s).
std::string period_line(const Diagnosis& diagnosis, double since_start_s, double every_s = 1);

}  // namespace mptrain::monitor
