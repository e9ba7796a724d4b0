#include "monitor/advice.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "util/text.hpp"

namespace mptrain::monitor {

namespace {

bool is_worker(const std::vector<LaunchedWorker>& workers, pid_t pid) {
  return std::any_of(workers.begin(), workers.end(), [pid](const auto& worker) { return worker.pid == pid; });
}

std::string unplaced_fix(Unplaced why) {
  return why == Unplaced::left
             ? "Without --descendants leave, mptrain gives such processes the worker's CPUs (--descendants "
               "place); --children K gives each working child CPUs of its own"
             : "mptrain could not give it the worker's CPUs: its placement library was not found (see the "
               "warning above); reinstall mptrain";
}

}  // namespace

std::vector<std::string> inherited_binding_warnings(const std::vector<LaunchedWorker>& workers,
                                                    const Diagnosis& diagnosis, Unplaced why) {
  std::vector<std::string> warnings;
  for (const auto& process : diagnosis.processes) {
    if (is_worker(workers, process.pid)) continue;
    auto cpus = CpuSet::parse(process.cpus_allowed);
    if (!cpus.ok() || cpus->size() != 1) continue;
    const auto parent = std::find_if(workers.begin(), workers.end(), [&](const auto& worker) {
      return worker.cpus.size() >= 2 && worker.cpus.contains(cpus->cpus().front());
    });
    if (parent == workers.end()) continue;
    warnings.push_back(fmt::format(
        "pid {} ({}), started by rank {}, ran on CPU {} only though rank {} has CPUs {}: it inherited the CPU "
        "its parent's OpenMP main thread is bound to (OMP_PROC_BIND). {}",
        process.pid, printable(process.comm), parent->rank, cpus->to_short_string(), parent->rank,
        parent->cpus.to_short_string(), unplaced_fix(why)));
  }
  return warnings;
}

std::optional<ChildrenAdvice> children_advice(const std::vector<LaunchedWorker>& workers, const Diagnosis& diagnosis,
                                              int children, std::vector<std::string> argv) {
  if (children > 0 || workers.empty()) return std::nullopt;
  const auto pools = std::count_if(diagnosis.processes.begin(), diagnosis.processes.end(), [&](const auto& process) {
    return !is_worker(workers, process.pid) && process.pool_threads >= 2;
  });
  const auto count = static_cast<long>(workers.size());
  const int per_worker = static_cast<int>((pools + count - 1) / count);
  if (per_worker < 2) return std::nullopt;
  while (!argv.empty() && argv.back().empty()) argv.pop_back();
  auto dashes = std::find(argv.begin(), argv.end(), "--");
  if (dashes == argv.end()) return std::nullopt;
  argv.insert(dashes, {"--children", std::to_string(per_worker)});
  argv.front() = "mptrain";
  return ChildrenAdvice{per_worker, shell_command(argv)};
}

std::string children_note(const ChildrenAdvice& advice) {
  return fmt::format(
      "mptrain: each worker's program started {} that each ran a thread pool; give "
      "each its own CPUs and floor(T/K) threads with:\n  {}",
      counted(advice.children, "process"), advice.command);
}

std::vector<std::string> own_command_line(const FsRoot& root) {
  std::vector<std::string> argv;
  const auto words = root.read("/proc/self/cmdline");
  if (!words.ok()) return argv;
  for (const auto word : split(*words, '\0')) argv.emplace_back(word);
  return argv;
}

std::string gate_message(const Diagnosis& diagnosis, FailOn fail_on, bool ignored) {
  return fmt::format("the monitor's verdict{} reaches --fail-on {} (it is {}); see its findings above",
                     ignored ? " with its --ignore'd findings left out" : "", name_of(fail_on_names, fail_on, "never"),
                     to_string(diagnosis.verdict));
}

bool fails(const Diagnosis& diagnosis, const Gate& gate) { return reaches(diagnosis, gate.fail_on, gate.ignored); }

std::string failed_gate_message(const Diagnosis& diagnosis, const Gate& gate) {
  return gate_message(diagnosis, gate.fail_on, !gate.ignored.empty());
}

}  // namespace mptrain::monitor
