#include "util/parse_errors.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <iterator>
#include <vector>

#include "util/text.hpp"

namespace mptrain {

namespace {

// The fewest edits that turn `a` into `b`: characters inserted, deleted or
// replaced, and neighbours swapped (the optimal string alignment distance).
std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Rows i-2, i-1 and i of the table: row[j] is the distance of a[0, i) to b[0, j).
  std::vector<std::size_t> before(b.size() + 1), previous(b.size() + 1), row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t replace = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({previous[j] + 1, row[j - 1] + 1, replace});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) row[j] = std::min(row[j], before[j - 2] + 1);
    }
    std::swap(before, previous);
    std::swap(previous, row);
  }
  return previous[b.size()];
}

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

// "; did you mean --children?" for the first long option of `words` near a name of `known`; "" for none.
std::string did_you_mean(const std::vector<std::string_view>& words, const std::vector<std::string>& known) {
  for (const auto word : words) {
    if (!word.starts_with("--")) continue;
    const auto near = nearest_names(word.substr(0, word.find('=')), known);
    if (!near.empty()) return fmt::format("; did you mean {}?", joined_list(near, "or"));
  }
  return {};
}

// For words no option took, "mptrain plan does not take: -n 2" and the near
// name of a mistyped option; "" for any other `what`.
std::string unexpected(std::string_view command, std::string_view what, const std::vector<std::string>& known) {
  if (!what.starts_with("The following argument")) return {};
  const auto colon = what.find(": ");
  if (colon == std::string_view::npos) return {};
  auto words = split(what.substr(colon + 2), ' ');
  std::vector<std::string_view> given(words.rbegin(), words.rend());
  return fmt::format("{} does not take: {}{}", command.empty() ? "mptrain" : fmt::format("mptrain {}", command),
                     printable(fmt::format("{}", fmt::join(given, " "))), did_you_mean(given, known));
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

std::string parse_error_in_words(std::string_view what, std::string_view command, const OptionNames& names_of,
                                 const std::vector<std::string>& known) {
  for (auto message :
       {repeated_option(what, names_of), missing_value(what), unexpected(command, what, known), excludes(what)}) {
    if (!message.empty()) return message;
  }
  return std::string(what);
}

std::vector<std::string> nearest_names(std::string_view word, const std::vector<std::string>& known) {
  const auto first_letter = word.find_first_not_of('-');
  const std::size_t letters = first_letter == std::string_view::npos ? 0 : word.size() - first_letter;
  std::vector<std::string> near;
  if (letters >= 3) {
    std::copy_if(known.begin(), known.end(), std::back_inserter(near),
                 [word](const std::string& name) { return name != word && name.starts_with(word); });
    if (!near.empty()) return near;
  }
  std::size_t fewest = std::max<std::size_t>(1, letters / 3);
  for (const auto& name : known) {
    const std::size_t gap = name.size() > word.size() ? name.size() - word.size() : word.size() - name.size();
    if (name == word || gap > fewest) continue;  // each extra letter is an edit: a long word skips the table
    const std::size_t edits = edit_distance(word, name);
    if (edits > fewest) continue;
    if (edits < fewest) near.clear();
    fewest = edits;
    near.push_back(name);
  }
  return near;
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
