// Fuzz target: CPU lists as the kernel writes them and users type them
// (--cpus, cgroup cpuset files, /sys online lists), strides ("0-15:2/4") included.
#include <cstdint>
#include <string_view>

#include "util/cpu_set.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto cpus = mptrain::CpuSet::parse(text);
  if (cpus.ok()) {
    // What is printed (plain ranges, strides expanded) must parse back to the same set.
    auto again = mptrain::CpuSet::parse(cpus->to_string());
    if (!again.ok() || !(*again == *cpus)) __builtin_trap();
  }
  return 0;
}
