// Fuzz target: parse_runtimes over /proc/PID/maps text, which holds any
// path a process mapped (spaces, odd bytes, " (deleted)", no newline).
#include <cstdint>
#include <string_view>

#include "monitor/runtimes.hpp"

using namespace mptrain::monitor;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const auto& runtime : parse_runtimes(text)) {
    if (runtime.library.empty() || to_string(runtime.kind).empty()) __builtin_trap();
  }
  return 0;
}
