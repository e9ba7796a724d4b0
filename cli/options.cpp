#include "cli/options.hpp"

#include <fmt/format.h>

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
};

}  // namespace

void use_help_style(CLI::App& app) {
  app.formatter(std::make_shared<HelpFormatter>());
  app.option_defaults()->always_capture_default();
}

CLI::Validator bounded(std::string bounds, std::function<bool(double)> within, std::string unit) {
  auto check = [bounds, within = std::move(within), unit = std::move(unit)](const std::string& text) -> std::string {
    const auto value = parse_double(text);
    if (!value.ok()) return fmt::format("{} is not a number", text);
    if (!within(*value)) return fmt::format("{}{} is not {}", text, unit, bounds);
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

}  // namespace mptrain::cli
