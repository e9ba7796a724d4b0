#include "procmgr/outcome.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "util/text.hpp"

namespace mptrain::procmgr {

std::string describe_worker(const WorkerResult& worker) {
  return fmt::format("rank {} (pid {}) {}", worker.rank, worker.pid, worker.status.describe());
}

namespace {

// How `worker` ended, beside the failed worker's `failed` status: "was
// stopped" (running when the group was stopped, and ended by a signal),
// "had finished", "had exited with code 3 too"; without "had" when it was
// still running then but ended by itself (it may have been about to).
std::string outcome_of(const WorkerResult& worker, const ExitStatus& failed) {
  const bool signaled = worker.status.kind == ExitStatus::Kind::signaled;
  if (worker.stopped && signaled) return "stopped";
  const std::string had = worker.stopped ? "" : "had ";
  if (worker.status.success()) return had + "finished";
  const bool same = worker.status.kind == failed.kind && worker.status.code == failed.code;
  return had + (signaled && !worker.stopped ? "been " : "") + worker.status.describe() + (same ? " too" : "");
}

// What became of the workers besides the failed one: "; rank 0 was stopped",
// "; ranks 2, 3 had exited with code 3 too", "; rank 1 had finished"; "" with one worker.
std::string others_outcome(const GroupResult& result) {
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

}  // namespace

std::string failure_message(const GroupResult& result, std::string_view role) {
  const auto& worker = result.workers.at(static_cast<std::size_t>(*result.failed_rank));
  std::string message = fmt::format("{}{}", role, describe_worker(worker));
  if (result.forwarded_signal != 0) {
    message += fmt::format(" after mptrain forwarded {}", signal_name(result.forwarded_signal));
  } else {
    message += others_outcome(result);
  }
  if (!worker.stderr_tail.empty()) {
    message += fmt::format("\nlast lines of rank {}'s stderr:", worker.rank);
    for (const auto line : split(worker.stderr_tail, '\n')) message += fmt::format("\n  {}", printable(line));
  }
  return message;
}

std::string output_loss_message(const OutputLoss& loss) {
  return fmt::format(
      "{}; the worker ran on, but that output is lost: give it a destination that can take it "
      "(room on the disk, a reader that stays) and run again",
      loss.describe());
}

std::string restart_message(const GroupResult& failed, int restart, int max_restarts) {
  const auto& worker = failed.workers.at(static_cast<std::size_t>(*failed.failed_rank));
  return fmt::format("{}; restarting the group ({} of {})", describe_worker(worker), restart, max_restarts);
}

}  // namespace mptrain::procmgr
