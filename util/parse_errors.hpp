// CLI11's parse errors said in mptrain's words: pure functions over the
// text of CLI11's messages, so each rewrite is tested without a command line;
// and the words of a command line CLI11 would misread, found before it does.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"

namespace mptrain {

// The names of the option named `name` as CLI11 lists them
// ("-n,--num-processes,--nproc-per-node"), or `name` when no such option is known.
using OptionNames = std::function<std::string(const std::string& name)>;

// CLI11's parse error `what`, for `command` ("plan"; "" before any command
// was chosen), in mptrain's words, or `what` unchanged when it is none of:
// - "--num-processes: At Most 1 required but received 2" (an option given
//   twice, perhaps under two of its `names_of`): "… was given 2 times; …";
// - "--cpus: 1 required TEXT missing": "--cpus needs a value (TEXT), right after it";
// - "The following arguments were not expected: 2 --jsn" (listed last first):
//   "mptrain plan does not take: --jsn 2; did you mean --json?", the near
//   names (nearest_names) among `known`, the long names of the command's
//   options, of the first mistyped long option that has any;
// - "--topology excludes --topology-synthetic": "… cannot be given together; …".
std::string parse_error_in_words(std::string_view what, std::string_view command, const OptionNames& names_of,
                                 const std::vector<std::string>& known);

// The names in `known` ("--children") that the mistyped long option `word`
// ("--childern") is near, in the order of `known`, `word` itself left out:
// those that begin with `word` when it has 3 letters or more after its
// dashes; else those the fewest edits away (a character inserted, deleted or
// replaced, or two neighbours swapped) when that is at most a third of its
// letters, or 1. Empty when no name is that near.
std::vector<std::string> nearest_names(std::string_view word, const std::vector<std::string>& known);

// What check_option_words needs to know of an option.
struct OptionShape {
  std::string name;       // the name CLI11 gives it first ("--num-processes")
  int min_values = 0;     // 0: it may go without a value
  int max_values = 0;     // 0: a flag
  std::string type_name;  // "INT"
};
// The option one of whose names is `name` ("-n", "--json"); nullopt for none.
using OptionLookup = std::function<std::optional<OptionShape>(const std::string& name)>;

// An Error (ending with `see`) for a word of `args` (the words after the
// command, up to "--") that CLI11 would misread: a flag given a value
// ("--json=abc", which CLI11 reads as true or false), an option whose value
// is missing because the next word is an option ("-n --json"), a short
// option glued to its value with '=' ("-n=2") and a long option written with
// one dash ("-num-processes", which CLI11 reads as -n um-processes).
Status check_option_words(const std::vector<std::string>& args, const OptionLookup& find, std::string_view see);

}  // namespace mptrain
