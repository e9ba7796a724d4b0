#include "tune/stats.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "tune/metric.hpp"

namespace mptrain::tune {
namespace {

// A small fraction as a percentage with one decimal: 0.021 → "2.1%"; an
// infinite lead (over a candidate that measured nothing) said in words.
std::string share(double fraction) {
  return std::isfinite(fraction) ? fmt::format("{:.1f}%", 100 * fraction) : "an unbounded margin";
}

// A measurement as a rate (higher is faster): a time's inverse, a time of 0 infinitely fast.
double rate_of(double value, bool higher_is_better) {
  if (higher_is_better) return value;
  return value > 0 ? 1 / value : std::numeric_limits<double>::infinity();
}

bool all_finite(const std::vector<double>& values) {
  return std::all_of(values.begin(), values.end(), [](double v) { return std::isfinite(v); });
}

}  // namespace

Spread spread_of(const std::vector<double>& values) {
  const auto [low, high] = std::minmax_element(values.begin(), values.end());
  return {median(values), *low, *high};
}

double relative_spread(const Spread& spread) {
  return spread.median != 0 ? (spread.max - spread.min) / std::abs(spread.median) : 0.0;
}

double robust_spread(const std::vector<double>& values) {
  const double middle = median(values);
  std::vector<double> deviations;
  for (const double v : values) deviations.push_back(std::abs(v - middle));
  return middle != 0 ? 2 * median(std::move(deviations)) / std::abs(middle) : 0.0;
}

std::optional<double> round_noise(const std::vector<Measured>& candidates) {
  std::vector<double> spreads;
  for (const auto& candidate : candidates) {
    if (!candidate.failed && candidate.values.size() >= 2 && all_finite(candidate.values))
      spreads.push_back(robust_spread(candidate.values));
  }
  if (spreads.empty()) return std::nullopt;
  return median(std::move(spreads));
}

bool clearly_worse(double value, double best, bool higher_is_better) {
  return higher_is_better ? value * 2 < best : value > best * 2;
}

std::vector<std::size_t> clearly_behind(const std::vector<Measured>& candidates, bool higher_is_better) {
  constexpr double floor = 0.05;
  const auto noise = round_noise(candidates);
  std::vector<std::size_t> behind;
  if (!noise) return behind;
  std::optional<double> best;
  for (const auto& c : candidates) {
    if (c.failed || c.values.empty() || !all_finite(c.values)) continue;
    const double m = median(c.values);
    if (!best || speedup(m, *best, higher_is_better) > 1) best = m;
  }
  if (!best) return behind;
  const double margin = std::max(2 * *noise, floor);
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const Measured& c = candidates[i];
    if (c.failed || c.values.empty() || c.baseline) continue;
    if (speedup(*best, median(c.values), higher_is_better) - 1 > margin) behind.push_back(i);
  }
  return behind;
}

bool same_length_runs(double fastest, double slowest) {
  if (!(fastest > 0) || !(slowest >= fastest)) return false;
  const double allowed = std::max(same_length * fastest, std::min(launch_cost, 0.1 * fastest));
  return slowest - fastest <= allowed * (1 + 1e-9);  // 2.1 - 2.0 is a hair above 0.1 in doubles
}

double speedup(double value, double reference, bool higher_is_better) {
  const double rate = rate_of(value, higher_is_better);
  const double base = rate_of(reference, higher_is_better);
  if (rate == base) return 1;
  if (base <= 0 || std::isinf(rate)) return rate > 0 ? std::numeric_limits<double>::infinity() : 1.0;
  return rate / base;
}

namespace {

// The decision's steps over the ranked candidates.
class Decider {
 public:
  Decider(const std::vector<Measured>& candidates, bool higher_is_better, bool whole_runs)
      : candidates_(candidates), higher_(higher_is_better), whole_runs_(whole_runs), medians_(candidates.size()) {}

  Decision decide() {
    rank();
    round_noise_ = round_noise(candidates_);
    decision_.noise = round_noise_;
    if (decision_.ranking.empty()) return with_why("no candidate was measured");
    best_ = decision_.ranking.front();
    decision_.simplest_tied = best_;
    decision_.tied = {best_};
    if (baseline_ == best_) decision_.reference = next_after_best();
    if (baseline_ != best_) decision_.reference = baseline_ ? baseline_ : next_after_best();
    if (!decision_.reference) return with_why("only one candidate was measured");
    const std::size_t reference = *decision_.reference;
    decision_.lead = lead_over(reference);
    if (decision_.noise) decision_.noise = noise_between(best_, reference);
    if (whole_runs_ && fixed_length()) {
      return with_why(fmt::format(
          "every launch ran {:.2f}-{:.2f} s, the same length give or take a launch's own start: a program that runs a "
          "fixed time (a "
          "time limit, a loop paced by sleeps) shows no speed as a whole run; read its rate with --metric REGEX or "
          "--progress REGEX",
          medians_[decision_.ranking.front()], medians_[decision_.ranking.back()]));
    }
    find_tied();
    if (baseline_ == best_) {
      return with_why(fmt::format("nothing beat the baseline: the launch as it runs today leads the next by {}{}",
                                  share(*decision_.lead), noise_words()));
    }
    const std::string against = baseline_ ? "the baseline" : "the runner-up";
    const bool far_ahead = clearly_worse(medians_[reference], medians_[best_], higher_);
    if (!decision_.noise && !far_ahead) {
      return with_why(
          "every candidate was measured once, so the noise between rounds is unknown (a larger --budget "
          "gives more rounds)");
    }
    if (decision_.noise && *decision_.lead <= tolerance(margin(*decision_.noise))) {
      // Whichever of launches within the noise ranks first, the answer to "does any beat today's launch" is the same.
      const std::string headline =
          baseline_ ? "nothing beat the baseline beyond the noise: the best leads it" : "the best leads the runner-up";
      const std::string within =
          *decision_.noise >= same_length
              ? fmt::format("within the noise between rounds ({})", share(*decision_.noise))
              : fmt::format("under the {} a change of launch needs (the noise between rounds: {})", share(same_length),
                            share(*decision_.noise));
      return with_why(fmt::format("{} by {}, {}", headline, share(*decision_.lead), within));
    }
    if (candidates_[best_].values.size() < 2 && !far_ahead) {
      return with_why("the best was measured once (a larger --budget gives more rounds)");
    }
    decision_.winner = best_;
    if (!decision_.noise) {
      return with_why(
          fmt::format("it leads {} by {}: more than twice as fast, which no noise between rounds explains "
                      "(each was measured once)",
                      against, share(*decision_.lead)));
    }
    return with_why(fmt::format("it leads {} by {}, more than the noise between rounds ({})", against,
                                share(*decision_.lead), share(*decision_.noise)));
  }

 private:
  // The candidates with a usable measurement, best median first (the simpler first among equals).
  void rank() {
    for (std::size_t i = 0; i < candidates_.size(); ++i) {
      if (candidates_[i].failed || candidates_[i].values.empty()) continue;
      medians_[i] = median(candidates_[i].values);
      if (!std::isfinite(medians_[i]) || medians_[i] < 0) continue;
      decision_.ranking.push_back(i);
      if (candidates_[i].baseline) baseline_ = i;
    }
    std::stable_sort(decision_.ranking.begin(), decision_.ranking.end(), [&](std::size_t a, std::size_t b) {
      const double gain = speedup(medians_[a], medians_[b], higher_);
      if (gain != 1) return gain > 1;
      return candidates_[a].simplicity < candidates_[b].simplicity;
    });
  }

  std::optional<std::size_t> next_after_best() const {
    if (decision_.ranking.size() < 2) return std::nullopt;
    return decision_.ranking[1];
  }

  double lead_over(std::size_t other) const { return speedup(medians_[best_], medians_[other], higher_) - 1; }

  // The noise between `a` and `b`: the rounds' noise, never finer than what
  // both measurements can show (two counts can each be one line off).
  double noise_between(std::size_t a, std::size_t b) const {
    return std::max(round_noise_.value_or(0), candidates_[a].resolution + candidates_[b].resolution);
  }

  // The lead a launch needs over another to be told apart: beyond the noise, and at least same_length (a
  // smaller gain is worth no change of launch, however steady the rounds).
  static double margin(double noise) { return std::max(noise, same_length); }

  // A lead equal to the noise is within it, whatever the last bit of a quotient says.
  static double tolerance(double noise) { return noise * (1 + 1e-9); }

  // The candidates within the noise of the best; the simplest of them.
  void find_tied() {
    if (!decision_.noise) return;
    for (const std::size_t i : decision_.ranking) {
      if (i != best_ && lead_over(i) <= tolerance(margin(noise_between(best_, i)))) tie(i);
    }
  }

  void tie(std::size_t i) {
    decision_.tied.push_back(i);
    if (candidates_[i].simplicity < candidates_[decision_.simplest_tied].simplicity) decision_.simplest_tied = i;
  }

  // Whole runs of every ranked launch within same_length of each other: all tied with the best.
  bool fixed_length() {
    const double fastest = medians_[decision_.ranking.front()];
    const double slowest = medians_[decision_.ranking.back()];
    if (!same_length_runs(fastest, slowest)) return false;
    for (const std::size_t i : decision_.ranking) {
      if (i != best_) tie(i);
    }
    return true;
  }

  std::string noise_words() const {
    return decision_.noise ? fmt::format(" (the noise between rounds: {})", share(*decision_.noise)) : "";
  }

  Decision with_why(std::string why) {
    decision_.why = std::move(why);
    return std::move(decision_);
  }

  const std::vector<Measured>& candidates_;
  bool higher_;
  bool whole_runs_;
  std::vector<double> medians_;
  std::optional<double> round_noise_;
  std::optional<std::size_t> baseline_;
  std::size_t best_ = 0;
  Decision decision_;
};

}  // namespace

Decision decide(const std::vector<Measured>& candidates, bool higher_is_better, bool whole_runs) {
  return Decider(candidates, higher_is_better, whole_runs).decide();
}

}  // namespace mptrain::tune
