// Fuzz target: the /proc parsers the sampler runs on every sample. The
// first byte picks the parser; the rest is the file's text.
#include "monitor/procfs.hpp"

#include <cstdint>
#include <string_view>

using namespace mptrain::monitor;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (data[0] % 8) {
    case 0:
      (void)parse_task_stat(text);
      break;
    case 1:
      (void)parse_schedstat(text);
      break;
    case 2:
      (void)parse_status(text);
      break;
    case 3:
      (void)parse_thread_env(text);
      break;
    case 4:
      (void)parse_cmdline(text);
      break;
    case 5:
      (void)parse_proc_stat(text, 100);
      break;
    case 6:
      (void)parse_loadavg(text);
      break;
    default:
      (void)parse_cpu_pressure(text);
      break;
  }
  return 0;
}
