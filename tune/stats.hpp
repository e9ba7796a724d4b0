// The statistics that name a winner: each candidate's trials summarised,
// the noise measured between the same candidate's rounds, the rule that
// drops a clearly worse candidate, and the decision. Pure.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace mptrain::tune {

// One candidate's measured throughputs, one per trial.
struct Measured {
  std::vector<double> values;
  int simplicity = 0;  // how many option words it adds to the program's command (0: the baseline)
  bool failed = false;
  // The finest relative difference the measurement can show (a count of
  // lines in a window: 1/count); the noise is never taken as less.
  double resolution = 0;
};

// A candidate's median, min and max (of `values`, not empty).
struct Spread {
  double median = 0;
  double min = 0;
  double max = 0;
};
Spread spread_of(const std::vector<double>& values);

// How far one candidate's rounds differ from each other: (max − min) / median.
double relative_spread(const Spread& spread);

// How far one candidate's rounds differ, robust to one wild round: twice
// the median absolute deviation over the median (for two rounds, the range
// over the mean).
double robust_spread(const std::vector<double>& values);

// The noise between rounds: the median over candidates measured at least
// twice of their robust spread; nullopt when none was measured twice.
std::optional<double> round_noise(const std::vector<Measured>& candidates);

// Whether a first trial of `value` is clearly worse than `best` (both in
// the metric's direction): less than half its throughput, or for a time,
// more than twice it. A candidate that far behind is not tried again.
bool clearly_worse(double value, double best, bool higher_is_better);

// `value` against `reference` as a speed-up (> 1: faster), in the metric's direction.
double speedup(double value, double reference, bool higher_is_better);

// The decision over the candidates.
struct Decision {
  std::vector<std::size_t> ranking;      // candidates with a measurement, best median first
  std::optional<std::size_t> winner;     // named only when its lead exceeds the noise
  std::optional<std::size_t> runner_up;  // the second of the ranking
  std::optional<double> lead;            // the best's speed-up over the runner-up, minus 1
  std::optional<double> noise;
  std::size_t simplest_tied = 0;  // with no winner: the simplest candidate within the noise of the best
  std::string why;                // one sentence: why a winner is named or not
};

// Ranks the candidates by median throughput and names a winner when the
// best's lead over the runner-up exceeds the noise between rounds (never
// less than the sum of their resolutions) (and the
// best was measured at least twice); otherwise "no measurable difference"
// and the simplest candidate whose median is within the noise of the best.
// `candidates` needs one with a measurement.
Decision decide(const std::vector<Measured>& candidates, bool higher_is_better);

}  // namespace mptrain::tune
