// Numbers a person typed (option values), read as mptrain reads every
// number (decimal, a leading '+' allowed) and checked against bounds, with
// an Error whose message says why a value is refused and what to give.
// `bounds` is how a message writes the accepted values: "at least 0", "from 0 to 1".
#pragma once

#include <functional>
#include <limits>
#include <string>
#include <string_view>

#include "util/result.hpp"

namespace mptrain {

// `text` as a finite number that `within` accepts; otherwise an Error
// "TEXT is not BOUNDS", "TEXT is not a number", "TEXT is not a finite
// number", or, beyond the largest double, "TEXT is too large (…); give one BOUNDS".
Result<double> checked_number(std::string_view text, std::string_view bounds,
                              const std::function<bool(double)>& within);

// The bounds of a whole number from `min` to `max`: "from MIN to MAX", or
// "at least MIN" when `max` is left at the largest int.
std::string whole_number_bounds(long long min, long long max = std::numeric_limits<int>::max());
// `text` as a whole number written in digits from `min` to `max`; otherwise
// an Error "1.5 is not a whole number", "0 is not from 1 to 65535", "TEXT is
// too large: the most accepted is MAX" or "1e3 is not written as a whole
// number; write 1000".
Result<long long> checked_whole_number(std::string_view text, long long min,
                                       long long max = std::numeric_limits<int>::max());

// `text` as seconds from `min` to `max` (the accepted values written as
// `bounds`): a bare number ("0.5") or one with a unit, ms or s ("250ms",
// "1s"); otherwise an Error "TEXT is not a duration such as 0.5, 250ms or
// 1s", "TEXT is not BOUNDS" or "TEXT is too large (…)".
Result<double> checked_seconds(std::string_view text, double min, double max, std::string_view bounds);

}  // namespace mptrain
