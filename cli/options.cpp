#include "cli/options.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <memory>

#include "util/text.hpp"

namespace mptrain::cli {

namespace {

// CLI11's help, each default shown as " [VALUE]" after the option's type, as
// CLI11 2.2 and later render it; 2.1 glues it on ("INT=64").
class HelpFormatter : public CLI::Formatter {
 public:
  std::string make_option_opts(const CLI::Option* option) const override {
    std::string opts = CLI::Formatter::make_option_opts(option);
    const std::string value = option->get_default_str();
    const auto at = value.empty() ? std::string::npos : opts.find("=" + value);
    if (at == std::string::npos) return opts;
    // An empty list ("[]", as CLI11 captures an empty vector) is no default.
    opts.replace(at, value.size() + 1, value == "[]" ? "" : " [" + value + "]");
    return opts;
  }
  // The doctor's threshold options are many and rarely moved: --help names their group and where they
  // are listed (--help-thresholds) instead of listing each.
  std::string make_group(std::string group, bool is_positional, std::vector<const CLI::Option*> opts) const override {
    if (group != folded_help_group) return CLI::Formatter::make_group(std::move(group), is_positional, std::move(opts));
    return fmt::format("\n{}:\n  {} options that move the model's thresholds; --help-thresholds lists them\n", group,
                       opts.size());
  }
};

}  // namespace

void use_help_style(CLI::App& app) {
  app.formatter(std::make_shared<HelpFormatter>());
  app.option_defaults()->always_capture_default();
}

namespace {

// Why `text`, a number beyond the largest double ("1e400"), is refused by a
// check whose values are `bounds`.
std::string too_large(const std::string& text, const std::string& bounds) {
  if (trim(text).starts_with('-')) {
    return fmt::format("{} is too far below zero (beyond the smallest number, about -1.8e308); give one {}", text,
                       bounds);
  }
  return fmt::format("{} is too large (beyond the largest number, about 1.8e308); give one {}", text, bounds);
}

}  // namespace

CLI::Validator bounded(std::string bounds, std::function<bool(double)> within) {
  // The value is handed on as we read it (CLI11 would read "0x10" as hexadecimal).
  auto check = [bounds, within = std::move(within)](std::string& text) -> std::string {
    const auto value = parse_double(text);
    if (!value.ok() && value.error().code == ERANGE) return too_large(text, bounds);
    if (!value.ok()) return fmt::format("{} is not a number", text);
    if (!std::isfinite(*value)) return fmt::format("{} is not a finite number", text);
    if (!within(*value)) return fmt::format("{} is not {}", text, bounds);
    text = fmt::format("{}", *value);
    return {};
  };
  return CLI::Validator(std::move(check), std::move(bounds));
}

CLI::Validator at_least(double min) {
  return bounded(fmt::format("at least {}", min), [min](double value) { return value >= min; });
}

CLI::Validator from_to(double min, double max) {
  return bounded(fmt::format("from {} to {}", min, max),
                 [min, max](double value) { return value >= min && value <= max; });
}

namespace {

// Why `text`, which is not an integer in digits, is refused by whole_number.
std::string not_whole(const std::string& text, const std::string& bounds, long long min, long long max) {
  const auto number = parse_double(text);
  if (!number.ok() && number.error().code == ERANGE) {
    if (trim(text).starts_with('-')) return fmt::format("{} is not {}", text, bounds);
    return fmt::format("{} is too large: the most accepted is {}", text, max);
  }
  if (!number.ok() || !std::isfinite(*number) || *number != std::floor(*number)) {
    return fmt::format("{} is not a whole number", text);
  }
  if (*number > static_cast<double>(max)) return fmt::format("{} is too large: the most accepted is {}", text, max);
  if (*number < static_cast<double>(min)) return fmt::format("{} is not {}", text, bounds);
  return fmt::format("{} is not written as a whole number; write {:.0f}", text, *number);
}

}  // namespace

CLI::Validator whole_number(long long min, long long max) {
  const bool open_ended = max == std::numeric_limits<int>::max();
  std::string bounds = open_ended ? fmt::format("at least {}", min) : fmt::format("from {} to {}", min, max);
  // The value is handed on in plain decimal: CLI11 would read "010" as octal.
  auto check = [bounds, min, max, open_ended](std::string& text) -> std::string {
    const auto value = parse_int(text);
    if (!value.ok()) return not_whole(text, bounds, min, max);
    if (*value > max && open_ended) return fmt::format("{} is too large: the most accepted is {}", text, max);
    if (*value < min || *value > max) return fmt::format("{} is not {}", text, bounds);
    text = std::to_string(*value);
    return {};
  };
  return CLI::Validator(std::move(check), std::move(bounds));
}

namespace {

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

CLI::Validator duration(std::chrono::milliseconds min, std::chrono::milliseconds max) {
  std::string bounds = fmt::format("from {} to {}", min, std::chrono::duration_cast<std::chrono::seconds>(max));
  const double low = std::chrono::duration<double>(min).count();
  const double high = std::chrono::duration<double>(max).count();
  auto check = [bounds, low, high](std::string& text) -> std::string {
    const auto seconds = parse_seconds(text);
    if (!seconds.ok() && seconds.error().code == ERANGE) return too_large(text, bounds);
    if (!seconds.ok()) return fmt::format("{} is not a duration such as 0.5, 250ms or 1s", text);
    if (!std::isfinite(*seconds) || *seconds < low || *seconds > high) {
      return fmt::format("{} is not {}", text, bounds);
    }
    text = fmt::format("{}", *seconds);
    return {};
  };
  return CLI::Validator(std::move(check), std::move(bounds));
}

CLI::Validator one_of(std::vector<std::string> names) {
  std::string listed;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) listed += i + 1 == names.size() ? " or " : ", ";
    listed += names[i];
  }
  std::string description = fmt::format("{{{}}}", fmt::join(names, ","));
  auto check = [names = std::move(names), listed = std::move(listed)](const std::string& text) -> std::string {
    if (std::find(names.begin(), names.end(), text) != names.end()) return {};
    return fmt::format("'{}' is not one of {}", text, listed);
  };
  return CLI::Validator(std::move(check), std::move(description));
}

CLI::Validator non_empty() {
  auto check = [](const std::string& text) -> std::string {
    return text.empty() ? "the value is empty; give one or leave the option out" : std::string();
  };
  return CLI::Validator(std::move(check), "");
}

}  // namespace mptrain::cli
