#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/file.h>
#include <unistd.h>

#include <chrono>
#include <utility>

#include "launch/sharing.hpp"
#include "util/task_stat.hpp"

namespace mptrain::launch {

namespace {

// Whether `run` is this process or one of its ancestors (a run this one was started inside).
bool is_ancestor(const RunRecord& run) {
  const FsRoot root;
  for (pid_t pid = ::getpid(); pid > 1;) {
    const auto stat = read_process_stat(root, pid);
    if (!stat.ok()) return false;
    if (pid == run.pid && stat->start_ticks == run.start) return true;
    pid = stat->ppid;
  }
  return false;
}

}  // namespace

MachineClaim MachineClaim::open(const std::filesystem::path& directory, std::string& warning) {
  MachineClaim claim;
  claim.directory_ = directory;
  // Made when missing (so that the first runs too have a directory to lock), and judged, before the lock.
  if (auto trusted = prepare_runs_directory(directory); !trusted.ok()) {
    warning = trusted.error().message + "; this run plans as if it had the machine to itself";
    return claim;
  }
  claim.lock_.reset(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (claim.lock_.valid()) ::flock(claim.lock_.get(), LOCK_EX);  // no other run between reading and recording
  auto runs = live_runs(directory);
  for (auto& run : runs.value_or(std::vector<RunRecord>{})) {
    if (!is_ancestor(run)) claim.others_.push_back(std::move(run));
  }
  return claim;
}

MachineClaim MachineClaim::without_others(const std::filesystem::path& directory) {
  MachineClaim claim;
  claim.directory_ = directory;
  return claim;
}

MachineClaim MachineClaim::for_node(const cluster::NodeIdentity& node, const std::filesystem::path& directory,
                                    std::string& warning) {
  if (node.count == 1 && node.local_size == 1) return open(directory, warning);
  return without_others(directory);
}

std::optional<RunRegistration> MachineClaim::record(const RunRecord& record, std::string& warning) {
  auto registration = RunRegistration::create(directory_, record);
  lock_.reset();  // lets the next run read what this one holds
  if (!registration.ok()) {
    warning = registration.error().message + "; other runs will not see what this one holds";
    return std::nullopt;
  }
  return std::move(*registration);
}

RunRecord record_of(const affinity::Plan& plan, const std::vector<std::string>& command) {
  RunRecord record;
  record.pid = ::getpid();
  if (const auto stat = read_process_stat(FsRoot(), record.pid); stat.ok()) record.start = stat->start_ticks;
  record.uid = ::geteuid();
  for (const auto& worker : plan.workers) {
    record.cpus = record.cpus.unite(worker.cpus);
    if (worker.numa_node >= 0) record.nodes = record.nodes.unite(CpuSet({worker.numa_node}));
  }
  if (record.cpus.empty()) record.cpus = plan.usable_cpu_list;
  record.workers = std::max(1, plan.num_processes);
  record.threads = std::max(1, plan.threads_per_process);
  record.started =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  record.command =
      command.empty() ? std::string("mptrain run (built-in training)") : fmt::format("{}", fmt::join(command, " "));
  return record;
}

}  // namespace mptrain::launch
