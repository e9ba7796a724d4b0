// The environment a launched worker gets: thread counts, torchrun-compatible
// rendezvous variables and its CPU list. Built in the parent before fork.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "util/cpu_set.hpp"
#include "util/thread_variables.hpp"

namespace mptrain::procmgr {

// What every worker of a launch is told about the group.
struct WorldInfo {
  int world_size = 1;                     // M
  int threads = 1;                        // T
  std::string master_addr = "127.0.0.1";  // MASTER_ADDR
  int master_port = 29500;                // MASTER_PORT
};

// Whether thread-count variables already in mptrain's environment win (`--keep-env`).
enum class UserThreadEnv { override, keep };

// This process's environment as "NAME=value" entries.
std::vector<std::string> current_environment();

// The value of `name` in `environment` ("NAME=value" entries); "" and false when absent.
bool find_variable(const std::vector<std::string>& environment, std::string_view name, std::string* value = nullptr);

// The names of `thread_count_variables` that `environment` already sets.
std::vector<std::string> thread_variables_set(const std::vector<std::string>& environment);

// The variables for worker `rank` pinned to `cpus`: RANK, LOCAL_RANK,
// WORLD_SIZE, LOCAL_WORLD_SIZE, GROUP_RANK, MASTER_ADDR, MASTER_PORT,
// MPTRAIN_CPUS and the thread counts — except, with UserThreadEnv::keep,
// thread variables that `environment` already sets.
std::vector<std::string> worker_environment(int rank, const CpuSet& cpus, const WorldInfo& world, UserThreadEnv policy,
                                            const std::vector<std::string>& environment);

// `base` with `overrides` applied: an entry of the same name is replaced in
// place, a new name is appended.
std::vector<std::string> merge_environment(std::vector<std::string> base, const std::vector<std::string>& overrides);

}  // namespace mptrain::procmgr
