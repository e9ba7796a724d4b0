#include <fmt/format.h>

#include <csignal>
#include <cstring>

#include "procmgr/group.hpp"

namespace mptrain::procmgr {

std::string signal_name(int signal) {
  const char* abbrev = ::sigabbrev_np(signal);
  if (abbrev == nullptr) return fmt::format("signal {}", signal);
  return std::string("SIG") + abbrev;
}

std::string ExitStatus::describe() const {
  if (kind == Kind::signaled) return "killed by " + signal_name(code);
  return fmt::format("exited with code {}", code);
}

int GroupResult::exit_code() const {
  if (!failed_rank) return 0;
  return workers.at(static_cast<std::size_t>(*failed_rank)).status.shell_code();
}

std::string worker_name(const WorkerSpec& spec) {
  return spec.name.empty() ? fmt::format("rank {}", spec.rank) : spec.name;
}

}  // namespace mptrain::procmgr
