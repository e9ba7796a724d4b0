// `mptrain doctor`: oversubscription diagnosis of the whole machine, of given
// processes, or of a command run under it (SPEC "mptrain doctor").
//
// Exit code: 3 when the verdict reaches --fail-on; with `-- CMD`, a failing
// CMD's own code (128+signal) takes precedence over 3, so a crash is never
// reported as a performance problem; otherwise 0.
#include <fmt/chrono.h>
#include <fmt/core.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <thread>

#include "affinity/bind.hpp"
#include "affinity/usable_cpus.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "monitor/live.hpp"
#include "monitor/report.hpp"
#include "procmgr/group.hpp"
#include "util/failure.hpp"

namespace mptrain::cli {

namespace {

// Everything `mptrain doctor` was given.
struct DoctorOptions {
  double duration_s = 3;
  std::vector<int> pids;
  double interval_ms = static_cast<double>(monitor::default_interval.count());
  bool json = false;
  std::string fail_on = "oversubscribed";
  int usable_cpus = 0;  // 0: detect
  monitor::Thresholds thresholds;
  std::vector<std::string> command;
};

// The longest --duration accepted: one day.
constexpr double max_duration_s = 86400;
// The shortest and longest --interval accepted.
constexpr std::chrono::milliseconds min_interval{10};
constexpr std::chrono::seconds max_interval{60};

// The usable CPUs N (online ∩ affinity ∩ cgroup cpuset, capped by the quota),
// or `override_count` of them when given.
monitor::Capacity usable_capacity(int override_count) {
  auto usable = affinity::read_usable_cpus(FsRoot::from_env());
  monitor::Capacity capacity;
  if (usable.ok()) {
    capacity = {usable->count, usable->cpus};
  } else {
    print_warning(fmt::format("{}; using this process's affinity mask for N", usable.error().message));
    const CpuSet mask = affinity::current_affinity(0).value_or(CpuSet({0}));
    capacity = {mask.size(), mask};
  }
  if (override_count > 0) capacity.usable_cpus = override_count;
  return capacity;
}

void add_threshold(CLI::App& command, const std::string& name, double& value, const std::string& what) {
  command.add_option("--" + name, value, what)->check(at_least(0))->group("Thresholds");
}

void add_thresholds(CLI::App& command, monitor::Thresholds& t) {
  add_threshold(command, "warn-demand-ratio", t.warn_demand_ratio, "Runnable threads ÷ N for a warning");
  add_threshold(command, "max-demand-ratio", t.max_demand_ratio, "Runnable threads ÷ N for oversubscribed");
  add_threshold(command, "warn-run-delay-ratio", t.warn_run_delay_ratio, "Run-queue wait ÷ CPU time for a warning");
  add_threshold(command, "max-run-delay-ratio", t.max_run_delay_ratio, "Run-queue wait ÷ CPU time for oversubscribed");
  add_threshold(command, "warn-throttle-ratio", t.warn_throttle_ratio, "Throttled ÷ CFS periods for a warning");
  add_threshold(command, "max-throttle-ratio", t.max_throttle_ratio, "Throttled ÷ CFS periods for oversubscribed");
  add_threshold(command, "busy-thread-demand", t.busy_thread_demand, "(CPU time + wait) ÷ time for a busy thread");
  add_threshold(command, "contended-cpu-demand", t.contended_cpu_demand, "Job's demand on one CPU to call it shared");
  add_threshold(command, "spare-cpu-demand", t.spare_cpu_demand, "Job's use of a CPU at most which it is left");
  add_threshold(command, "outside-load-cpus", t.outside_load_cpus, "CPUs used by others on the job's CPUs to warn");
}

// --interval: a duration such as 500ms or 0.5s (a bare number is milliseconds), stored in `ms`.
void add_interval_option(CLI::App& command, double& ms) {
  const std::map<std::string, double> units{{"ms", 1}, {"s", 1000}};
  command.add_option("--interval", ms, "Sampling interval, e.g. 500ms or 0.5s")
      ->type_name("DURATION")
      ->transform(CLI::AsNumberWithUnit(units, CLI::AsNumberWithUnit::CASE_SENSITIVE).description(""))
      ->check(bounded(
          fmt::format("from {} to {}", min_interval, max_interval),
          [](double value) {
            return value >= static_cast<double>(min_interval.count()) &&
                   value <= static_cast<double>(std::chrono::milliseconds(max_interval).count());
          },
          "ms"))
      ->default_str(fmt::format("{}", monitor::default_interval));
}

monitor::MonitorOptions monitor_options(const DoctorOptions& o) {
  monitor::MonitorOptions m;
  m.scope = !o.command.empty() ? monitor::Scope::trees
            : o.pids.empty()   ? monitor::Scope::machine
                               : monitor::Scope::processes;
  for (int pid : o.pids) m.pids.push_back(static_cast<pid_t>(pid));
  m.interval = std::chrono::milliseconds(std::lround(o.interval_ms));
  m.capacity = usable_capacity(o.usable_cpus);
  m.thresholds = o.thresholds;
  m.root = FsRoot::from_env();
  return m;
}

// Samples `monitor` every interval for `duration_s` seconds, or until every watched process is gone.
void watch_for(monitor::LiveMonitor& monitor, double duration_s) {
  const double end = monitor::monotonic_seconds() + duration_s;
  monitor.sample_now();
  while (!monitor.all_gone()) {
    const double now = monitor::monotonic_seconds();
    if (now >= end) break;
    const double wait = std::min(monitor.seconds_until_due(), end - now);
    std::this_thread::sleep_for(std::chrono::duration<double>(wait));
    monitor.sample_now();
  }
}

// Runs the command under procmgr, feeding the monitor from its ticks; returns CMD's shell exit code.
int watch_command(monitor::LiveMonitor& monitor, const DoctorOptions& o) {
  procmgr::GroupOptions group;
  group.root = FsRoot::from_env();
  group.output = o.json ? procmgr::Output::tagged : procmgr::Output::inherit;
  group.tagged_stdout = procmgr::TaggedStdout::to_stderr;
  group.on_tick = [&monitor](const std::vector<pid_t>& pids) { monitor.observe(pids); };
  procmgr::WorkerSpec spec;
  auto result = procmgr::run_group({spec}, procmgr::Program{o.command}, group);
  if (!result.ok()) throw Failure(exit_code::runtime_failure, result.error().message);
  return result->exit_code();
}

// The exit code for verdict `verdict` under --fail-on `fail_on` and the command's own `command_code`.
int exit_code_for(monitor::Verdict verdict, const std::string& fail_on, int command_code) {
  if (command_code != 0) return command_code;
  if (fail_on == "never") return exit_code::success;
  const auto threshold = value_or_fail(monitor::parse_verdict(fail_on), exit_code::usage_error);
  return verdict >= threshold ? exit_code::doctor_found : exit_code::success;
}

void check_options(const DoctorOptions& o) {
  if (!o.command.empty() && !o.pids.empty()) usage_failure("--pid and '-- CMD' cannot be combined; give one of them");
  for (int pid : o.pids) {
    if (pid <= 0) usage_failure("--pid {}: not a process id", pid);
  }
  const auto& t = o.thresholds;
  if (t.warn_demand_ratio > t.max_demand_ratio || t.warn_run_delay_ratio > t.max_run_delay_ratio ||
      t.warn_throttle_ratio > t.max_throttle_ratio) {
    usage_failure("a --warn-* threshold is above its --max-* threshold");
  }
}

int run_doctor(const DoctorOptions& o) {
  check_options(o);
  auto options = monitor_options(o);
  for (pid_t pid : options.pids) {
    if (::kill(pid, 0) != 0 && errno == ESRCH) usage_failure("--pid {}: no such process", pid);
  }
  monitor::LiveMonitor monitor(options);
  int command_code = 0;
  if (o.command.empty()) {
    if (!o.json) fmt::print(stderr, "mptrain doctor: sampling for {:g} s…\n", o.duration_s);
    watch_for(monitor, o.duration_s);
  } else {
    command_code = watch_command(monitor, o);
  }
  const auto diagnosis = monitor.diagnosis();
  if (o.json) {
    print_json(monitor::to_json(diagnosis));
  } else {
    fmt::print("{}", monitor::to_text(diagnosis));
    std::fflush(stdout);
  }
  return exit_code_for(diagnosis.verdict, o.fail_on, command_code);
}

}  // namespace

void add_doctor_command(CLI::App& app, Runner& runner) {
  auto o = std::make_shared<DoctorOptions>();
  auto* command = app.add_subcommand(
      "doctor", "Diagnose CPU oversubscription: the whole machine, --pid P..., or `-- CMD ARGS...` run until it exits");
  command->add_option("--duration", o->duration_s, "Seconds to sample the machine or --pid processes")
      ->check(bounded(fmt::format("above 0 and at most {}", max_duration_s),
                      [](double seconds) { return seconds > 0 && seconds <= max_duration_s; }));
  command->add_option("--pid", o->pids, "Watch this process and its threads (repeatable)");
  add_interval_option(*command, o->interval_ms);
  command->add_flag("--json", o->json, "Print the diagnosis as one JSON document on stdout");
  command->add_option("--fail-on", o->fail_on, "Exit 3 from this verdict on: oversubscribed, warning or never")
      ->check(CLI::IsMember({"oversubscribed", "warning", "never"}));
  command->add_option("--usable-cpus", o->usable_cpus, "Judge against N CPUs")
      ->check(CLI::Range(1, 1 << 20, "at least 1"))
      ->default_str("this process's usable CPUs");
  add_thresholds(*command, o->thresholds);
  add_command_words(*command, o->command, "Command and arguments to run and watch, after --");
  command->callback([&runner, o] { runner = [o] { return run_doctor(*o); }; });
}

}  // namespace mptrain::cli
