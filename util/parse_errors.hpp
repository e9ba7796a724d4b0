// CLI11's parse errors said in mptrain's words: pure functions over the
// text of CLI11's messages, so each rewrite is tested without a command line.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace mptrain {

// The names of the option named `name` as CLI11 lists them
// ("-n,--num-processes,--nproc-per-node"), or `name` when no such option is known.
using OptionNames = std::function<std::string(const std::string& name)>;

// CLI11's parse error `what`, for `command` ("plan"; "" before any command
// was chosen), in mptrain's words, or `what` unchanged when it is none of:
// - "--num-processes: At Most 1 required but received 2" (an option given
//   twice, perhaps under two of its `names_of`): "… was given 2 times; …";
// - "--cpus: 1 required TEXT missing": "--cpus needs a value (TEXT), right after it";
// - "The following arguments were not expected: 2 -n" (listed last first):
//   "mptrain plan does not take: -n 2";
// - "--topology excludes --topology-synthetic": "… cannot be given together; …".
std::string parse_error_in_words(std::string_view what, std::string_view command, const OptionNames& names_of);

}  // namespace mptrain
