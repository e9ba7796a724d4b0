// `mptrain run --dry-run -- CMD`: each rank's exact command line, CPUs,
// memory policy and the variables mptrain sets, printed instead of run.
// The command line reproduces the launch by hand: taskset (or numactl when a
// memory policy applies) for the binding, env for the variables.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/commands.hpp"
#include "cli/run.hpp"
#include "procmgr/environment.hpp"
#include "procmgr/spawn.hpp"
#include "util/failure.hpp"
#include "util/text.hpp"

namespace mptrain::cli {

namespace {

// Every variable mptrain sets for `spec` in its first attempt, "NAME=value".
std::vector<std::string> variables_of(const procmgr::WorkerSpec& spec) {
  auto entries = spec.env;
  for (auto& entry : procmgr::attempt_environment(0)) entries.push_back(std::move(entry));
  return entries;
}

// The binding part of the command line: taskset, numactl or nothing.
std::vector<std::string> binding_words(const procmgr::WorkerSpec& spec) {
  const bool pinned = !spec.cpus.empty();
  if (spec.memory.nodes.empty()) {
    if (!pinned) return {};
    return {"taskset", "-c", spec.cpus.to_string()};
  }
  std::vector<std::string> words = {"numactl"};
  if (pinned) words.push_back("--physcpubind=" + spec.cpus.to_string());
  words.push_back(fmt::format("--{}={}", to_string(spec.memory.mode), spec.memory.nodes.to_string()));
  return words;
}

// The shell command line that starts `spec`'s worker as mptrain would,
// without the variables `unset`.
std::string command_line(const procmgr::WorkerSpec& spec, const std::vector<std::string>& command,
                         const std::vector<std::string>& unset) {
  std::vector<std::string> words = binding_words(spec);
  words.emplace_back("env");
  for (const auto& name : unset) {
    words.emplace_back("-u");
    words.push_back(name);
  }
  for (const auto& entry : variables_of(spec)) words.push_back(entry);
  for (const auto& word : command) words.push_back(word);
  std::vector<std::string> quoted;
  for (const auto& word : words) quoted.push_back(shell_quote(word));
  return fmt::format("{}", fmt::join(quoted, " "));
}

// The slices of `spec`'s working children (--children), from the variable that carries them; none without.
std::vector<std::string> child_slices_of(const procmgr::WorkerSpec& spec) {
  constexpr std::string_view name = "MPTRAIN_PLACE_SLICES=";
  for (const auto& entry : spec.env) {
    if (!entry.starts_with(name)) continue;
    std::vector<std::string> slices;
    for (const auto slice : split(std::string_view(entry).substr(name.size()), ';')) slices.emplace_back(slice);
    return slices;
  }
  return {};
}

nlohmann::json or_null(const std::string& text) {
  return text.empty() ? nlohmann::json(nullptr) : nlohmann::json(text);
}

nlohmann::json rank_json(const procmgr::WorkerSpec& spec, const std::vector<std::string>& command,
                         const std::vector<std::string>& unset, const std::string& executable) {
  nlohmann::json env = nlohmann::json::object();
  for (const auto& entry : variables_of(spec)) {
    const auto equals = entry.find('=');
    env[entry.substr(0, equals)] = entry.substr(equals + 1);
  }
  return {{"rank", spec.rank},
          {"cpus", or_null(spec.cpus.to_string())},
          {"mems", or_null(spec.memory.nodes.to_string())},
          {"memory_policy", spec.memory.nodes.empty() ? "default" : to_string(spec.memory.mode)},
          {"env", std::move(env)},
          {"children_slices", child_slices_of(spec)},
          {"unset", unset},
          {"argv", command},
          {"executable", executable},
          {"command_line", command_line(spec, command, unset)}};
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
    if (const auto slices = child_slices_of(spec); !slices.empty()) {
      text += fmt::format("# rank {}: {} working children, one slice of CPUs each: {}\n", spec.rank, slices.size(),
                          fmt::join(slices, " | "));
    }
    text += command_line(spec, command, unset) + "\n";
  }
  print_report(text);
  return exit_code::success;
}

}  // namespace mptrain::cli
