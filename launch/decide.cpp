#include "launch/decide.hpp"

#include <fmt/format.h>

#include <cmath>

#include "cluster/torchrun_files.hpp"
#include "procmgr/allocator.hpp"
#include "procmgr/environment.hpp"
#include "procmgr/tree_placement.hpp"
#include "util/failure.hpp"
#include "util/text.hpp"

namespace mptrain::launch {

namespace {

// Thrown inside decide() by the steps below, caught once there.
struct Refused {
  Refusal refusal;
};

[[noreturn]] void refuse(int exit_code, std::string message) { throw Refused{{exit_code, std::move(message)}}; }

// The value of `result`, or a refusal with `exit_code` and its message.
template <class T>
T value_or_refuse(Result<T> result, int exit_code) {
  if (!result.ok()) refuse(exit_code, with_limit_advice(result.error()));
  return std::move(result).value();
}

// The memory policy --membind or --interleave asks for; nullopt when neither was given.
std::optional<procmgr::MemoryPolicy> requested_memory(const Request& request, const Facts& facts) {
  if (request.membind.empty() && request.interleave.empty()) return std::nullopt;
  const auto mode = request.membind.empty() ? MemoryMode::interleave : MemoryMode::bind;
  if (!facts.numa_nodes.ok())
    refuse(exit_code::runtime_failure, procmgr::numa_unreadable(mode, facts.numa_nodes.error()));
  const auto& text = mode == MemoryMode::bind ? request.membind : request.interleave;
  return value_or_refuse(procmgr::requested_memory(mode, text, *facts.numa_nodes), exit_code::usage_error);
}

// The placement library for the workers' descendants ("": none); a missing one is a warning unless --children needs it.
std::string place_library(const Request& request, bool pinned, const Facts& facts, Decision& decision) {
  const auto need = value_or_refuse(procmgr::place_need(request.children, request.descendants), exit_code::usage_error);
  if (need == procmgr::PlaceNeed::none) return {};
  if (facts.place_library.ok()) return *facts.place_library;
  if (need == procmgr::PlaceNeed::required) refuse(exit_code::runtime_failure, facts.place_library.error().message);
  decision.warnings.push_back(facts.place_library.error().message +
                              (pinned ? "; the processes the workers start keep the CPUs they inherit"
                                      : "; the pools the programs size themselves are not capped to the plan's "
                                        "threads"));
  return {};
}

// What every worker gets from `request` (refusing what does not fit `plan`).
procmgr::WorkerSettings worker_settings(const Request& request, const affinity::Plan& plan, const Facts& facts,
                                        Decision& decision) {
  procmgr::WorkerSettings settings;
  settings.thread_counts = request.keep_env ? procmgr::UserThreadEnv::keep : procmgr::UserThreadEnv::override;
  settings.omp_bind = request.omp_bind;
  settings.preload = value_or_refuse(facts.allocator, exit_code::runtime_failure);
  if (!settings.preload.empty()) settings.allocator_settings = procmgr::allocator_settings(request.allocator);
  settings.memory = requested_memory(request, facts);
  settings.children = request.children;
  settings.program_threads =
      request.keep_program_threads ? procmgr::ProgramThreads::keep : procmgr::ProgramThreads::cap;
  settings.launcher = facts.launcher;
  const auto refusal = children_refusal(request.children, plan.threads_per_process, plan.usable_cpus,
                                        plan.num_processes, request.spellings);
  if (!refusal.empty() && !request.allow_oversubscribe) refuse(exit_code::usage_error, refusal);
  settings.place_library = place_library(request, plan.bind != affinity::Bind::none, facts, decision);
  // Unpinned, a program the library cannot reach loses only the cap on its own sizing calls, which its thread
  // variables cover: the warning (it speaks of pinned workers) is for pinned runs and --children.
  const bool placing = plan.bind != affinity::Bind::none || request.children > 0;
  if (!settings.place_library.empty() && !facts.program_reach.empty() && placing) {
    decision.warnings.push_back(facts.program_reach);
  }
  const bool crowded = procmgr::pools_may_exceed_cpus(settings.program_threads, plan.oversubscribed || plan.shares_cpus,
                                                      plan.threads_per_process, settings.children);
  settings.passive_wait = request.wait_policy == procmgr::WaitPolicy::passive ||
                          (request.wait_policy == procmgr::WaitPolicy::automatic && crowded);
  settings.active_wait = request.wait_policy == procmgr::WaitPolicy::active;
  return settings;
}

// The stream choice of option `name`, its `text` "" for `fallback`.
procmgr::StreamChoice chosen_streams(std::string_view name, const std::string& text, procmgr::Streams fallback,
                                     int world_size) {
  return value_or_refuse(procmgr::stream_choice_for(name, text, fallback, world_size), exit_code::usage_error);
}

// Where the workers' output goes and how the group stops and restarts.
procmgr::GroupOptions group_options(const Request& request, int world_size) {
  procmgr::GroupOptions group;
  group.output = request.log_dir.empty() ? procmgr::Output::tagged : procmgr::Output::log_dir;
  group.log_dir = request.log_dir;
  group.tagged_stdout = request.json ? procmgr::TaggedStdout::to_stderr : procmgr::TaggedStdout::to_stdout;
  // Output: --log-dir alone sends both streams to files only; with --redirects
  // or --tee, only the streams they name go to files, as with torchrun.
  const bool log_dir_alone = request.redirects.empty() && request.tee.empty();
  group.redirects = chosen_streams("--redirects", request.redirects,
                                   log_dir_alone ? procmgr::Streams::all : procmgr::Streams::none, world_size);
  group.tee = chosen_streams("--tee", request.tee, procmgr::Streams::none, world_size);
  group.rank_tag = request.no_tag_output ? procmgr::RankTag::off : procmgr::RankTag::on;
  group.timestamps = request.timestamp_output ? procmgr::Timestamps::on : procmgr::Timestamps::off;
  group.grace = std::chrono::milliseconds(std::llround(request.grace_seconds * 1000));
  group.max_restarts = request.max_restarts;
  if (request.torchrun) {
    value_or_refuse(cluster::use_torchrun_output(group, *request.torchrun, world_size), exit_code::usage_error);
  }
  return group;
}

}  // namespace

std::string children_refusal(int children, int threads, int usable, int workers, const OptionSpellings& spell) {
  if (children <= threads) return {};
  const int fewer = usable / children;  // the most workers that have `children` CPUs each
  std::string more;
  if (static_cast<long long>(workers) * children <= usable) {
    more = fmt::format(", {} {} (the usable CPUs leave room for it)", spell.threads, children);
  } else if (fewer >= 1 && fewer < workers) {
    more = fmt::format(", fewer workers ({} {}) so that each gets {}", spell.workers, fewer,
                       counted(usable / fewer, "CPU"));
  }
  return fmt::format(
      "--children {}: each worker has {} ({}, {}) and each working child needs one of its own; use "
      "--children {} or fewer{}, or --allow-oversubscribe",
      children, counted(threads, "CPU"), counted(usable, "usable CPU"), counted(workers, "worker"), threads, more);
}

Decision decide(const Request& request, const affinity::Plan& plan, const Facts& facts,
                const std::vector<std::string>& environment) {
  Decision decision;
  try {
    decision.settings = worker_settings(request, plan, facts, decision);
    const bool pinned = plan.bind != affinity::Bind::none;
    for (auto& warning : procmgr::environment_warnings(environment, decision.settings, plan.threads_per_process, pinned,
                                                       plan.reserve > 0)) {
      decision.warnings.push_back(std::move(warning));
    }
    decision.group = group_options(request, plan.num_processes);
    decision.spread = request.spread_threads == monitor::SpreadThreads::on && pinned &&
                      decision.settings.omp_bind == procmgr::OmpBind::close;
  } catch (const Refused& refused) {
    return Decision{refused.refusal, {}, {}, false, {}};
  }
  return decision;
}

}  // namespace mptrain::launch
