#include "util/number_check.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>

#include "util/text.hpp"

namespace mptrain {

namespace {

// Why `text`, a number beyond the largest double ("1e400"), is refused by a
// check whose values are `bounds`.
Error too_large(std::string_view text, std::string_view bounds) {
  if (trim(text).starts_with('-')) {
    return Error{fmt::format("{} is too far below zero (beyond the smallest number, about -1.8e308); give one {}", text,
                             bounds)};
  }
  return Error{fmt::format("{} is too large (beyond the largest number, about 1.8e308); give one {}", text, bounds)};
}

// Why `text`, which is not an integer in digits, is refused by checked_whole_number.
Error not_whole(std::string_view text, std::string_view bounds, long long min, long long max) {
  const auto number = parse_double(text);
  if (!number.ok() && number.error().code == ERANGE) {
    if (trim(text).starts_with('-')) return Error{fmt::format("{} is not {}", text, bounds)};
    return Error{fmt::format("{} is too large: the most accepted is {}", text, max)};
  }
  if (!number.ok() || !std::isfinite(*number) || *number != std::floor(*number)) {
    return Error{fmt::format("{} is not a whole number", text)};
  }
  if (*number > static_cast<double>(max)) {
    return Error{fmt::format("{} is too large: the most accepted is {}", text, max)};
  }
  if (*number < static_cast<double>(min)) return Error{fmt::format("{} is not {}", text, bounds)};
  return Error{fmt::format("{} is not written as a whole number; write {:.0f}", text, *number)};
}

// `text` as seconds: a bare number, or a number ending in "ms" or "s".
Result<double> parse_seconds(std::string_view text) {
  double scale = 1;
  if (text.ends_with("ms")) {
    text.remove_suffix(2);
    scale = 0.001;
  } else if (text.ends_with('s')) {
    text.remove_suffix(1);
  }
  auto value = parse_double(text);
  if (!value.ok()) return value.error();
  return *value * scale;
}

}  // namespace

Result<double> checked_number(std::string_view text, std::string_view bounds,
                              const std::function<bool(double)>& within) {
  const auto value = parse_double(text);
  if (!value.ok() && value.error().code == ERANGE) return too_large(text, bounds);
  if (!value.ok()) return Error{fmt::format("{} is not a number", text)};
  if (!std::isfinite(*value)) return Error{fmt::format("{} is not a finite number", text)};
  if (!within(*value)) return Error{fmt::format("{} is not {}", text, bounds)};
  return *value;
}

std::string whole_number_bounds(long long min, long long max) {
  if (max == std::numeric_limits<int>::max()) return fmt::format("at least {}", min);
  return fmt::format("from {} to {}", min, max);
}

Result<long long> checked_whole_number(std::string_view text, long long min, long long max) {
  const std::string bounds = whole_number_bounds(min, max);
  const auto value = parse_int(text);
  if (!value.ok()) return not_whole(text, bounds, min, max);
  if (*value > max && max == std::numeric_limits<int>::max()) {
    return Error{fmt::format("{} is too large: the most accepted is {}", text, max)};
  }
  if (*value < min || *value > max) return Error{fmt::format("{} is not {}", text, bounds)};
  return *value;
}

Result<double> checked_seconds(std::string_view text, double min, double max, std::string_view bounds) {
  const auto seconds = parse_seconds(text);
  if (!seconds.ok() && seconds.error().code == ERANGE) return too_large(text, bounds);
  if (!seconds.ok()) return Error{fmt::format("{} is not a duration such as 0.5, 250ms or 1s", text)};
  if (!std::isfinite(*seconds) || *seconds < min || *seconds > max) {
    return Error{fmt::format("{} is not {}", text, bounds)};
  }
  return *seconds;
}

}  // namespace mptrain
