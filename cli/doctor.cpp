// `mptrain doctor`: oversubscription diagnosis of the whole machine, of given
// processes, or of a command run under it (SPEC "mptrain doctor"). The stop
// signals (procmgr/signals.hpp) end the sampling (with `-- CMD` they, SIGUSR1
// and SIGUSR2 are forwarded to CMD): the report of what was seen is still
// printed; the exit code is monitor::doctor_exit_code's. Nothing CMD started
// outlives it (procmgr's run_group ends what it left behind).
#include "monitor/doctor.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <optional>
#include <thread>

#include "affinity/bind.hpp"
#include "affinity/usable_cpus.hpp"
#include "cli/commands.hpp"
#include "cli/fail_on.hpp"
#include "cli/options.hpp"
#include "launch/sharing.hpp"
#include "monitor/report.hpp"
#include "procmgr/group.hpp"
#include "procmgr/signals.hpp"
#include "procmgr/spawn.hpp"
#include "tune/machine.hpp"
#include "util/failure.hpp"
#include "util/file_lock.hpp"
#include "util/output_file.hpp"

namespace mptrain::cli {

namespace {

// Everything `mptrain doctor` was given.
struct DoctorOptions {
  monitor::DoctorRequest request;
  bool json = false;
  bool quiet = false;        // --quiet: the verdict line and each fix once
  bool threads = false;      // --threads
  bool no_children = false;  // --no-children (request.pid_descendants is its opposite)
  FailOnOptions gate;        // --fail-on (default oversubscribed), --ignore
};

// How the watched job ended, with the command's output mptrain could not write (--json).
struct WatchOutcome {
  monitor::WatchEnd end;
  std::vector<procmgr::OutputLoss> output_losses;
};

// The usable CPUs N, or `override_count` of them (monitor::judged_capacity);
// this process's affinity mask, with a warning, when they cannot be read.
monitor::Capacity usable_capacity(const FsRoot& root, int override_count) {
  auto usable = affinity::read_usable_cpus(root);
  if (!usable.ok()) print_warning(fmt::format("{}; using this process's affinity mask for N", usable.error().message));
  const CpuSet mask = usable.ok() ? usable->cpus : affinity::current_affinity(0).value_or(CpuSet({0}));
  const int count = usable.ok() ? usable->count : mask.size();
  const int online = usable.ok() ? usable->online.size() : static_cast<int>(std::thread::hardware_concurrency());
  return value_or_fail(monitor::judged_capacity(count, mask, online, override_count), exit_code::usage_error);
}

// One option per row of the threshold table: counted, not listed, by --help
// (there are many, and few users move them), listed by --help-thresholds.
void add_thresholds(CLI::App& command, monitor::Thresholds& t) {
  for (const auto& row : monitor::threshold_table()) {
    command.add_option("--" + std::string(row.option), t.*row.member, std::string(row.help))
        ->transform(at_least(0))
        ->default_str(fmt::format("{:g}", row.value))
        ->group(std::string(folded_help_group));
  }
}

// Watches the machine or the --pid processes for --duration; a signal stops it early.
WatchOutcome watch_processes(monitor::LiveMonitor& monitor, const DoctorOptions& o) {
  const auto& r = o.request;
  const auto relay = value_or_fail(procmgr::SignalRelay::install());
  if (!o.json) print_note(fmt::format("mptrain doctor: sampling for {:g} s…\n", r.duration_s));
  const double start = monitor::monotonic_seconds();
  const int signal =
      monitor::watch_for(monitor, r.duration_s, [&relay](double s) { return relay->wait_for_signal(s); });
  if (!r.pids.empty() && monitor.all_gone()) {
    print_note(monitor::processes_gone_note(r.pids.size(), monitor::monotonic_seconds() - start, r.duration_s));
  }
  return {{0, signal, false}, {}};
}

// Runs the command under procmgr (which forwards signals to it), feeding the monitor from its ticks, until it exits.
WatchOutcome watch_command(monitor::LiveMonitor& monitor, const DoctorOptions& o) {
  procmgr::GroupOptions group;
  group.output = o.json ? procmgr::Output::tagged : procmgr::Output::inherit;
  group.tagged_stdout = procmgr::TaggedStdout::to_stderr;
  // The command reads what mptrain was given (`printf data | mptrain doctor -- cat`), as time and strace
  // pass it on; not a terminal, which a command outside the terminal's foreground group cannot read.
  group.input = ::isatty(STDIN_FILENO) ? procmgr::Input::dev_null : procmgr::Input::inherit;
  group.on_tick = [&monitor](const std::vector<pid_t>& pids) { monitor.observe(pids); };
  procmgr::WorkerSpec command;
  command.name = "the command";  // one command, not a rank of a launch
  auto result = procmgr::run_group({command}, procmgr::Program{o.request.command}, group);
  if (!result.ok()) throw Failure(exit_code::runtime_failure, with_limit_advice(result.error()));
  return {{result->exit_code(), result->forwarded_signal, !result->output_losses.empty()}, result->output_losses};
}

// Refuses, before any sampling, options that make no sense together and a --trace path that cannot be written.
void check_options(const monitor::DoctorRequest& r) {
  const auto in_path = [](const std::string& word) { return procmgr::resolve_in_path(word).ok(); };
  value_or_fail(monitor::check_request(r, in_path), exit_code::usage_error);
  if (!r.trace.empty()) check_output_file({r.trace, "--trace", monitor::trace_file, {}});
}

// Prints `diagnosis` as text or JSON (with --threads, its threads too), and
// the live mptrain runs when it watched the machine; a watch stopped by a signal is said so.
void print_diagnosis(const monitor::Diagnosis& diagnosis, const WatchOutcome& outcome, const DoctorOptions& o) {
  const bool machine = o.request.command.empty() && o.request.pids.empty();
  const auto runs = machine ? live_runs(runs_directory()).value_or(std::vector<RunRecord>{}) : std::vector<RunRecord>{};
  const int signal_number = outcome.end.signal;
  const std::string signal = signal_number != 0 ? procmgr::signal_name(signal_number) : std::string();
  if (o.json) {
    const auto code = o.request.command.empty() ? std::nullopt : std::optional(outcome.end.command_code);
    auto document = monitor::doctor_json(diagnosis, signal, code, o.threads);
    // A range its evidence leaves open across a threshold offers the measurement that would close it.
    if (diagnosis.loss && !diagnosis.loss->unpinned.empty()) {
      document["throughput_loss"]["measure_with"] =
          o.request.command.empty() && !diagnosis.loss->unpinned_cmdline.empty()
              ? "mptrain tune -- " + diagnosis.loss->unpinned_cmdline
              : tune::tune_command(o.request.command);
    }
    if (machine) document["mptrain_runs"] = launch::runs_json(runs);
    return print_json(document);
  }
  if (!signal.empty()) print_note(fmt::format("mptrain doctor: stopped by {}; reporting what was sampled\n", signal));
  print_report(o.quiet ? monitor::to_quiet_text(diagnosis) : monitor::to_text(diagnosis));
  if (!o.quiet && diagnosis.verdict >= monitor::Verdict::warning)
    print_report(tune::measure_hint(o.request.command) + "\n");
  if (o.threads && !o.quiet) print_report(monitor::threads_table(diagnosis));
  if (machine && !o.quiet) print_report(launch::runs_listing("mptrain runs on this machine", runs));
}

// Says, after the report, why the doctor exits with a code the verdict alone would not explain:
// the watched command failed, or some of its output was lost.
void say_command_failed(const WatchOutcome& outcome, const DoctorOptions& o) {
  const int code = outcome.end.command_code;
  if (!o.request.command.empty() && code != 0 && outcome.end.signal == 0) {
    const int signal = exit_code::signal_of(code);
    const std::string how = signal != 0 ? fmt::format("was killed by {} (exit {})", procmgr::signal_name(signal), code)
                                        : fmt::format("exited with code {}", code);
    print_note(
        fmt::format("mptrain doctor: the watched command {} {}; the doctor exits with its code (the verdict "
                    "above covers the time it ran)\n",
                    printable(o.request.command.front()), how));
  }
  for (const auto& loss : outcome.output_losses) {
    print_error(fmt::format(
        "{}; the command ran on, but that output is lost: give it a destination that can take it and run again",
        loss.describe()));
  }
}

int run_doctor(const DoctorOptions& o) {
  const auto& r = o.request;
  check_options(r);
  const auto trace_lock =
      r.trace.empty() ? std::nullopt : std::optional(value_or_fail(FileLock::acquire(r.trace, "--trace")));
  const FsRoot root = FsRoot::from_env();
  if (auto proc = monitor::check_proc_readable(root); !proc.ok())
    runtime_failure("{}", under_fsroot(proc.error().message));
  auto options = monitor::monitor_options(r, usable_capacity(root, r.usable_cpus), root);
  value_or_fail(monitor::check_watchable(root, options.pids), exit_code::usage_error);
  auto watched = monitor::fold_threads(root, options.pids);
  for (const auto& [thread, process] : watched.threads) {
    print_note(fmt::format("mptrain: --pid {} is a thread of process {}: watching the process\n", thread, process));
  }
  options.pids = std::move(watched.processes);
  monitor::IntervalRecorder recorder(r.every_s, r.interval_s, !r.trace.empty(),
                                     [](const std::string& line) { print_note(line + "\n"); });
  options.on_interval = [&recorder](const monitor::IntervalEnd& interval) { recorder.add(interval); };
  options.other_runs = launch::other_runs_reader(runs_directory());
  monitor::LiveMonitor monitor(options);
  recorder.judge_with(monitor);
  const auto outcome = r.command.empty() ? watch_processes(monitor, o) : watch_command(monitor, o);
  const auto diagnosis = monitor.diagnosis();
  if (auto slow = monitor::slow_sampling_warning(diagnosis, r.interval_s)) print_warning(*slow);
  print_diagnosis(diagnosis, outcome, o);
  say_command_failed(outcome, o);
  if (const auto* trace = recorder.trace()) {
    if (auto cut = monitor::trace_truncation_warning(*trace, r.trace)) print_warning(*cut);
    if (auto written = monitor::write_trace(*trace, r.trace); !written.ok()) {
      throw Failure(monitor::failed_watch_code(outcome.end, exit_code::runtime_failure), written.error().message);
    }
  }
  return monitor::doctor_exit_code(outcome.end, fails(diagnosis, o.gate));
}

}  // namespace

void add_doctor_command(CLI::App& app, Runner& runner) {
  auto o = std::make_shared<DoctorOptions>();
  auto* command = app.add_subcommand(
      "doctor", "Diagnose CPU oversubscription: the whole machine, --pid P..., or `-- CMD ARGS...` run until it exits");
  command->add_option("--duration", o->request.duration_s, "Seconds to sample the machine or --pid processes")
      ->transform(bounded(fmt::format("above 0 and at most {}", monitor::max_duration_s),
                          [](double seconds) { return seconds > 0 && seconds <= monitor::max_duration_s; }));
  command
      ->add_option("--pid", o->request.pids,
                   "Watch this process, its threads and its descendants as they come and go (repeatable)")
      ->transform(whole_number(1));
  command->add_flag("--no-children", o->no_children,
                    "With --pid: watch the given processes and their threads only, not the processes they start");
  command
      ->add_option("--interval", o->request.interval_s, "Sampling interval in seconds, or with a unit: 0.5, 250ms, 1s")
      ->type_name("DURATION")
      ->transform(duration(monitor::min_interval, monitor::max_interval))
      ->default_str(fmt::format("{}", monitor::default_interval));
  command
      ->add_option("--every", o->request.every_s,
                   "Print a one-line verdict on stderr per period while sampling: 1, 500ms, 2s; at least --interval")
      ->type_name("DURATION")
      ->transform(duration(monitor::min_interval, std::chrono::seconds(static_cast<long>(monitor::max_duration_s))))
      ->default_str("off");
  command->add_flag("--json", o->json, "Print the diagnosis as one JSON document on stdout");
  command->add_flag("--quiet", o->quiet, "Print the verdict line and each fix only");
  command->add_flag("--threads", o->threads, "Add a table of the threads that ran (with --json: a threads key)");
  command
      ->add_option("--trace", o->request.trace,
                   "Write the samples to FILE as a Chrome trace (Perfetto, chrome://tracing)")
      ->type_name("FILE")
      ->check(non_empty());
  add_fail_on_options(*command, o->gate);
  command->add_option("--usable-cpus", o->request.usable_cpus, "Judge against N CPUs")
      ->transform(whole_number(1))
      ->default_str("this process's usable CPUs");
  add_thresholds(*command, o->request.thresholds);
  auto help_thresholds = std::make_shared<bool>(false);
  command->add_flag("--help-thresholds", *help_thresholds, "Print the threshold options of the model and exit");
  add_command_words(*command, o->request.command, "Command and arguments to run and watch, after --");
  command->callback([&runner, o, help_thresholds] {
    o->request.pid_descendants = !o->no_children;
    runner = *help_thresholds ? Runner([] {
      print_report(monitor::thresholds_help());
      return exit_code::success;
    })
                              : Runner([o] { return run_doctor(*o); });
  });
}

}  // namespace mptrain::cli
