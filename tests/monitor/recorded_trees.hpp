// The recorded /proc and /sys trees the monitor's reader tests run on.
#pragma once

#include <optional>
#include <string_view>

#include "monitor/procfs.hpp"
#include "util/fs.hpp"

namespace mptrain::monitor::testing {

// A machine with cgroup v1 (cpu controller) and the monitor's fixture processes.
inline const FsRoot v1_tree(MPTRAIN_TEST_DATA "/monitor/proc-v1");
// The same machine with cgroup v2 only.
inline const FsRoot v2_tree(MPTRAIN_TEST_DATA "/monitor/proc-v2");

// The count that variable `name` sets in `env`; nullopt when unset (or not a thread-count variable).
inline std::optional<int> count_of(const ThreadEnv& env, std::string_view name) {
  for (std::size_t i = 0; i < thread_count_variables.size(); ++i) {
    if (thread_count_variables[i] == name) return env.counts[i];
  }
  return std::nullopt;
}

}  // namespace mptrain::monitor::testing
