#include "tune/stats.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "tune/metric.hpp"

namespace mptrain::tune {
namespace {

// A small fraction as a percentage with one decimal: 0.021 → "2.1%".
std::string share(double fraction) { return fmt::format("{:.1f}%", 100 * fraction); }

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
    if (!candidate.failed && candidate.values.size() >= 2) spreads.push_back(robust_spread(candidate.values));
  }
  if (spreads.empty()) return std::nullopt;
  return median(std::move(spreads));
}

bool clearly_worse(double value, double best, bool higher_is_better) {
  return higher_is_better ? value * 2 < best : value > best * 2;
}

double speedup(double value, double reference, bool higher_is_better) {
  if (higher_is_better) return reference > 0 ? value / reference : 0.0;
  return value > 0 ? reference / value : 0.0;
}

Decision decide(const std::vector<Measured>& candidates, bool higher_is_better) {
  Decision decision;
  std::vector<double> medians(candidates.size());
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (candidates[i].failed || candidates[i].values.empty()) continue;
    medians[i] = median(candidates[i].values);
    decision.ranking.push_back(i);
  }
  const auto better = [&](std::size_t a, std::size_t b) {
    if (medians[a] != medians[b]) return higher_is_better ? medians[a] > medians[b] : medians[a] < medians[b];
    return candidates[a].simplicity < candidates[b].simplicity;
  };
  std::stable_sort(decision.ranking.begin(), decision.ranking.end(), better);
  decision.noise = round_noise(candidates);
  if (decision.ranking.empty()) {
    decision.why = "no candidate was measured";
    return decision;
  }
  const std::size_t best = decision.ranking.front();
  decision.simplest_tied = best;
  if (decision.ranking.size() < 2) {
    decision.why = "only one candidate was measured";
    return decision;
  }
  decision.runner_up = decision.ranking[1];
  decision.lead = speedup(medians[best], medians[*decision.runner_up], higher_is_better) - 1;
  if (decision.noise) {
    // Two counts compared can each be one line off: the finest difference
    // between them is the sum of both resolutions.
    decision.noise =
        std::max(*decision.noise, candidates[best].resolution + candidates[*decision.runner_up].resolution);
  }
  // A lead equal to the noise is within it, whatever the last bit of a quotient says.
  const double noise = decision.noise.value_or(0) * (1 + 1e-9);
  for (const std::size_t i : decision.ranking) {
    const bool tied = speedup(medians[best], medians[i], higher_is_better) - 1 <= noise;
    if (tied && candidates[i].simplicity < candidates[decision.simplest_tied].simplicity) decision.simplest_tied = i;
  }
  if (!decision.noise) {
    decision.why =
        "every candidate was measured once, so the noise between rounds is unknown (a larger --budget "
        "gives more rounds)";
  } else if (candidates[best].values.size() < 2) {
    decision.why = "the best was measured once (a larger --budget gives more rounds)";
  } else if (*decision.lead <= noise) {
    decision.why = fmt::format("the best leads the runner-up by {}, within the noise between rounds ({})",
                               share(*decision.lead), share(noise));
  } else {
    decision.winner = best;
    decision.why = fmt::format("it leads the runner-up by {}, more than the noise between rounds ({})",
                               share(*decision.lead), share(noise));
  }
  return decision;
}

}  // namespace mptrain::tune
