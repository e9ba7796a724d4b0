// --every: intervals grouped into periods, and the line printed for each.
#include "monitor/period.hpp"

#include <catch2/catch.hpp>
#include <regex>
#include <vector>

using namespace mptrain;
using namespace mptrain::monitor;

namespace {

// An interval of `seconds` whose one thread ran `on` s.
Evidence interval(double seconds, double on) {
  Evidence e;
  e.duration_s = seconds;
  e.intervals = 1;
  e.on_cpu_s = on;
  return e;
}

// The periods that intervals of `lengths` seconds (from time 10) end, as their (since_start_s, intervals).
std::vector<std::pair<double, int>> periods(double every, double interval_s, const std::vector<double>& lengths) {
  Periods grouping(every, interval_s);
  std::vector<std::pair<double, int>> out;
  double t = 10;
  for (double length : lengths) {
    const auto e = interval(length, 0.1);
    if (auto p = grouping.add(IntervalEnd{t, t + length, e, Verdict::healthy})) {
      out.emplace_back(p->since_start_s, p->evidence.intervals);
    }
    t += length;
  }
  return out;
}

}  // namespace

TEST_CASE("period: intervals are merged into periods of --every seconds", "[period]") {
  const auto out = periods(1.0, 0.5, {0.5, 0.5, 0.5, 0.5, 0.5});
  REQUIRE(out.size() == 2);
  CHECK(out[0].first == Approx(1.0));
  CHECK(out[0].second == 2);
  CHECK(out[1].first == Approx(2.0));
  CHECK(out[1].second == 2);
}

TEST_CASE("period: --every equal to the interval gives a line per interval", "[period]") {
  CHECK(periods(0.5, 0.5, {0.5, 0.5, 0.5}).size() == 3);
}

TEST_CASE("period: late or early samples neither skip nor double a line", "[period]") {
  const auto out = periods(1.0, 0.5, {0.6, 0.6, 0.45, 0.6, 0.6, 0.6});
  // Intervals end at 0.6, 1.2, 1.65, 2.25, 2.85, 3.45: periods end at 1.2, 2.25 and 2.85 (within half an interval of
  // 3).
  REQUIRE(out.size() == 3);
  CHECK(out[0].first == Approx(1.2));
  CHECK(out[1].second == 2);
}

TEST_CASE("period_line: the verdict, the figures and the top finding on one line", "[period]") {
  Diagnosis d;
  d.verdict = Verdict::oversubscribed;
  d.evidence.sufficient = true;
  d.runnable_threads_avg = 3.98;
  d.waiting_threads_avg = 1.97;
  d.wait_per_slice_ms_mean = 11.234;
  d.cpu_utilization = 0.996;
  d.voluntary_switches_per_second = 4;
  d.nonvoluntary_switches_per_second = 251;
  d.loss = LossEstimate{};
  d.loss->decides = 0.5;
  d.findings.push_back(Finding{FindingKind::queueing, Verdict::warning, "", "", {}, {}, {}});
  d.findings.push_back(Finding{FindingKind::demand_above_capacity, Verdict::oversubscribed, "", "", {}, {}, {}});
  CHECK(period_line(d, 3) ==
        "[   3.0 s] oversubscribed  runnable 3.98  waiting 1.97  wait/slice 11.2 ms  cpu 100%  switches 4/s vol "
        "251/s invol  loss 50%  top demand_above_capacity");
}

TEST_CASE("period_line: periods shorter than 0.1 s get the decimals that tell them apart", "[period]") {
  Diagnosis d;
  d.verdict = Verdict::healthy;
  CHECK(period_line(d, 0.05, 0.05).starts_with("[  0.05 s] healthy"));
  CHECK(period_line(d, 0.1, 0.05).starts_with("[  0.10 s] healthy"));
  CHECK(period_line(d, 0.005, 0.005).starts_with("[ 0.005 s] healthy"));
  CHECK(period_line(d, 0.2, 0.1).starts_with("[   0.2 s] healthy"));
}

TEST_CASE("period_line: no finding reads '-', too little evidence is said", "[period]") {
  Diagnosis d;
  d.verdict = Verdict::inconclusive;
  const auto line = period_line(d, 0.5);
  CHECK(std::regex_search(line, std::regex(R"(^\[ +0\.5 s\] inconclusive .* top -  \(too little evidence\)$)")));
}
