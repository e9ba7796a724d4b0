#include "procmgr/environment.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>

namespace mptrain::procmgr {

namespace {

// The "NAME" part of a "NAME=value" entry.
std::string_view name_of(std::string_view entry) { return entry.substr(0, entry.find('=')); }

}  // namespace

std::vector<std::string> current_environment() {
  std::vector<std::string> entries;
  for (char** entry = ::environ; entry != nullptr && *entry != nullptr; ++entry) entries.emplace_back(*entry);
  return entries;
}

bool find_variable(const std::vector<std::string>& environment, std::string_view name, std::string* value) {
  for (const auto& entry : environment) {
    if (name_of(entry) != name || entry.size() == name.size()) continue;
    if (value != nullptr) *value = entry.substr(name.size() + 1);
    return true;
  }
  if (value != nullptr) value->clear();
  return false;
}

std::vector<std::string> thread_variables_set(const std::vector<std::string>& environment) {
  std::vector<std::string> names;
  for (auto name : thread_count_variables) {
    if (find_variable(environment, name)) names.emplace_back(name);
  }
  return names;
}

std::vector<std::string> worker_environment(int rank, const CpuSet& cpus, const WorldInfo& world, UserThreadEnv policy,
                                            const std::vector<std::string>& environment) {
  std::vector<std::string> entries = {
      fmt::format("RANK={}", rank),
      fmt::format("LOCAL_RANK={}", rank),
      fmt::format("WORLD_SIZE={}", world.world_size),
      fmt::format("LOCAL_WORLD_SIZE={}", world.world_size),
      "GROUP_RANK=0",
      fmt::format("MASTER_ADDR={}", world.master_addr),
      fmt::format("MASTER_PORT={}", world.master_port),
      fmt::format("MPTRAIN_CPUS={}", cpus.to_string()),
  };
  for (auto name : thread_count_variables) {
    if (policy == UserThreadEnv::keep && find_variable(environment, name)) continue;
    entries.push_back(fmt::format("{}={}", name, world.threads));
  }
  return entries;
}

std::vector<std::string> merge_environment(std::vector<std::string> base, const std::vector<std::string>& overrides) {
  for (const auto& entry : overrides) {
    const auto name = name_of(entry);
    auto same = std::find_if(base.begin(), base.end(), [&](const std::string& e) { return name_of(e) == name; });
    if (same != base.end()) {
      *same = entry;
    } else {
      base.push_back(entry);
    }
  }
  return base;
}

}  // namespace mptrain::procmgr
