// `mptrain run --dry-run -- CMD`: each rank's exact command line, CPUs,
// memory policy and the variables mptrain sets, printed instead of run.
// The command line reproduces the launch by hand: taskset (or numactl when a
// memory policy applies) for the binding, env for the variables.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/commands.hpp"
#include "cli/run.hpp"
#include "procmgr/launch.hpp"
#include "procmgr/spawn.hpp"
#include "util/failure.hpp"

namespace mptrain::cli {

namespace {

nlohmann::json or_null(const std::string& text) {
  return text.empty() ? nlohmann::json(nullptr) : nlohmann::json(text);
}

nlohmann::json rank_json(const procmgr::WorkerSpec& spec, const std::vector<std::string>& command,
                         const std::vector<std::string>& unset, const std::string& executable) {
  nlohmann::json env = nlohmann::json::object();
  for (const auto& entry : procmgr::first_attempt_variables(spec)) {
    const auto equals = entry.find('=');
    env[entry.substr(0, equals)] = entry.substr(equals + 1);
  }
  return {{"rank", spec.rank},
          {"cpus", or_null(spec.cpus.to_string())},
          {"mems", or_null(spec.memory.nodes.to_string())},
          {"memory_policy", spec.memory.nodes.empty() ? "default" : to_string(spec.memory.mode)},
          {"env", std::move(env)},
          {"children_slices", procmgr::child_slices_of(spec)},
          {"unset", unset},
          {"argv", command},
          {"executable", executable},
          {"command_line", procmgr::command_line(spec, command, unset)}};
}

}  // namespace

int print_dry_run(const affinity::Plan& plan, const std::vector<procmgr::WorkerSpec>& specs,
                  const std::vector<std::string>& command, const std::vector<std::string>& unset, bool json) {
  // The program is looked up as a launch would, so a dry run fails where the launch would.
  const auto executable = value_or_fail(procmgr::resolve_in_path(command.at(0)));
  if (json) {
    nlohmann::json ranks = nlohmann::json::array();
    for (const auto& spec : specs) ranks.push_back(rank_json(spec, command, unset, executable));
    print_json({{"dry_run", true},
                {"command", command},
                {"num_processes", plan.num_processes},
                {"threads_per_process", plan.threads_per_process},
                {"bind", affinity::to_string(plan.bind)},
                {"ranks", std::move(ranks)},
                {"plan", plan_to_json(plan)}});
    return exit_code::success;
  }
  std::string text = fmt::format("# mptrain run --dry-run: {}, bind {}; nothing was started\n",
                                 workers_by_threads(plan), affinity::to_string(plan.bind));
  for (const auto& spec : specs) {
    text += fmt::format("# rank {}: CPUs {}, memory {}\n", spec.rank,
                        spec.cpus.empty() ? "not pinned" : spec.cpus.to_string(), procmgr::to_string(spec.memory));
    if (const auto slices = procmgr::child_slices_of(spec); !slices.empty()) {
      text += fmt::format("# rank {}: {} working children, one slice of CPUs each: {}\n", spec.rank, slices.size(),
                          fmt::join(slices, " | "));
    }
    text += procmgr::command_line(spec, command, unset) + "\n";
  }
  print_report(text);
  return exit_code::success;
}

}  // namespace mptrain::cli
