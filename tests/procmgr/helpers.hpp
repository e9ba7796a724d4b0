// What several procmgr test files build their cases from.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "util/cpu_set.hpp"

namespace mptrain::procmgr::testing {

// The CPU set of a list such as "0-3,8".
inline CpuSet cpus(const char* list) { return CpuSet::parse(list).value(); }

// Whether `entries` (an environment, a command line) holds `entry` whole.
inline bool contains(const std::vector<std::string>& entries, const std::string& entry) {
  return std::find(entries.begin(), entries.end(), entry) != entries.end();
}

}  // namespace mptrain::procmgr::testing
