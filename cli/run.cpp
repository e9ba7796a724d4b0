#include "cli/run.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "cli/commands.hpp"
#include "util/failure.hpp"
#include "util/fs.hpp"
#include "util/pinning.hpp"
#include "util/text.hpp"

namespace mptrain::cli {

namespace {

// Refuses (usage error) any option of the option group starting with `group`
// that was given: training options with a command, launcher options without one.
void refuse_other_modes_options(const CLI::App& command, std::string_view group) {
  for (const CLI::Option* option : command.get_options()) {
    if (option->count() == 0 || !option->get_group().starts_with(group)) continue;
    if (group == "Training") {
      usage_failure("{} is a training option, but a command to launch was given after --; drop one of them",
                    option->get_name());
    }
    usage_failure("{} applies only when launching a command (run [options] -- CMD ARGS...)", option->get_name());
  }
}

}  // namespace

std::vector<procmgr::WorkerSpec> worker_specs(const affinity::Plan& plan) {
  // No NUMA support (no node list): nothing to bind.
  const auto online_nodes = read_online_nodes(FsRoot::from_env());
  std::vector<procmgr::WorkerSpec> specs;
  for (const auto& placement : plan.workers) {
    procmgr::WorkerSpec spec;
    spec.rank = placement.rank;
    if (plan.bind != affinity::Bind::none) {
      spec.cpus = placement.cpus;
      if (online_nodes.ok()) spec.memory = procmgr::node_memory_policy(placement.numa_node, *online_nodes);
    }
    specs.push_back(std::move(spec));
  }
  return specs;
}

std::string describe_worker(const procmgr::WorkerResult& worker) {
  return fmt::format("rank {} (pid {}) {}", worker.rank, worker.pid, worker.status.describe());
}

// How `worker` ended, beside the failed worker's `failed` status: "was
// stopped" (running when the group was stopped, and ended by a signal),
// "had finished", "had exited with code 3 too"; without "had" when it was
// still running then but ended by itself (it may have been about to).
std::string outcome_of(const procmgr::WorkerResult& worker, const procmgr::ExitStatus& failed) {
  const bool signaled = worker.status.kind == procmgr::ExitStatus::Kind::signaled;
  if (worker.stopped && signaled) return "stopped";
  const std::string had = worker.stopped ? "" : "had ";
  if (worker.status.success()) return had + "finished";
  const bool same = worker.status.kind == failed.kind && worker.status.code == failed.code;
  return had + (signaled && !worker.stopped ? "been " : "") + worker.status.describe() + (same ? " too" : "");
}

// What became of the workers besides the failed one: "; rank 0 was stopped",
// "; ranks 2, 3 had exited with code 3 too", "; rank 1 had finished"; "" with one worker.
std::string others_outcome(const procmgr::GroupResult& result) {
  const auto& failed = result.workers.at(static_cast<std::size_t>(*result.failed_rank));
  std::vector<std::pair<std::string, std::vector<int>>> outcomes;  // in order of first appearance
  for (const auto& worker : result.workers) {
    if (worker.rank == failed.rank) continue;
    const std::string how = outcome_of(worker, failed.status);
    auto found = std::find_if(outcomes.begin(), outcomes.end(), [&](const auto& o) { return o.first == how; });
    if (found == outcomes.end()) {
      outcomes.push_back({how, {worker.rank}});
    } else {
      found->second.push_back(worker.rank);
    }
  }
  std::string text;
  for (const auto& [how, ranks] : outcomes) {
    const bool one = ranks.size() == 1;
    const std::string who = fmt::format("{} {}", one ? "rank" : "ranks", fmt::join(ranks, ", "));
    if (how == "stopped") {
      text += fmt::format("; {} {} stopped", who, one ? "was" : "were");
    } else {
      text += fmt::format("; {} {}", who, how);
    }
  }
  return text;
}

std::string failure_message(const procmgr::GroupResult& result, std::string_view role) {
  const auto& worker = result.workers.at(static_cast<std::size_t>(*result.failed_rank));
  std::string message = fmt::format("{}{}", role, describe_worker(worker));
  if (result.forwarded_signal != 0) {
    message += fmt::format(" after mptrain forwarded {}", procmgr::signal_name(result.forwarded_signal));
  } else {
    message += others_outcome(result);
  }
  if (!worker.stderr_tail.empty()) {
    message += fmt::format("\nlast lines of rank {}'s stderr:", worker.rank);
    for (const auto line : split(worker.stderr_tail, '\n')) message += fmt::format("\n  {}", printable(line));
  }
  return message;
}

void add_run_command(CLI::App& app, Runner& runner) {
  auto options = std::make_shared<RunOptions>();
  auto* command = app.add_subcommand("run", "Train with the built-in Hogwild core, or launch `-- CMD ARGS...` M times");
  add_placement_options(*command, options->placement);
  command->add_flag("--json", options->json, "Print the final report as one JSON document on stdout");
  add_fail_on_options(*command, options->gate);
  command->add_flag("--quiet", options->quiet, "The monitor's part of the report: its verdict line and each fix only");
  options->train = add_train_options(*command);
  options->launch = add_launch_options(*command);
  add_command_words(*command, options->command, "Program and arguments to launch, after --");
  command->callback([&runner, options, command] {
    refuse_other_modes_options(*command, options->command.empty() ? "Launcher" : "Training");
    // The launcher's --master-addr also says whether every node runs on this host (cluster/identity.hpp).
    if (const auto* master = command->get_option_no_throw("--master-addr"); master != nullptr && master->count() > 0) {
      options->placement.nodes.master_addr = master->as<std::string>();
    }
    runner = [options] { return options->command.empty() ? run_training(*options) : run_launcher(*options); };
  });
}

}  // namespace mptrain::cli
