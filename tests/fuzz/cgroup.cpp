// Fuzz target: the cgroup files and mount table util/cgroup.hpp parses.
// The first byte picks the parser; for the locator the text is split at
// the first NUL into /proc/PID/cgroup and /proc/self/mountinfo.
#include "util/cgroup.hpp"

#include <cstdint>
#include <string_view>

using namespace mptrain;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  const auto nul = text.find('\0');
  const std::string_view first = text.substr(0, nul);
  const std::string_view second = nul == std::string_view::npos ? std::string_view() : text.substr(nul + 1);
  switch (data[0] % 4) {
    case 0: {
      const auto located = locate_controller(parse_proc_cgroup(first), parse_cgroup_mounts(second), "cpu");
      if (located && located->levels.empty()) __builtin_trap();  // a location always has its own level
      break;
    }
    case 1:
      (void)parse_cpu_stat(text);
      break;
    case 2:
      (void)parse_cpu_max(text);
      break;
    default:
      (void)parse_cfs_quota(first, second);
      break;
  }
  return 0;
}
