// The decisions of `mptrain doctor` beside the detector's: the targets and
// options it refuses, which processes a --pid list watches, the CPUs it
// judges against, the watch loop, what --every and --trace follow, and the
// exit code. cli/doctor.cpp wires them to its options and prints what they
// return; every Error here is said by the doctor as it is.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "monitor/diagnosis.hpp"
#include "monitor/live.hpp"
#include "monitor/period.hpp"
#include "monitor/trace.hpp"
#include "util/cpu_set.hpp"
#include "util/fs.hpp"
#include "util/result.hpp"

namespace mptrain::monitor {

// The longest --duration (and --every) accepted: one day.
inline constexpr double max_duration_s = 86400;
// The shortest and longest --interval accepted. (Below 50 ms a sample of a
// busy machine takes about as long as the interval: the doctor would cost a
// CPU and still not sample when asked.)
inline constexpr std::chrono::milliseconds min_interval{50};
inline constexpr std::chrono::seconds max_interval{60};

// What `mptrain doctor` was asked to watch, and how: its options but the
// gate (--fail-on) and the report's form (--json, --quiet, --threads).
struct DoctorRequest {
  double duration_s = 3;        // --duration (the machine, --pid)
  std::vector<int> pids;        // --pid
  bool pid_descendants = true;  // --pid watches its descendants too (false: --no-children)
  double interval_s = std::chrono::duration<double>(default_interval).count();
  double every_s = 0;                // 0: no --every lines
  std::string trace;                 // "": no --trace file
  int usable_cpus = 0;               // --usable-cpus (0: detect)
  Thresholds thresholds;             // one option per row
  std::vector<std::string> command;  // after --
};

// Ok when `request`'s options make sense together: check_targets (with
// `names_program`), check_no_children, check_thresholds and check_every, in
// this order; the first Error (a usage error) otherwise.
Status check_request(const DoctorRequest& request, const std::function<bool(const std::string&)>& names_program);

// The LiveMonitor's options for `request`: the scope its targets make (a
// command's tree; the --pid processes' trees, or the processes alone with
// --no-children; else the machine), its pids, interval and thresholds,
// `capacity` and `root`.
MonitorOptions monitor_options(const DoctorRequest& request, const Capacity& capacity, const FsRoot& root);

// The note when every process of a --pid watch (`processes` of them)
// exited `elapsed_s` into the `duration_s` asked for (with its newline).
std::string processes_gone_note(std::size_t processes, double elapsed_s, double duration_s);

// How a watch ended: the shell code of `-- CMD` (0 without one, or when it
// succeeded), the signal that stopped the watch (0: none), and whether
// output of CMD was lost.
struct WatchEnd {
  int command_code = 0;
  int signal = 0;
  bool output_lost = false;
};

// The exit code a watch that ended badly owes: CMD's failing code, else
// 128 + the stop signal, else `otherwise`.
int failed_watch_code(const WatchEnd& end, int otherwise);

// The doctor's exit code: CMD's failing code, else 128 + the stop signal,
// else 1 when output was lost, else 3 when `gate_reached` (--fail-on), else 0.
// A crash is never reported as a performance problem.
int doctor_exit_code(const WatchEnd& end, bool gate_reached);

// Ok unless both `pids` and a `command` are given, or the command is a
// number (`mptrain doctor 1234`) for which `names_program` finds no program
// in PATH: the user meant the process. An Error (a usage error) otherwise.
Status check_targets(const std::vector<int>& pids, const std::vector<std::string>& command,
                     const std::function<bool(const std::string&)>& names_program);

// Ok unless --no-children (`pid_descendants` false) is given without
// `pids`: a command is always watched with its descendants, and the machine
// has no tree. An Error (a usage error) otherwise.
Status check_no_children(const std::vector<int>& pids, bool pid_descendants);

// Ok when `every_s` (0: no --every) is at least `interval_s`: each line
// needs at least one interval; an Error (a usage error) otherwise.
Status check_every(double every_s, double interval_s);

// Ok when /proc/stat under `root` can be read; an Error (a runtime failure)
// naming the path otherwise, which under the real root adds "; the doctor
// needs /proc": the doctor would otherwise sample nothing and call it healthy.
Status check_proc_readable(const FsRoot& root);

// Ok when every process of `pids` can be watched; an Error (a usage error)
// for the first that is gone, a zombie (naming the parent that should reap
// it) or a kernel thread: there would be no job to watch.
Status check_watchable(const FsRoot& root, const std::vector<pid_t>& pids);

// What a --pid list watches: each process once, in order, and the --pids
// that were a thread's id (/proc/TID exists though unlisted), each with the
// process watched for it.
struct WatchedPids {
  std::vector<pid_t> processes;
  std::vector<std::pair<pid_t, pid_t>> threads;  // (the thread given, its process)
};
// `pids` with each thread replaced by its process and each process once.
WatchedPids fold_threads(const FsRoot& root, const std::vector<pid_t>& pids);

// The CPUs a diagnosis judges against: `count` usable CPUs `cpus`, or
// `override_count` of them when given (0: none); an Error (a usage error)
// when `override_count` exceeds the `online` CPUs (0: unknown).
Result<Capacity> judged_capacity(int count, const CpuSet& cpus, int online, int override_count);

// Samples `monitor` every interval for `duration_s` seconds, until every
// watched process is gone, or until `wait_for_stop(seconds)` returns a stop
// signal (it waits at most `seconds` for one; 0: none came), which ends the
// watch with one last sample; returns that signal (0: none).
int watch_for(LiveMonitor& monitor, double duration_s, const std::function<int(double)>& wait_for_stop);

// The warning when the intervals of `diagnosis` came out much longer (1.5 ×)
// than the `interval_s` asked for: sampling could not keep up (too many
// threads for the interval, or a loaded machine); nullopt otherwise.
std::optional<std::string> slow_sampling_warning(const Diagnosis& diagnosis, double interval_s);

// What --every and --trace follow while sampling, fed by MonitorOptions::on_interval.
class IntervalRecorder {
 public:
  // Groups intervals into periods of `every_s` seconds (0: none), each
  // judged by the monitor set with judge_with and given to `on_period` as its
  // --every line (no newline); keeps a trace when `trace` is set.
  IntervalRecorder(double every_s, double interval_s, bool trace, std::function<void(const std::string&)> on_period);

  // The monitor whose capacity and thresholds judge each period.
  void judge_with(const LiveMonitor& monitor) { monitor_ = &monitor; }
  // Adds `interval` to the periods and the trace.
  void add(const IntervalEnd& interval);
  // The trace kept; nullptr without one.
  const TraceWriter* trace() const { return trace_ ? &*trace_ : nullptr; }

 private:
  const LiveMonitor* monitor_ = nullptr;
  std::optional<Periods> periods_;
  std::optional<TraceWriter> trace_;
  std::function<void(const std::string&)> on_period_;
};

// The warning when `trace` was cut short (written to `path`): it reached
// its bound on events; nullopt when it holds everything.
std::optional<std::string> trace_truncation_warning(const TraceWriter& trace, const std::filesystem::path& path);

// Writes `trace` to `path` (write_file_atomic, as a trace_file); an Error
// "cannot write the trace: …; the report above is complete; ADVICE" otherwise.
Status write_trace(const TraceWriter& trace, const std::filesystem::path& path);

}  // namespace mptrain::monitor
