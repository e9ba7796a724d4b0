// `mptrain doctor`: oversubscription diagnosis of the whole machine, of given
// processes, or of a command run under it (SPEC "mptrain doctor").
//
// Exit code: 3 when the verdict reaches --fail-on (`--fail-on idle`: an
// idle_capacity finding, or an oversubscribed verdict); with `-- CMD`, a failing
// CMD's own code (128+signal) takes precedence over 3, so a crash is never
// reported as a performance problem; otherwise 0. SIGINT, SIGTERM, SIGHUP
// and the other stop signals (procmgr/signals.hpp) stop the sampling (with
// `-- CMD`, they are forwarded to CMD, SIGUSR1 and SIGUSR2 too, which do not
// stop it): the report of what was seen is still printed, then the exit code
// is CMD's failing code or 128+signal. Nothing CMD started outlives it
// (procmgr's run_group ends what it left behind).
#include <fmt/chrono.h>
#include <fmt/core.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <optional>
#include <thread>

#include "affinity/bind.hpp"
#include "affinity/usable_cpus.hpp"
#include "cli/commands.hpp"
#include "cli/fail_on.hpp"
#include "cli/options.hpp"
#include "monitor/live.hpp"
#include "monitor/period.hpp"
#include "monitor/procfs.hpp"
#include "monitor/report.hpp"
#include "monitor/trace.hpp"
#include "procmgr/group.hpp"
#include "procmgr/signals.hpp"
#include "procmgr/spawn.hpp"
#include "util/failure.hpp"
#include "util/file_lock.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace mptrain::cli {

namespace {

// Everything `mptrain doctor` was given.
struct DoctorOptions {
  double duration_s = 3;
  std::vector<int> pids;
  double interval_s = std::chrono::duration<double>(monitor::default_interval).count();
  bool json = false;
  bool quiet = false;    // --quiet: the verdict line and each fix once
  bool threads = false;  // --threads
  double every_s = 0;    // 0: no --every lines
  std::string trace;     // "": no --trace file
  FailOnOptions gate;    // --fail-on (default oversubscribed), --ignore
  int usable_cpus = 0;   // 0: detect
  monitor::Thresholds thresholds;
  std::vector<std::string> command;
};

// The longest --duration accepted: one day.
constexpr double max_duration_s = 86400;
// The shortest and longest --interval accepted.
// (Below 50 ms a sample of a busy machine takes about as long as the interval:
// the doctor would cost a CPU and still not sample when asked.)
constexpr std::chrono::milliseconds min_interval{50};
constexpr std::chrono::seconds max_interval{60};

// How the watched job ended: CMD's shell code (0 without `-- CMD`) and the
// signal that stopped the watch (0: none).
struct WatchOutcome {
  int command_code = 0;
  int signal = 0;
  std::vector<procmgr::OutputLoss> output_losses;  // the command's output mptrain could not write (--json)
};

// Refuses (runtime failure) a root under which /proc cannot be read: the
// doctor would otherwise sample nothing and call it healthy.
void check_proc_readable(const FsRoot& root) {
  const auto stat = root.read("/proc/stat");
  if (stat.ok()) return;
  const std::string message = under_fsroot(stat.error().message);
  if (message == stat.error().message) runtime_failure("{}; the doctor needs /proc", message);
  runtime_failure("{}", message);
}

// The usable CPUs N (online ∩ affinity ∩ cgroup cpuset, capped by the quota),
// or `override_count` of them when given; a usage Failure when
// `override_count` exceeds the CPUs online.
monitor::Capacity usable_capacity(const FsRoot& root, int override_count) {
  auto usable = affinity::read_usable_cpus(root);
  monitor::Capacity capacity;
  int online = static_cast<int>(std::thread::hardware_concurrency());
  if (usable.ok()) {
    capacity = {usable->count, usable->cpus, {}};
    online = usable->online.size();
  } else {
    print_warning(fmt::format("{}; using this process's affinity mask for N", usable.error().message));
    const CpuSet mask = affinity::current_affinity(0).value_or(CpuSet({0}));
    capacity = {mask.size(), mask, {}};
  }
  if (override_count > online && online > 0) {
    usage_failure("--usable-cpus {}: this machine has only {} online; give at most {}", override_count,
                  counted(online, "CPU"), online);
  }
  if (override_count > 0) capacity.usable_cpus = override_count;
  return capacity;
}

// One option per row of the detector's threshold table.
// The model's thresholds, one option each: counted, not listed, by --help
// (there are many, and few users move them), listed by --help-thresholds.
void add_thresholds(CLI::App& command, monitor::Thresholds& t) {
  for (const auto& row : monitor::threshold_table()) {
    command.add_option("--" + std::string(row.option), t.*row.member, std::string(row.help))
        ->transform(at_least(0))
        ->default_str(fmt::format("{:g}", row.value))
        ->group(std::string(folded_help_group));
  }
}

// --help-thresholds: each threshold option, its default and what it sets.
std::string thresholds_help() {
  std::string text =
      "The doctor's thresholds (mptrain doctor --OPTION VALUE; mptrain-doctor(1) says why each sits "
      "where it does):\n";
  for (const auto& row : monitor::threshold_table()) {
    text += fmt::format("  --{:<28} {:<8g} {}\n", row.option, row.value, row.help);
  }
  return text;
}

// --interval: seconds ("0.5") or a duration with a unit ("250ms", "1s"), stored in `seconds`.
void add_interval_option(CLI::App& command, double& seconds) {
  command.add_option("--interval", seconds, "Sampling interval in seconds, or with a unit: 0.5, 250ms, 1s")
      ->type_name("DURATION")
      ->transform(duration(min_interval, max_interval))
      ->default_str(fmt::format("{}", monitor::default_interval));
}

monitor::MonitorOptions monitor_options(const DoctorOptions& o) {
  monitor::MonitorOptions m;
  m.scope = !o.command.empty() ? monitor::Scope::trees
            : o.pids.empty()   ? monitor::Scope::machine
                               : monitor::Scope::processes;
  for (int pid : o.pids) m.pids.push_back(static_cast<pid_t>(pid));
  m.interval = std::chrono::milliseconds(std::lround(o.interval_s * 1000));
  m.root = FsRoot::from_env();
  m.capacity = usable_capacity(m.root, o.usable_cpus);
  m.thresholds = o.thresholds;
  return m;
}

// Waits up to `seconds` for SIGINT, SIGTERM or SIGHUP on `relay`; returns it, or 0 when none came.
int wait_for_stop_signal(procmgr::SignalRelay& relay, double seconds) {
  const double end = monitor::monotonic_seconds() + seconds;
  for (double left = seconds; left > 0; left = end - monitor::monotonic_seconds()) {
    pollfd ready{relay.fd(), POLLIN, 0};
    if (::poll(&ready, 1, static_cast<int>(std::ceil(left * 1000))) <= 0) continue;  // timeout or EINTR
    for (int signal : relay.take()) {
      if (signal != SIGCHLD) return signal;
    }
  }
  return 0;
}

// Samples `monitor` every interval for `duration_s` seconds, until every
// watched process is gone, or until a stop signal arrives on `relay`, which
// ends the watch with one last sample; returns that signal (0: none).
int watch_for(monitor::LiveMonitor& monitor, double duration_s, procmgr::SignalRelay& relay) {
  const double end = monitor::monotonic_seconds() + duration_s;
  monitor.sample_now();
  while (!monitor.all_gone()) {
    const double now = monitor::monotonic_seconds();
    if (now >= end) break;
    const int signal = wait_for_stop_signal(relay, std::min(monitor.seconds_until_due(), end - now));
    monitor.sample_now();
    if (signal != 0) return signal;
  }
  return 0;
}

// Watches the machine or the --pid processes for --duration; a signal stops it early.
WatchOutcome watch_processes(monitor::LiveMonitor& monitor, const DoctorOptions& o) {
  const auto relay = value_or_fail(procmgr::SignalRelay::install());
  if (!o.json) print_note(fmt::format("mptrain doctor: sampling for {:g} s…\n", o.duration_s));
  const double start = monitor::monotonic_seconds();
  const int signal = watch_for(monitor, o.duration_s, *relay);
  if (!o.pids.empty() && monitor.all_gone()) {
    print_note(
        fmt::format("mptrain doctor: {} exited after {:.1f} s of the {:g} s asked for; the report covers the "
                    "time {} ran\n",
                    o.pids.size() == 1 ? "the watched process" : "every watched process",
                    monitor::monotonic_seconds() - start, o.duration_s, o.pids.size() == 1 ? "it" : "they"));
  }
  return {0, signal, {}};
}

// Runs the command under procmgr (which forwards signals to it), feeding the
// monitor from its ticks, until it exits.
WatchOutcome watch_command(monitor::LiveMonitor& monitor, const DoctorOptions& o) {
  procmgr::GroupOptions group;
  group.output = o.json ? procmgr::Output::tagged : procmgr::Output::inherit;
  group.tagged_stdout = procmgr::TaggedStdout::to_stderr;
  group.on_tick = [&monitor](const std::vector<pid_t>& pids) { monitor.observe(pids); };
  procmgr::WorkerSpec spec;
  auto result = procmgr::run_group({spec}, procmgr::Program{o.command}, group);
  if (!result.ok()) throw Failure(exit_code::runtime_failure, result.error().message);
  return {result->exit_code(), result->forwarded_signal, result->output_losses};
}

// What --every and --trace follow while sampling, fed by MonitorOptions::on_interval.
struct IntervalObservers {
  const monitor::LiveMonitor* monitor = nullptr;  // judges each --every period
  std::optional<monitor::Periods> periods;
  std::optional<monitor::TraceWriter> trace;

  explicit IntervalObservers(const DoctorOptions& o) {
    if (o.every_s > 0) periods.emplace(o.every_s, o.interval_s);
    if (!o.trace.empty()) trace.emplace();
  }

  void on_interval(const monitor::IntervalEnd& interval) {
    if (trace) trace->add(interval);
    if (!periods || monitor == nullptr) return;
    if (auto period = periods->add(interval)) {
      print_note(monitor::period_line(monitor->judge(period->evidence), period->since_start_s) + "\n");
    }
  }
};

// --every: a duration like --interval's, at least the interval (checked by check_output_options).
void add_every_option(CLI::App& command, double& seconds) {
  command
      .add_option("--every", seconds,
                  "Print a one-line verdict on stderr per period while sampling: 1, 500ms, 2s; at least --interval")
      ->type_name("DURATION")
      ->transform(duration(min_interval, std::chrono::seconds(static_cast<long>(max_duration_s))))
      ->default_str("off");
}

// Refuses an --every shorter than --interval (usage error) and a --trace
// path whose name is too long or that must not be replaced — not a regular
// file, or not a trace — (usage error), or that cannot be written (runtime
// failure), before any sampling, so a long watch never ends without its trace.
void check_output_options(const DoctorOptions& o) {
  if (o.every_s > 0 && o.every_s + 1e-9 < o.interval_s) {
    usage_failure(
        "--every {:g} is shorter than --interval {:g}: each line needs at least one interval; give "
        "--every {:g} or more, or a shorter --interval",
        o.every_s, o.interval_s, o.interval_s);
  }
  if (o.trace.empty()) return;
  if (auto fits = check_name_fits(o.trace); !fits.ok()) usage_failure("--trace: {}", fits.error().message);
  value_or_fail(check_directory_usable(o.trace, "--trace"));
  value_or_fail(check_replaceable(o.trace, monitor::trace_file), exit_code::usage_error);
  value_or_fail(check_can_create(o.trace, "--trace"));
}

// The lock on --trace held while sampling, so that a second doctor (or a
// run) given the same path is refused before it samples (runtime failure);
// none without --trace.
std::optional<FileLock> lock_trace(const DoctorOptions& o) {
  if (o.trace.empty()) return std::nullopt;
  return value_or_fail(FileLock::acquire(o.trace, "--trace"));
}

// Writes the --trace file after the report; a failure is a runtime failure
// (exit 1), unless the command's failing code or a signal's 128+N (`outcome`) says more.
void write_trace(const IntervalObservers& observers, const DoctorOptions& o, const WatchOutcome& outcome) {
  if (!observers.trace) return;
  if (observers.trace->truncated()) {
    print_warning(
        fmt::format("the trace in {} was cut short: it reached {} events; sample less often (--interval) "
                    "or for less time to keep all of it",
                    o.trace, monitor::default_max_trace_events));
  }
  const auto written = write_file_atomic(o.trace, observers.trace->text(), monitor::trace_file);
  if (written.ok()) return;
  const int code = outcome.command_code != 0 ? outcome.command_code
                   : outcome.signal != 0     ? 128 + outcome.signal
                                             : exit_code::runtime_failure;
  const int err = written.error().code;
  const char* advice = err == ENOSPC || err == EDQUOT ? "free some space there or give another --trace path"
                                                      : "give another --trace path";
  throw Failure(code, fmt::format("cannot write the trace: {}; the report above is complete; {}",
                                  written.error().message, advice));
}

// The exit code for `diagnosis` under the gate and how the watch ended, `outcome`.
// `idle` is at least as strict as the default: an idle_capacity finding or an
// oversubscribed verdict (a gate that asks for the CPUs to be used wants them used right).
int exit_code_for(const monitor::Diagnosis& diagnosis, const FailOnOptions& gate, const WatchOutcome& outcome) {
  if (outcome.command_code != 0) return outcome.command_code;
  if (outcome.signal != 0) return 128 + outcome.signal;
  if (!outcome.output_losses.empty()) return exit_code::runtime_failure;
  return fails(diagnosis, gate) ? exit_code::doctor_found : exit_code::success;
}

// Refuses a warning threshold above its maximum, naming both options.
void check_thresholds(const monitor::Thresholds& t) {
  struct Pair {
    const char* name;
    double warn, max;
  };
  for (const auto& [name, warn, max] : {Pair{"demand-ratio", t.warn_demand_ratio, t.max_demand_ratio},
                                        Pair{"throughput-loss", t.warn_throughput_loss, t.max_throughput_loss},
                                        Pair{"throttle-ratio", t.warn_throttle_ratio, t.max_throttle_ratio}}) {
    if (warn > max) {
      usage_failure("--warn-{0} {1:g} is above --max-{0} {2:g}; give a warning threshold at most the maximum", name,
                    warn, max);
    }
  }
}

bool all_digits(std::string_view word) {
  return !word.empty() && std::all_of(word.begin(), word.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Refuses a command that is a number no program in PATH is named after
// (`mptrain doctor 1234`): the user meant the process, so say --pid.
void check_not_a_pid(const std::vector<std::string>& command) {
  if (command.empty() || !all_digits(command.front()) || procmgr::resolve_in_path(command.front()).ok()) return;
  std::vector<std::string_view> pids;
  for (const auto& word : command) {
    if (all_digits(word)) pids.push_back(word);
  }
  usage_failure(
      "'{}' looks like a pid, and no program of that name is in PATH: to watch {}, give --pid {} (a command to "
      "run goes after --: mptrain doctor -- python train.py)",
      command.front(), pids.size() == 1 ? "that process" : "those processes", fmt::join(pids, " --pid "));
}

void check_options(const DoctorOptions& o) {
  if (!o.command.empty() && !o.pids.empty()) usage_failure("--pid and '-- CMD' cannot be combined; give one of them");
  check_not_a_pid(o.command);
  check_thresholds(o.thresholds);
}

// A --pid that is a thread's id (/proc/TID exists though unlisted) stands for its process, said once;
// a process given twice is watched once.
void fold_threads(monitor::MonitorOptions& options) {
  std::vector<pid_t> processes;
  for (pid_t pid : options.pids) {
    pid_t process = pid;
    if (const auto status = monitor::read_process_status(options.root, pid); status.ok() && status->tgid > 0) {
      process = status->tgid;
    }
    if (process != pid) {
      print_note(fmt::format("mptrain: --pid {} is a thread of process {}: watching the process\n", pid, process));
    }
    if (std::find(processes.begin(), processes.end(), process) == processes.end()) processes.push_back(process);
  }
  options.pids = std::move(processes);
}

// Refuses a --pid that is gone, a zombie or a kernel thread: there would be no job to watch.
void check_pids(const monitor::MonitorOptions& options) {
  for (pid_t pid : options.pids) {
    if (::kill(pid, 0) != 0 && errno == ESRCH) usage_failure("--pid {}: no such process", pid);
    const auto stat = monitor::read_process_stat(options.root, pid);
    if (stat.ok() && stat->state == 'Z') {
      usage_failure(
          "--pid {}: process {} ({}) is a zombie: it has exited and waits for its parent (pid {}) to "
          "reap it, so nothing is left to watch",
          pid, pid, stat->comm, stat->ppid);
    }
    if (stat.ok() && stat->kernel_thread) {
      usage_failure(
          "--pid {}: {} is a kernel thread, not a process of a job: the doctor judges user processes; give the "
          "pid of a program (see ps -e)",
          pid, stat->comm);
    }
  }
}

// Says when the intervals came out much longer than --interval: sampling
// could not keep up (too many threads for the interval, or a loaded machine).
void warn_slow_sampling(const monitor::Diagnosis& diagnosis, const DoctorOptions& o) {
  if (diagnosis.intervals < 2) return;
  const double mean = diagnosis.duration_s / diagnosis.intervals;
  if (mean <= 1.5 * o.interval_s) return;
  print_warning(
      fmt::format("sampling could not keep up: intervals of {:.0f} ms on average for the {:.0f} ms asked "
                  "(--interval); give a longer --interval",
                  1000 * mean, 1000 * o.interval_s));
}

// Prints `diagnosis` as text or JSON (with --threads, its threads too); a
// watch stopped by a signal (`outcome`) is said so.
void print_diagnosis(const monitor::Diagnosis& diagnosis, const WatchOutcome& outcome, const DoctorOptions& o) {
  const std::string signal = outcome.signal != 0 ? procmgr::signal_name(outcome.signal) : std::string();
  if (o.json) {
    auto document = monitor::to_json(diagnosis);
    document["interrupted_by"] = signal.empty() ? nlohmann::json(nullptr) : nlohmann::json(signal);
    document["command_exit_code"] = o.command.empty() ? nlohmann::json(nullptr) : nlohmann::json(outcome.command_code);
    if (o.threads) document["threads"] = monitor::threads_json(diagnosis);
    print_json(document);
    return;
  }
  if (!signal.empty()) print_note(fmt::format("mptrain doctor: stopped by {}; reporting what was sampled\n", signal));
  print_report(o.quiet ? monitor::to_quiet_text(diagnosis) : monitor::to_text(diagnosis));
  if (o.threads && !o.quiet) print_report(monitor::threads_table(diagnosis));
}

// Says, after the report, when the watched command failed: the doctor
// exits with its code, which the verdict alone would not explain.
void say_command_failed(const WatchOutcome& outcome, const DoctorOptions& o) {
  if (o.command.empty() || outcome.command_code == 0 || outcome.signal != 0) return;
  const int code = outcome.command_code;
  const std::string how = code > 128 && code < 128 + 65
                              ? fmt::format("was killed by {} (exit {})", procmgr::signal_name(code - 128), code)
                              : fmt::format("exited with code {}", code);
  print_note(
      fmt::format("mptrain doctor: the watched command {} {}; the doctor exits with its code (the verdict "
                  "above covers the time it ran)\n",
                  printable(o.command.front()), how));
}

int run_doctor(const DoctorOptions& o) {
  check_options(o);
  check_output_options(o);
  const auto trace_lock = lock_trace(o);
  check_proc_readable(FsRoot::from_env());
  auto options = monitor_options(o);
  check_pids(options);
  fold_threads(options);
  IntervalObservers observers(o);
  options.on_interval = [&observers](const monitor::IntervalEnd& interval) { observers.on_interval(interval); };
  monitor::LiveMonitor monitor(options);
  observers.monitor = &monitor;
  const auto outcome = o.command.empty() ? watch_processes(monitor, o) : watch_command(monitor, o);
  const auto diagnosis = monitor.diagnosis();
  warn_slow_sampling(diagnosis, o);
  print_diagnosis(diagnosis, outcome, o);
  say_command_failed(outcome, o);
  for (const auto& loss : outcome.output_losses) {
    print_error(
        fmt::format("{}; the command ran on, but that output is lost: give it a destination that can take "
                    "it and run again",
                    loss.describe()));
  }
  write_trace(observers, o, outcome);
  return exit_code_for(diagnosis, o.gate, outcome);
}

}  // namespace

void add_doctor_command(CLI::App& app, Runner& runner) {
  auto o = std::make_shared<DoctorOptions>();
  auto* command = app.add_subcommand(
      "doctor", "Diagnose CPU oversubscription: the whole machine, --pid P..., or `-- CMD ARGS...` run until it exits");
  command->add_option("--duration", o->duration_s, "Seconds to sample the machine or --pid processes")
      ->transform(bounded(fmt::format("above 0 and at most {}", max_duration_s),
                          [](double seconds) { return seconds > 0 && seconds <= max_duration_s; }));
  command->add_option("--pid", o->pids, "Watch this process and its threads (repeatable)")->transform(whole_number(1));
  add_interval_option(*command, o->interval_s);
  add_every_option(*command, o->every_s);
  command->add_flag("--json", o->json, "Print the diagnosis as one JSON document on stdout");
  command->add_flag("--quiet", o->quiet, "Print the verdict line and each fix only");
  command->add_flag("--threads", o->threads, "Add a table of the threads that ran (with --json: a threads key)");
  command->add_option("--trace", o->trace, "Write the samples to FILE as a Chrome trace (Perfetto, chrome://tracing)")
      ->type_name("FILE")
      ->check(non_empty());
  add_fail_on_options(*command, o->gate);
  command->add_option("--usable-cpus", o->usable_cpus, "Judge against N CPUs")
      ->transform(whole_number(1))
      ->default_str("this process's usable CPUs");
  add_thresholds(*command, o->thresholds);
  auto help_thresholds = std::make_shared<bool>(false);
  command->add_flag("--help-thresholds", *help_thresholds, "Print the threshold options of the model and exit");
  add_command_words(*command, o->command, "Command and arguments to run and watch, after --");
  command->callback([&runner, o, help_thresholds] {
    if (*help_thresholds) {
      runner = [] {
        print_report(thresholds_help());
        return exit_code::success;
      };
      return;
    }
    runner = [o] { return run_doctor(*o); };
  });
}

}  // namespace mptrain::cli
