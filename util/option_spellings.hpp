// How the front end that took a launch request spells the options its
// messages name: `mptrain run` and `plan` say -n and -t; `mptrain torchrun`
// says --nproc-per-node and --threads-per-process (torchrun's -t is --tee).
// The planner and the launch decisions write their advice with these, so
// no message is rewritten after the fact.
#pragma once

#include <string_view>

namespace mptrain {

// The spellings of the worker-count and thread-count options.
struct OptionSpellings {
  std::string_view workers = "-n";
  std::string_view threads = "-t";
};

// `mptrain run`'s and `plan`'s.
inline constexpr OptionSpellings run_spellings{};
// `mptrain torchrun`'s.
inline constexpr OptionSpellings torchrun_spellings{"--nproc-per-node", "--threads-per-process"};

}  // namespace mptrain
