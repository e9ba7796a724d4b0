#include "util/parse_errors.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <vector>

#include "util/text.hpp"

namespace mptrain {

namespace {

// For an option given twice, a message that says so; "" for any other `what`.
std::string repeated_option(std::string_view what, const OptionNames& names_of) {
  constexpr std::string_view marker = ": At Most 1 required but received ";
  const auto colon = what.find(marker);
  if (colon == std::string_view::npos) return {};
  const std::string name(what.substr(0, colon));
  const std::string_view times = what.substr(colon + marker.size());
  std::string spelled = names_of(name);
  for (auto at = spelled.find(','); at != std::string::npos; at = spelled.find(',', at + 2)) {
    spelled.replace(at, 1, ", ");
  }
  if (spelled == name) return fmt::format("{} was given {} times; give it once", name, times);
  return fmt::format("{} was given {} times; {} are one option: give it once", name, times, spelled);
}

// For an option with no value after it, "--cpus needs a value (TEXT)"; "" for any other `what`.
std::string missing_value(std::string_view what) {
  constexpr std::string_view marker = ": 1 required ";
  constexpr std::string_view missing = " missing";
  const auto at = what.find(marker);
  if (at == std::string_view::npos || !what.ends_with(missing)) return {};
  const auto type = what.substr(at + marker.size(), what.size() - at - marker.size() - missing.size());
  return fmt::format("{} needs a value ({}), right after it", what.substr(0, at), type);
}

// For words no option took, "mptrain plan does not take: -n 2"; "" for any other `what`.
std::string unexpected(std::string_view command, std::string_view what) {
  if (!what.starts_with("The following argument")) return {};
  const auto colon = what.find(": ");
  if (colon == std::string_view::npos) return {};
  auto words = split(what.substr(colon + 2), ' ');
  std::vector<std::string_view> given(words.rbegin(), words.rend());
  return fmt::format("{} does not take: {}", command.empty() ? "mptrain" : fmt::format("mptrain {}", command),
                     printable(fmt::format("{}", fmt::join(given, " "))));
}

// For two options that cannot go together, "give only one of them"; "" for any other `what`.
std::string excludes(std::string_view what) {
  constexpr std::string_view marker = " excludes ";
  const auto at = what.find(marker);
  if (!what.starts_with('-') || at == std::string_view::npos) return {};
  return fmt::format("{} and {} cannot be given together; give only one of them", what.substr(0, at),
                     what.substr(at + marker.size()));
}

}  // namespace

std::string parse_error_in_words(std::string_view what, std::string_view command, const OptionNames& names_of) {
  for (auto message :
       {repeated_option(what, names_of), missing_value(what), unexpected(command, what), excludes(what)}) {
    if (!message.empty()) return message;
  }
  return std::string(what);
}

Status check_option_words(const std::vector<std::string>& args, const OptionLookup& find, std::string_view see) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    if (word == "--") break;
    if (!word.starts_with('-') || word.size() < 2) continue;
    const auto equals = word.find('=');
    const std::string name = word.substr(0, equals);
    if (!word.starts_with("--")) {
      if (name.size() > 2 && find("-" + name)) {
        return Error{fmt::format("{}: did you mean -{}? A long option starts with two dashes{}", word, word, see)};
      }
      const auto short_option = find(word.substr(0, 2));
      if (word.size() > 2 && word[2] == '=' && short_option && short_option->min_values > 0) {
        return Error{fmt::format("{}: a short option takes its value after a space: {} {} (or {}={}){}", word,
                                 word.substr(0, 2), word.substr(3), short_option->name, word.substr(3), see)};
      }
    }
    const auto option = find(name);
    if (!option) continue;
    if (option->max_values == 0) {
      if (equals != std::string::npos) return Error{fmt::format("{} takes no value: write {}{}", name, name, see)};
      continue;
    }
    if (equals != std::string::npos || i + 1 == args.size()) continue;
    const std::string& next = args[i + 1];
    if (next == "--" || (next.starts_with('-') && find(next.substr(0, next.find('='))))) {
      return Error{fmt::format("{} needs a value ({}) right after it, but the next word is {}{}", word,
                               option->type_name, next == "--" ? "'--'" : "the option " + next, see)};
    }
    ++i;  // the option's value, which may start with '-' ("-5")
  }
  return ok_status();
}

}  // namespace mptrain
