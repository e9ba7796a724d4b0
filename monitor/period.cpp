#include "monitor/period.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

namespace mptrain::monitor {

namespace {

// The kind of the most severe finding (the first of those when several are), or "-".
std::string top_finding(const Diagnosis& diagnosis) {
  const auto& findings = diagnosis.findings;
  const auto worst = std::max_element(findings.begin(), findings.end(),
                                      [](const Finding& a, const Finding& b) { return a.severity < b.severity; });
  return worst == findings.end() ? std::string("-") : std::string(to_string(worst->kind));
}

}  // namespace

std::optional<Period> Periods::add(const IntervalEnd& interval) {
  if (!origin_s_) {
    origin_s_ = interval.start_s;
    next_end_s_ = every_s_;
  }
  merge(current_, interval.evidence);
  const double since_start = interval.end_s - *origin_s_;
  if (since_start + slack_s_ < next_end_s_) return std::nullopt;
  // The next period ends at the next multiple of every_s_, so a long interval skips none twice.
  next_end_s_ = (std::floor((since_start + slack_s_) / every_s_) + 1) * every_s_;
  return Period{std::exchange(current_, Evidence{}), since_start, every_s_};
}

std::string period_line(const Diagnosis& d, double since_start_s, double every_s) {
  const int decimals = every_s >= 0.1 - 1e-9 ? 1 : every_s >= 0.01 - 1e-9 ? 2 : 3;
  std::string line = fmt::format(
      "[{:6.{}f} s] {:<14}  runnable {:.2f}  waiting {:.2f}  wait/slice {:.3g} ms  cpu {:.0f}%  switches {:.0f}/s vol "
      "{:.0f}/s invol  loss {}  top {}",
      since_start_s, decimals, to_string(d.verdict), d.runnable_threads_avg, d.waiting_threads_avg,
      d.wait_per_slice_ms_mean, 100 * d.cpu_utilization, d.voluntary_switches_per_second,
      d.nonvoluntary_switches_per_second, d.loss ? fmt::format("{:.0f}%", 100 * d.loss->decides) : std::string("-"),
      top_finding(d));
  if (!d.evidence.sufficient) {
    line += "  (too little evidence)";
  }
  return line;
}

}  // namespace mptrain::monitor
