#include "tune/trial.hpp"

#include <algorithm>

namespace mptrain::tune {

TrialWindow window_of(const TrialTiming& timing, std::optional<double> program_started) {
  const double origin = std::min(program_started.value_or(longest_startup), longest_startup);
  return {origin + timing.warmup, origin + timing.warmup + timing.window};
}

}  // namespace mptrain::tune
