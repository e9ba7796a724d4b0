// Fuzz target: the values options take, as the command line gives them —
// whole numbers (decimal only, in bounds), real numbers and durations
// (overflow said as such), names from a set, and torchrun's --redirects /
// --tee stream choices. A value a check accepts comes back rewritten in
// plain decimal within its bounds; a stream choice names no negative rank.
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "cli/options.hpp"
#include "procmgr/output.hpp"
#include "util/text.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  using namespace mptrain;

  std::string whole = text;
  if (cli::whole_number(1, 65535)(whole).empty()) {
    const auto value = parse_int(whole);
    if (!value.ok() || *value < 1 || *value > 65535 || std::to_string(*value) != whole) __builtin_trap();
  }
  std::string real = text;
  if (cli::from_to(0, 1)(real).empty()) {
    const auto value = parse_double(real);
    if (!value.ok() || !(*value >= 0 && *value <= 1)) __builtin_trap();
  }
  std::string seconds = text;
  if (cli::duration(std::chrono::milliseconds(50), std::chrono::seconds(86400))(seconds).empty()) {
    const auto value = parse_double(seconds);
    if (!value.ok() || !(*value >= 0.05 - 1e-12 && *value <= 86400)) __builtin_trap();
  }
  std::string name = text;
  if (cli::one_of({"core", "numa", "none"})(name).empty() && name != "core" && name != "numa" && name != "none") {
    __builtin_trap();
  }
  const auto number = parse_double(text);
  if (number.ok() && std::isnan(*number) && text.find_first_of("nN") == std::string::npos) __builtin_trap();
  if (const auto choice = procmgr::parse_stream_choice(text); choice.ok()) {
    for (const auto& [rank, streams] : choice->per_rank) {
      if (rank < 0) __builtin_trap();
      (void)streams;
    }
  }
  return 0;
}
