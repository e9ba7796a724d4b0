#include "cli/options.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <memory>

#include "util/number_check.hpp"
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

// A check's verdict on `text` from `value`: its message when refused, else
// "" with `text` rewritten as the number read (decimal: CLI11 alone reads
// "010" as octal and "0x10" as hexadecimal).
template <class T>
std::string verdict(std::string& text, const Result<T>& value) {
  if (!value.ok()) return value.error().message;
  text = fmt::format("{}", *value);
  return {};
}

}  // namespace

CLI::Validator bounded(std::string bounds, std::function<bool(double)> within) {
  auto check = [bounds, within = std::move(within)](std::string& text) {
    return verdict(text, checked_number(text, bounds, within));
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

CLI::Validator whole_number(long long min, long long max) {
  auto check = [min, max](std::string& text) { return verdict(text, checked_whole_number(text, min, max)); };
  return CLI::Validator(std::move(check), whole_number_bounds(min, max));
}

CLI::Validator duration(std::chrono::milliseconds min, std::chrono::milliseconds max) {
  std::string bounds = fmt::format("from {} to {}", min, std::chrono::duration_cast<std::chrono::seconds>(max));
  const double low = std::chrono::duration<double>(min).count();
  const double high = std::chrono::duration<double>(max).count();
  auto check = [bounds, low, high](std::string& text) {
    return verdict(text, checked_seconds(text, low, high, bounds));
  };
  return CLI::Validator(std::move(check), std::move(bounds));
}

CLI::Validator one_of(std::vector<std::string> names) {
  std::string listed = joined_list(names, "or");
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
