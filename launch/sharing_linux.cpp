#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <thread>
#include <utility>

#include "launch/sharing.hpp"
#include "util/number_check.hpp"
#include "util/task_stat.hpp"
#include "util/text.hpp"

namespace mptrain::launch {

namespace {

using WallClock = std::chrono::system_clock;  // arrivals compare across processes: one clock for all

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(WallClock::now().time_since_epoch()).count();
}

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

// The latest arrival among the runs still planning that arrived at most `window` after `since`, chained.
std::int64_t latest_arrival(const std::vector<RunRecord>& others, std::int64_t since, std::chrono::nanoseconds window) {
  std::vector<std::int64_t> arrivals;
  for (const auto& run : others) {
    if (run.state == RunState::planning && run.arrived >= since) arrivals.push_back(run.arrived);
  }
  std::sort(arrivals.begin(), arrivals.end());
  std::int64_t latest = since;
  for (auto arrived : arrivals) {
    if (arrived - latest > window.count()) break;
    latest = arrived;
  }
  return latest;
}

constexpr auto poll_period = std::chrono::milliseconds(250);
constexpr auto progress_period = std::chrono::seconds(30);
// However long runs keep arriving together, each plans within this much beyond its own window.
constexpr auto most_settling = std::chrono::seconds(2);
// The longest a run waits for the records' lock before it plans without it.
constexpr auto most_lock_wait = std::chrono::seconds(10);

}  // namespace

Result<std::chrono::nanoseconds> start_window() {
  const char* given = std::getenv("MPTRAIN_START_WINDOW");
  if (given == nullptr || *given == '\0') return std::chrono::nanoseconds(std::chrono::milliseconds(250));
  auto seconds = checked_seconds(given, 0, 10, "from 0 to 10 seconds");
  if (!seconds.ok()) return Error{"MPTRAIN_START_WINDOW: " + seconds.error().message};
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(*seconds));
}

void MachineClaim::lock() {
  // Every user may lock the directory (as /dev/shm): one who holds it for good delays runs, never stops them.
  const auto give_up = std::chrono::steady_clock::now() + most_lock_wait;
  while (directory_fd_.valid() && !locked_) {
    locked_ = ::flock(directory_fd_.get(), LOCK_EX | LOCK_NB) == 0;
    if (locked_ || errno != EWOULDBLOCK || std::chrono::steady_clock::now() >= give_up) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

void MachineClaim::unlock() {
  if (locked_) ::flock(directory_fd_.get(), LOCK_UN);
  locked_ = false;
}

void MachineClaim::read_others() {
  others_.clear();
  for (auto& run : live_runs(directory_).value_or(std::vector<RunRecord>{})) {
    const bool self = run.pid == ::getpid() && run.arrived == self_.arrived;
    if (!self && !is_ancestor(run)) others_.push_back(std::move(run));
  }
}

MachineClaim MachineClaim::open(const std::filesystem::path& directory, std::string& warning) {
  MachineClaim claim;
  claim.directory_ = directory;
  // Made when missing (so that the first runs too have a directory to lock), and judged, before the lock.
  if (auto trusted = prepare_runs_directory(directory); !trusted.ok()) {
    warning = trusted.error().message + "; this run plans as if it had the machine to itself";
    return claim;
  }
  claim.directory_fd_.reset(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  claim.lock();  // no other run between reading and recording
  if (!claim.locked_) {
    warning = fmt::format("another process has held the lock on {} for {} s; this run plans without it",
                          directory.string(), most_lock_wait.count());
  }
  claim.read_others();
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

Result<Portion> MachineClaim::place(const affinity::Machine& machine, RunRecord self, const Sharing& sharing,
                                    std::chrono::nanoseconds window, bool records,
                                    const std::function<void(const std::string&)>& progress,
                                    const std::function<bool()>& stopped) {
  const auto stop_now = [&] { return stopped && stopped(); };
  const auto stopped_error = [&] {
    registration_.reset();
    unlock();
    return Error{"stopped while waiting for free CPUs: nothing was started", 0};
  };
  self.arrived = now_ns();
  self_ = self;
  if (!active() || sharing.ignore_others) {
    Portion alone;
    alone.machine = machine;
    return alone;
  }
  if (records && window > std::chrono::nanoseconds::zero()) {
    // Seen as planning by the runs started with it, while it waits for theirs.
    if (auto made = RunRegistration::create(directory_, self); made.ok()) registration_ = std::move(*made);
    const auto give_up = WallClock::now() + window + most_settling;
    for (auto latest = self.arrived;;) {
      unlock();
      const WallClock::time_point latest_at{
          std::chrono::duration_cast<WallClock::duration>(std::chrono::nanoseconds(latest))};
      std::this_thread::sleep_until(std::min(give_up, latest_at + window));
      lock();
      if (stop_now()) return stopped_error();
      read_others();
      const auto now_latest = latest_arrival(others_, self.arrived, window);
      if (now_latest == latest || WallClock::now() >= give_up) break;
      latest = now_latest;
    }
  }
  auto placed = portion(machine, others_, self, window);
  if (!placed.busy || sharing.when_busy == WhenBusy::share) return placed;
  const auto busy_message = [&](std::string_view what) {
    return fmt::format("{}: this run needs {} and other mptrain runs hold the usable CPUs {} ({}); {}", what,
                       counted(self.need, "CPU"), machine.usable.cpus.to_short_string(), placed.holders,
                       "--when-busy share runs beside them, wait queues until they are free");
  };
  if (!records) return placed;  // a dry run shows the share it would wait for
  if (sharing.when_busy == WhenBusy::fail) {
    registration_.reset();
    unlock();
    return Error{busy_message("the machine is busy (--when-busy fail)"), busy_exit_code};
  }
  // Queued: recorded as waiting (the runs after it keep its need free), looked at again every poll_period.
  self.state = RunState::waiting;
  if (registration_)
    (void)registration_->update(self);
  else if (auto made = RunRegistration::create(directory_, self); made.ok())
    registration_ = std::move(*made);
  const auto started = WallClock::now();
  auto next_progress = started;
  for (;;) {
    const auto waited = std::chrono::duration<double>(WallClock::now() - started).count();
    if (sharing.wait_timeout_s > 0 && waited >= sharing.wait_timeout_s) {
      registration_.reset();
      unlock();
      return Error{busy_message(fmt::format("waited {:.1f} s for free CPUs (--wait-timeout {})", waited,
                                            sharing.wait_timeout_s)),
                   busy_exit_code};
    }
    if (WallClock::now() >= next_progress && progress) {
      progress(fmt::format(
          "waiting for {} ({:.0f} s so far{}): {}", counted(self.need, "free CPU"), waited,
          sharing.wait_timeout_s > 0 ? fmt::format(", --wait-timeout {}", sharing.wait_timeout_s) : std::string(),
          placed.holders.empty() ? std::string("runs queued before this one") : placed.holders));
      next_progress += progress_period;
    }
    unlock();
    std::this_thread::sleep_for(poll_period);
    lock();
    if (stop_now()) return stopped_error();
    read_others();
    placed = portion(machine, others_, self, std::chrono::nanoseconds::zero());
    if (!placed.busy) {
      placed.notes.push_back(fmt::format("waited {:.1f} s for free CPUs",
                                         std::chrono::duration<double>(WallClock::now() - started).count()));
      return placed;
    }
  }
}

std::optional<RunRegistration> MachineClaim::record(const affinity::Plan& plan, std::string& warning) {
  auto record = record_of(plan, self_);
  if (record.arrived == 0) record.arrived = now_ns();
  std::optional<RunRegistration> held;
  if (registration_) {
    if (auto written = registration_->update(record); written.ok())
      held = std::move(registration_);
    else
      warning = written.error().message + "; other runs will not see what this one holds";
  } else if (!directory_.empty()) {
    auto made = RunRegistration::create(directory_, record);
    if (made.ok())
      held = std::move(*made);
    else
      warning = made.error().message + "; other runs will not see what this one holds";
  }
  registration_.reset();
  unlock();  // lets the next run read what this one holds
  return held;
}

std::function<std::vector<monitor::OtherRun>()> other_runs_reader(std::filesystem::path directory) {
  return [directory = std::move(directory)] {
    std::vector<monitor::OtherRun> runs;
    for (const auto& run : live_runs(directory).value_or(std::vector<RunRecord>{})) {
      if (run.state != RunState::running || is_ancestor(run)) continue;
      runs.push_back({run.pid, run.cpus, describe_runs({run}, CpuSet()).at(0)});
    }
    return runs;
  };
}

RunRecord arriving_record(const std::vector<std::string>& command, int workers, int need, bool elastic) {
  RunRecord record;
  record.pid = ::getpid();
  if (const auto stat = read_process_stat(FsRoot(), record.pid); stat.ok()) record.start = stat->start_ticks;
  record.uid = ::geteuid();
  record.workers = std::max(1, workers);
  record.threads = 1;
  record.need = std::max(1, need);
  record.elastic = elastic;
  record.state = RunState::planning;
  record.started = std::chrono::duration_cast<std::chrono::seconds>(WallClock::now().time_since_epoch()).count();
  record.command =
      command.empty() ? std::string("mptrain run (built-in training)") : fmt::format("{}", fmt::join(command, " "));
  return record;
}

RunRecord record_of(const affinity::Plan& plan, RunRecord arrived) {
  arrived.cpus = CpuSet();
  arrived.nodes = CpuSet();
  for (const auto& worker : plan.workers) {
    arrived.cpus = arrived.cpus.unite(worker.cpus);
    if (worker.numa_node >= 0) arrived.nodes = arrived.nodes.unite(CpuSet({worker.numa_node}));
  }
  if (arrived.cpus.empty()) arrived.cpus = plan.usable_cpu_list;
  arrived.workers = std::max(1, plan.num_processes);
  arrived.threads = std::max(1, plan.threads_per_process);
  arrived.state = RunState::running;
  return arrived;
}

}  // namespace mptrain::launch
