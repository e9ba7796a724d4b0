// `mptrain run --dry-run -- CMD`: each rank's exact command line, CPUs,
// memory policy and the variables mptrain sets, printed instead of run.
// The command line reproduces the launch by hand: taskset (or numactl when a
// memory policy applies) for the binding, env for the variables.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/commands.hpp"
#include "cli/run.hpp"
#include "procmgr/launch.hpp"
#include "procmgr/launch_report.hpp"
#include "procmgr/spawn.hpp"
#include "util/failure.hpp"

namespace mptrain::cli {

int print_dry_run(const affinity::Plan& plan, const std::vector<procmgr::WorkerSpec>& specs,
                  const std::vector<std::string>& command, const std::vector<std::string>& unset, bool json,
                  std::string_view invoked_as) {
  // The program is looked up as a launch would, so a dry run fails where the launch would.
  const auto executable = value_or_fail(procmgr::resolve_in_path(command.at(0)));
  if (json) {
    nlohmann::json ranks = nlohmann::json::array();
    for (const auto& spec : specs) ranks.push_back(procmgr::dry_run_json(spec, command, unset, executable));
    nlohmann::json document = {{"dry_run", true}, {"command", command}, {"ranks", std::move(ranks)}};
    affinity::add_plan_keys(document, plan);
    document["plan"] = affinity::plan_json(plan);
    print_json(document);
    return exit_code::success;
  }
  std::string text = fmt::format("# {} --dry-run: {}, bind {}; nothing was started\n", invoked_as,
                                 workers_by_threads(plan), affinity::to_string(plan.bind));
  for (const auto& spec : specs) {
    text +=
        fmt::format("# rank {}: CPUs {}, memory {}\n", spec.rank,
                    spec.cpus.empty() ? "not pinned" : spec.cpus.to_short_string(), procmgr::to_string(spec.memory));
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
