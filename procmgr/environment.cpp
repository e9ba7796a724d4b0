#include "procmgr/environment.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>

#include "util/launcher_variables.hpp"
#include "util/place_variables.h"
#include "util/text.hpp"

namespace mptrain::procmgr {

namespace {

// "NAME=value".
template <class T>
std::string assignment(std::string_view name, const T& value) {
  return fmt::format("{}={}", name, value);
}

}  // namespace

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

std::vector<std::string> active_wait_environment(const std::vector<std::string>& environment) {
  if (find_variable(environment, "OMP_WAIT_POLICY")) return {};
  return {"OMP_WAIT_POLICY=active"};
}

std::vector<std::string> worker_environment(int rank, const CpuSet& cpus, const WorldInfo& world, UserThreadEnv policy,
                                            const std::vector<std::string>& environment) {
  const int global_rank = world.node_rank * world.local_size + rank;
  const int world_size = world.nodes * world.local_size;
  namespace lv = launcher_variables;
  std::vector<std::string> entries = {
      assignment(lv::rank, global_rank),
      assignment(lv::local_rank, rank),
      assignment(lv::world_size, world_size),
      assignment(lv::local_world_size, world.local_size),
      assignment(lv::group_rank, world.node_rank),
      assignment(lv::group_world_size, world.nodes),
      assignment(lv::role_name, world.role),
      assignment(lv::role_rank, global_rank),
      assignment(lv::role_world_size, world_size),
      assignment(lv::max_restarts, world.max_restarts),
      assignment(lv::master_addr, world.master_addr),
      assignment(lv::master_port, world.master_port),
      assignment(lv::mptrain_cpus, cpus.to_string()),
  };
  if (!world.run_id.empty()) {
    // No agent runs a store here: rank 0 serves torch's TCP store itself.
    entries.push_back(assignment(lv::run_id, world.run_id));
    entries.push_back(assignment(lv::use_agent_store, "False"));
  }
  for (auto name : thread_count_variables) {
    if (policy == UserThreadEnv::keep && find_variable(environment, name)) continue;
    entries.push_back(fmt::format("{}={}", name, world.threads));
  }
  return entries;
}

std::vector<std::string> attempt_environment(int restart) {
  return {assignment(launcher_variables::mptrain_restart_count, restart),
          assignment(launcher_variables::restart_count, restart)};
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
    const auto& prefixes = launcher_variables::mpi_prefixes;
    if (std::any_of(prefixes.begin(), prefixes.end(), [&](auto prefix) { return name.starts_with(prefix); }) ||
        name == launcher_variables::mpi_local_rank_id || name == launcher_variables::mpi_local_ranks) {
      names.emplace_back(name);
    }
  }
  return names;
}

namespace {

// What every launch sets for every worker, whatever its options: the
// launcher's variables, each attempt's, and the placement library's.
bool set_by_every_launch(std::string_view name) {
  namespace lv = launcher_variables;
  static constexpr std::array<std::string_view, 18> names = {lv::rank,
                                                             lv::local_rank,
                                                             lv::world_size,
                                                             lv::local_world_size,
                                                             lv::group_rank,
                                                             lv::group_world_size,
                                                             lv::role_name,
                                                             lv::role_rank,
                                                             lv::role_world_size,
                                                             lv::max_restarts,
                                                             lv::master_addr,
                                                             lv::master_port,
                                                             lv::mptrain_cpus,
                                                             lv::run_id,
                                                             lv::use_agent_store,
                                                             lv::mptrain_restart_count,
                                                             lv::restart_count,
                                                             lv::error_file};
  return std::find(names.begin(), names.end(), name) != names.end() || name.starts_with(PLACE_VAR_PREFIX);
}

}  // namespace

std::string set_variables_entry(const std::vector<std::string>& env) {
  std::vector<std::string> names;
  for (const auto& entry : env) {
    const auto name = variable_name(entry);
    if (name != "LD_PRELOAD" && name != launcher_variables::mptrain_set && !set_by_every_launch(name))
      names.emplace_back(name);
  }
  return fmt::format("{}={}", launcher_variables::mptrain_set, fmt::join(names, ","));
}

std::optional<std::vector<std::string>> outside_outer_run(const std::vector<std::string>& environment,
                                                          std::string_view library_name) {
  std::string set;
  const bool inside = find_variable(environment, launcher_variables::mptrain_set, &set);
  std::vector<std::string> names;
  if (inside) {
    for (auto name : split(set, ',')) names.emplace_back(name);
    names.emplace_back(launcher_variables::mptrain_set);
    for (const auto& entry : environment) {
      if (set_by_every_launch(variable_name(entry))) names.emplace_back(variable_name(entry));
    }
  }
  std::string preload;
  std::vector<std::string> kept;
  bool library = false;
  if (find_variable(environment, "LD_PRELOAD", &preload)) {
    for (const auto& path : split(preload, ':')) {
      const auto file = path.substr(path.rfind('/') + 1);  // the whole path when it has no folder
      const bool ours = file == library_name;
      library = library || ours;
      if (!ours && !path.empty()) kept.emplace_back(path);
    }
  }
  if (!inside && !library) return std::nullopt;
  auto outside = without_variables(environment, names);
  if (library) {
    outside = without_variables(std::move(outside), {"LD_PRELOAD"});
    if (!kept.empty()) outside.push_back(fmt::format("LD_PRELOAD={}", fmt::join(kept, ":")));
  }
  return outside;
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
