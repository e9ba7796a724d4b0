#include "procmgr/environment.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace mptrain::procmgr {

// The names of `names` that `environment` sets.
template <std::size_t N>
std::vector<std::string> names_set(const std::array<std::string_view, N>& names,
                                   const std::vector<std::string>& environment) {
  std::vector<std::string> found;
  for (auto name : names) {
    if (find_variable(environment, name)) found.emplace_back(name);
  }
  return found;
}

std::vector<std::string> thread_variables_set(const std::vector<std::string>& environment) {
  return names_set(thread_count_variables, environment);
}

std::vector<std::string> placement_variables_set(const std::vector<std::string>& environment) {
  return names_set(thread_placement_variables, environment);
}

std::vector<std::string> wait_variables_set(const std::vector<std::string>& environment) {
  return names_set(wait_policy_variables, environment);
}

std::vector<std::string> passive_wait_environment(const std::vector<std::string>& environment) {
  std::vector<std::string> entries;
  if (!find_variable(environment, "OMP_WAIT_POLICY")) entries.emplace_back("OMP_WAIT_POLICY=passive");
  if (!find_variable(environment, "KMP_BLOCKTIME")) entries.emplace_back("KMP_BLOCKTIME=0");
  return entries;
}

std::vector<std::string> worker_environment(int rank, const CpuSet& cpus, const WorldInfo& world, UserThreadEnv policy,
                                            const std::vector<std::string>& environment) {
  const int global_rank = world.node_rank * world.local_size + rank;
  const int world_size = world.nodes * world.local_size;
  std::vector<std::string> entries = {
      fmt::format("RANK={}", global_rank),
      fmt::format("LOCAL_RANK={}", rank),
      fmt::format("WORLD_SIZE={}", world_size),
      fmt::format("LOCAL_WORLD_SIZE={}", world.local_size),
      fmt::format("GROUP_RANK={}", world.node_rank),
      fmt::format("GROUP_WORLD_SIZE={}", world.nodes),
      fmt::format("ROLE_NAME={}", world.role),
      fmt::format("ROLE_RANK={}", global_rank),
      fmt::format("ROLE_WORLD_SIZE={}", world_size),
      fmt::format("TORCHELASTIC_MAX_RESTARTS={}", world.max_restarts),
      fmt::format("MASTER_ADDR={}", world.master_addr),
      fmt::format("MASTER_PORT={}", world.master_port),
      fmt::format("MPTRAIN_CPUS={}", cpus.to_string()),
  };
  if (!world.run_id.empty()) {
    // No agent runs a store here: rank 0 serves torch's TCP store itself.
    entries.push_back(fmt::format("TORCHELASTIC_RUN_ID={}", world.run_id));
    entries.emplace_back("TORCHELASTIC_USE_AGENT_STORE=False");
  }
  for (auto name : thread_count_variables) {
    if (policy == UserThreadEnv::keep && find_variable(environment, name)) continue;
    entries.push_back(fmt::format("{}={}", name, world.threads));
  }
  return entries;
}

std::vector<std::string> attempt_environment(int restart) {
  return {fmt::format("MPTRAIN_RESTART_COUNT={}", restart), fmt::format("TORCHELASTIC_RESTART_COUNT={}", restart)};
}

std::vector<std::string> openmp_placement(const CpuSet& cpus, OmpBind bind,
                                          const std::vector<std::string>& environment) {
  if (bind == OmpBind::none || cpus.empty() || !placement_variables_set(environment).empty()) return {};
  std::vector<std::string> places;
  for (int cpu : cpus.cpus()) places.push_back(fmt::format("{{{}}}", cpu));
  std::vector<std::string> entries = {
      fmt::format("OMP_PLACES={}", fmt::join(places, ",")),
      "OMP_PROC_BIND=close",
      fmt::format("KMP_AFFINITY=granularity=fine,explicit,proclist=[{}]", fmt::join(cpus.cpus(), ",")),
  };
  if (!find_variable(environment, "KMP_WARNINGS")) entries.emplace_back("KMP_WARNINGS=0");
  return entries;
}

std::vector<std::string> preload_environment(const std::string& library, const std::vector<std::string>& environment) {
  if (library.empty()) return {};
  std::string preloaded;
  if (!find_variable(environment, "LD_PRELOAD", &preloaded) || preloaded.empty()) return {"LD_PRELOAD=" + library};
  return {fmt::format("LD_PRELOAD={}:{}", library, preloaded)};
}

std::vector<std::string> mpi_launcher_variables(const std::vector<std::string>& environment) {
  std::vector<std::string> names;
  for (const auto& entry : environment) {
    const auto name = variable_name(entry);
    if (name.starts_with("OMPI_") || name.starts_with("PMIX_") || name.starts_with("PMI_") ||
        name == "MPI_LOCALRANKID" || name == "MPI_LOCALNRANKS") {
      names.emplace_back(name);
    }
  }
  return names;
}

std::vector<std::string> without_variables(std::vector<std::string> environment,
                                           const std::vector<std::string>& names) {
  std::erase_if(environment, [&](const std::string& entry) {
    return std::find(names.begin(), names.end(), variable_name(entry)) != names.end();
  });
  return environment;
}

std::vector<std::string> merge_environment(std::vector<std::string> base, const std::vector<std::string>& overrides) {
  for (const auto& entry : overrides) {
    const auto name = variable_name(entry);
    auto same = std::find_if(base.begin(), base.end(), [&](const std::string& e) { return variable_name(e) == name; });
    if (same != base.end()) {
      *same = entry;
    } else {
      base.push_back(entry);
    }
  }
  return base;
}

}  // namespace mptrain::procmgr
