// The doctor's decisions (see doctor.hpp).
#include "monitor/doctor.hpp"

#include <fmt/format.h>
#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <string_view>

#include "monitor/procfs.hpp"
#include "util/failure.hpp"
#include "util/output_file.hpp"
#include "util/text.hpp"

namespace mptrain::monitor {

namespace {

bool all_digits(std::string_view word) {
  return !word.empty() && std::all_of(word.begin(), word.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The error for a command that is a number and names no program.
Error pid_given_as_command(const std::vector<std::string>& command) {
  std::vector<std::string_view> pids;
  for (const auto& word : command) {
    if (all_digits(word)) pids.push_back(word);
  }
  return Error{fmt::format(
      "'{}' looks like a pid, and no program of that name is in PATH: to watch {}, give --pid {} (a command to "
      "run goes after --: mptrain doctor -- python train.py)",
      command.front(), pids.size() == 1 ? "that process" : "those processes", fmt::join(pids, " --pid "))};
}

// Ok when process `pid` can be watched (check_watchable).
Status check_one_watchable(const FsRoot& root, pid_t pid) {
  if (::kill(pid, 0) != 0 && errno == ESRCH) return Error{fmt::format("--pid {}: no such process", pid)};
  const auto stat = read_process_stat(root, pid);
  if (stat.ok() && stat->state == 'Z') {
    return Error{
        fmt::format("--pid {}: process {} ({}) is a zombie: it has exited and waits for its parent (pid {}) to "
                    "reap it, so nothing is left to watch",
                    pid, pid, stat->comm, stat->ppid)};
  }
  if (stat.ok() && stat->kernel_thread) {
    return Error{fmt::format(
        "--pid {}: {} is a kernel thread, not a process of a job: the doctor judges user processes; give the "
        "pid of a program (see ps -e)",
        pid, stat->comm)};
  }
  return ok_status();
}

}  // namespace

int failed_watch_code(const WatchEnd& end, int otherwise) {
  if (end.command_code != 0) return end.command_code;
  if (end.signal != 0) return exit_code::of_signal(end.signal);
  return otherwise;
}

int doctor_exit_code(const WatchEnd& end, bool gate_reached) {
  const int otherwise = end.output_lost ? exit_code::runtime_failure
                        : gate_reached  ? exit_code::doctor_found
                                        : exit_code::success;
  return failed_watch_code(end, otherwise);
}

Status check_targets(const std::vector<int>& pids, const std::vector<std::string>& command,
                     const std::function<bool(const std::string&)>& names_program) {
  if (!command.empty() && !pids.empty()) return Error{"--pid and '-- CMD' cannot be combined; give one of them"};
  if (command.empty() || !all_digits(command.front()) || names_program(command.front())) return ok_status();
  return pid_given_as_command(command);
}

Status check_request(const DoctorRequest& request, const std::function<bool(const std::string&)>& names_program) {
  if (auto targets = check_targets(request.pids, request.command, names_program); !targets.ok()) return targets;
  if (auto tree = check_no_children(request.pids, request.pid_descendants); !tree.ok()) return tree;
  if (auto thresholds = check_thresholds(request.thresholds); !thresholds.ok()) return thresholds;
  return check_every(request.every_s, request.interval_s);
}

MonitorOptions monitor_options(const DoctorRequest& request, const Capacity& capacity, const FsRoot& root) {
  MonitorOptions m;
  m.scope = !request.command.empty()  ? Scope::trees
            : request.pids.empty()    ? Scope::machine
            : request.pid_descendants ? Scope::trees
                                      : Scope::processes;
  for (int pid : request.pids) m.pids.push_back(static_cast<pid_t>(pid));
  m.interval = std::chrono::milliseconds(std::lround(request.interval_s * 1000));
  m.root = root;
  m.capacity = capacity;
  m.thresholds = request.thresholds;
  return m;
}

std::string processes_gone_note(std::size_t processes, double elapsed_s, double duration_s) {
  const bool one = processes == 1;
  return fmt::format(
      "mptrain doctor: {} exited after {:.1f} s of the {:g} s asked for; the report covers the time {} ran\n",
      one ? "the watched process" : "every watched process", elapsed_s, duration_s, one ? "it" : "they");
}

Status check_no_children(const std::vector<int>& pids, bool pid_descendants) {
  if (pid_descendants || !pids.empty()) return ok_status();
  return Error{
      "--no-children applies to --pid: a command after -- is always watched with its descendants, and the "
      "whole machine has no tree; give --pid P"};
}

Status check_every(double every_s, double interval_s) {
  if (every_s <= 0 || every_s + 1e-9 >= interval_s) return ok_status();
  return Error{
      fmt::format("--every {:g} is shorter than --interval {:g}: each line needs at least one interval; give "
                  "--every {:g} or more, or a shorter --interval",
                  every_s, interval_s, interval_s)};
}

Status check_proc_readable(const FsRoot& root) {
  const auto stat = root.read("/proc/stat");
  if (stat.ok()) return ok_status();
  if (!root.is_real()) return stat.error();
  return Error{stat.error().message + "; the doctor needs /proc", stat.error().code};
}

Status check_watchable(const FsRoot& root, const std::vector<pid_t>& pids) {
  for (pid_t pid : pids) {
    if (auto watchable = check_one_watchable(root, pid); !watchable.ok()) return watchable;
  }
  return ok_status();
}

WatchedPids fold_threads(const FsRoot& root, const std::vector<pid_t>& pids) {
  WatchedPids watched;
  for (pid_t pid : pids) {
    pid_t process = pid;
    if (const auto status = read_process_status(root, pid); status.ok() && status->tgid > 0) process = status->tgid;
    if (process != pid) watched.threads.emplace_back(pid, process);
    auto& processes = watched.processes;
    if (std::find(processes.begin(), processes.end(), process) == processes.end()) processes.push_back(process);
  }
  return watched;
}

Result<Capacity> judged_capacity(int count, const CpuSet& cpus, int online, int override_count) {
  if (override_count > online && online > 0) {
    return Error{fmt::format("--usable-cpus {}: this machine has only {} online; give at most {}", override_count,
                             counted(online, "CPU"), online)};
  }
  Capacity capacity{count, cpus, {}};
  if (override_count > 0) capacity.usable_cpus = override_count;
  return capacity;
}

int watch_for(LiveMonitor& monitor, double duration_s, const std::function<int(double)>& wait_for_stop) {
  const double end = monotonic_seconds() + duration_s;
  monitor.sample_now();
  while (!monitor.all_gone()) {
    const double now = monotonic_seconds();
    if (now >= end) break;
    const int signal = wait_for_stop(std::min(monitor.seconds_until_due(), end - now));
    monitor.sample_now();
    if (signal != 0) return signal;
  }
  return 0;
}

std::optional<std::string> slow_sampling_warning(const Diagnosis& diagnosis, double interval_s) {
  if (diagnosis.intervals < 2) return std::nullopt;
  const double mean = diagnosis.duration_s / diagnosis.intervals;
  if (mean <= 1.5 * interval_s) return std::nullopt;
  return fmt::format(
      "sampling could not keep up: intervals of {:.0f} ms on average for the {:.0f} ms asked "
      "(--interval); give a longer --interval",
      1000 * mean, 1000 * interval_s);
}

IntervalRecorder::IntervalRecorder(double every_s, double interval_s, bool trace,
                                   std::function<void(const std::string&)> on_period)
    : on_period_(std::move(on_period)) {
  if (every_s > 0) periods_.emplace(every_s, interval_s);
  if (trace) trace_.emplace();
}

void IntervalRecorder::add(const IntervalEnd& interval) {
  if (trace_) trace_->add(interval);
  if (!periods_ || monitor_ == nullptr) return;
  if (auto period = periods_->add(interval)) {
    on_period_(period_line(monitor_->judge(period->evidence), period->since_start_s, period->every_s));
  }
}

std::optional<std::string> trace_truncation_warning(const TraceWriter& trace, const std::filesystem::path& path) {
  if (!trace.truncated()) return std::nullopt;
  return fmt::format(
      "the trace in {} was cut short: it reached {} events; sample less often (--interval) "
      "or for less time to keep all of it",
      path.string(), default_max_trace_events);
}

Status write_trace(const TraceWriter& trace, const std::filesystem::path& path) {
  const auto written = write_file_atomic(path, trace.text(), trace_file);
  if (written.ok()) return written;
  return Error{fmt::format("cannot write the trace: {}; the report above is complete; {}", written.error().message,
                           write_failure_advice(written.error().code, "give another --trace path")),
               written.error().code};
}

}  // namespace mptrain::monitor
