// How every command's options read: --help shows each default from the
// value the option is bound to, in one style, and a number out of bounds is
// refused with the bounds written as a person writes them ("at least 0").
#pragma once

#include <CLI/CLI.hpp>
#include <chrono>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "util/names.hpp"

namespace mptrain::cli {

// The help group whose options --help counts instead of listing (the doctor's thresholds).
inline constexpr std::string_view folded_help_group = "Thresholds";

// Makes every option added to `app` and its subcommands from now on show its
// default in --help from the value it is bound to, as "TYPE [VALUE]". An
// option whose value means "decide at run time" (0, "") says what is decided
// with default_str() ("one per package"); one without a default binds an
// empty string or list, which shows none.
void use_help_style(CLI::App& app);

// A check that an option's value is a finite number `within` accepts; --help
// shows `bounds` ("from 0 to 1"), and any other value fails with "VALUE is
// not BOUNDS" (or "is not a number", "is not a finite number"). This and the
// checks below rewrite the value as they read it (decimal: CLI11 alone reads
// "010" as octal and "0x10" as hexadecimal): add them with transform(), as
// check() would drop the rewrite.
CLI::Validator bounded(std::string bounds, std::function<bool(double)> within);
// A check that an option's value is a number of at least `min` ("at least 0").
CLI::Validator at_least(double min);
// A check that an option's value is a number from `min` to `max`, both included ("from 0 to 1").
CLI::Validator from_to(double min, double max);
// A check for a count or an id: a whole number written in digits from `min`
// to `max` ("1.5 is not a whole number", "0 is not from 1 to 65535"); --help
// shows "at least MIN" when `max` is left at its default.
CLI::Validator whole_number(long long min, long long max = std::numeric_limits<int>::max());
// A check for a duration from `min` to `max`: seconds as a bare number
// ("0.5") or with a unit, ms or s ("250ms", "1s"). It rewrites the value as
// seconds, so the option binds a double of seconds: add it with transform(),
// as check() would drop the rewrite.
CLI::Validator duration(std::chrono::milliseconds min, std::chrono::milliseconds max);
// A check that an option's value is one of `names`; --help shows
// "{a,b,c}", and any other value fails with "'x' is not one of a, b or c".
CLI::Validator one_of(std::vector<std::string> names);
// The same for the names of an enum's table (util/names.hpp).
template <class E, std::size_t N>
CLI::Validator one_of(const std::array<Named<E>, N>& table) {
  return one_of(names_of(table));
}
// Registers option `names` on `command`, taking one of the names of
// `table` (util/names.hpp) and storing its enum value in `target` (an E,
// whose value --help shows as the default, or a std::optional<E>) and
// setting `*given` when given: the word is checked by one_of(`table`) and
// never kept as a string. Returns the option, for its default_str() and group().
template <class E, std::size_t N, class Target>
CLI::Option* add_word_option(CLI::App& command, std::string names, Target& target, const std::array<Named<E>, N>& table,
                             std::string help, bool* given = nullptr) {
  const auto store = [&target, &table, given](const std::string& word) {
    if (const auto value = value_named(table, word)) target = *value;
    if (given != nullptr) *given = true;
  };
  auto* option = command.add_option_function<std::string>(std::move(names), store, std::move(help));
  if constexpr (std::is_same_v<Target, E>) option->default_str(std::string(name_of(table, target)));
  return option->check(one_of(table));
}
// A check that refuses the values `parse` (a function of the text returning
// a Result) refuses, with its Error's message.
template <class Parse>
CLI::Validator parsed_by(Parse parse) {
  const auto check = [parse](const std::string& text) {
    const auto parsed = parse(text);
    return parsed.ok() ? std::string() : parsed.error().message;
  };
  return CLI::Validator(check, "");
}
// Puts the options added to `command` while it lives in the help group
// `group`, then gives back the group they went to before.
class HelpGroup {
 public:
  HelpGroup(CLI::App& command, const std::string& group)
      : defaults_(*command.option_defaults()), before_(defaults_.get_group()) {
    defaults_.group(group);
  }
  HelpGroup(const HelpGroup&) = delete;
  HelpGroup& operator=(const HelpGroup&) = delete;
  ~HelpGroup() { defaults_.group(before_); }

 private:
  CLI::OptionDefaults& defaults_;
  std::string before_;
};
// A check that an option's value is not the empty word (`--cpus ""`), which
// would otherwise read as "not given".
CLI::Validator non_empty();

}  // namespace mptrain::cli
