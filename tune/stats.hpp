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
  bool baseline = false;  // the launch the user runs today, which the winner must beat
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

// Successive halving: the candidates (not failed, not the baseline) whose
// median is behind the best's by more than twice the noise between rounds
// and more than 5%: they cannot be tied with it, and the rounds left go to
// the close ones. None while the noise is unknown. The baseline stays (the
// winner is judged against it).
std::vector<std::size_t> clearly_behind(const std::vector<Measured>& candidates, bool higher_is_better);

// `value` against `reference` as a speed-up (> 1: faster), in the metric's direction.
double speedup(double value, double reference, bool higher_is_better);

// The decision over the candidates: two questions. Does any launch beat
// the baseline (what the user runs today)? Among those at the top, can the
// measurements tell them apart?
struct Decision {
  std::vector<std::size_t> ranking;      // candidates with a measurement, best median first
  std::optional<std::size_t> winner;     // the best, named when its lead over the reference exceeds the noise
  std::optional<std::size_t> reference;  // what the best is judged against: the baseline, else the runner-up
  std::optional<double> lead;            // the best's speed-up over the reference, minus 1 (inf: it measured 0)
  std::optional<double> noise;
  // The candidates within the noise of the best, best first (the best alone when the noise is
  // unknown); the baseline is among them only when nothing beat it.
  std::vector<std::size_t> tied;
  std::size_t simplest_tied = 0;  // the simplest of `tied`
  std::string why;                // one sentence: why a winner is named or not
};

// Ranks the candidates by median throughput. The best is the winner when
// its lead over the baseline exceeds the noise between rounds and
// same_length (a gain worth a change of launch), the noise never less
// than the sum of their resolutions) and either it was measured at least
// twice or the baseline is clearly worse (a lead no noise explains); with
// no baseline measured, the runner-up is the reference. Otherwise "no
// measurable difference". `candidates` needs one with a measurement; a
// median that is not a finite number of at least 0 is not ranked.
// `whole_runs` (times of whole runs): every launch within same_length of
// each other is a program that runs a fixed time, no winner, all tied, said.
Decision decide(const std::vector<Measured>& candidates, bool higher_is_better, bool whole_runs = false);

// The smallest lead that names a winner or splits a tie (2%: no smaller gain
// is worth a change of launch). Whole runs of every launch within this
// fraction of each other say the program runs a fixed time; so do runs
// that differ by no more than a launch's own start and stop (launch_cost:
// tens of milliseconds for a launcher on a loaded machine or under a
// sanitizer), as long as that is at most a tenth of the run.
inline constexpr double same_length = 0.02;
inline constexpr double launch_cost = 0.1;  // seconds

// Whether whole runs of `fastest` and `slowest` seconds are the same length.
bool same_length_runs(double fastest, double slowest);

}  // namespace mptrain::tune
