// `mptrain tune [options] [-- CMD ARGS…]`: measures which launch of the
// user's own program (or the built-in training) is fastest on this machine.
// The candidates, trials and statistics are tune/'s; this file wires and presents.
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <cmath>
#include <ctime>
#include <memory>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cluster/identity.hpp"
#include "procmgr/group.hpp"
#include "tune/machine.hpp"
#include "tune/report.hpp"
#include "tune/saved.hpp"
#include "tune/search.hpp"
#include "tune/stats.hpp"
#include "util/environment.hpp"
#include "util/failure.hpp"
#include "util/text.hpp"

namespace mptrain::cli {
namespace {

// Everything `mptrain tune` was given.
struct TuneOptions {
  std::vector<int> process_counts;
  std::vector<std::string> tries;
  std::string training;
  bool only_tries = false;
  std::string metric;
  std::string progress;
  bool lower_is_better = false;
  double warmup_s = 3;
  double trial_s = 5;
  double budget_s = 120;
  bool dry_run = false;
  bool json = false;
  std::string save;  // --save FILE: the result there instead of the cache directory
  bool show = false;
  std::vector<std::string> command;
};

// Where the result of a tune of `o.command` is saved: --save's FILE, else the cache directory's file; "" when none.
std::string result_path(const TuneOptions& o) {
  return !o.save.empty() ? o.save : tune::saved_path(o.command, current_environment());
}

// Saves what the search found for `run --tuned` (a failure to save is said, not fatal: the report stands).
void save_result(const TuneOptions& o, const nlohmann::json& report, const tune::MeasuredOn& on) {
  const std::string path = result_path(o);
  if (path.empty()) {
    print_note(
        "mptrain: tune: the result is not saved: neither XDG_CACHE_HOME nor HOME is set (--save FILE names a file)\n");
    return;
  }
  tune::SavedResult result{o.command,    on,           static_cast<long long>(std::time(nullptr)),
                           std::nullopt, std::nullopt, report.value("decision", "")};
  if (const auto& winner = report["winner"]; winner.is_object()) {
    result.winner = winner["options"].get<std::vector<std::string>>();
    if (winner["speedup"].is_number()) result.speedup = winner["speedup"].get<double>();
  }
  const auto saved = tune::save_result(result, path);
  if (!saved.ok()) {
    print_warning("the result is not saved: " + saved.error().message);
    return;
  }
  const std::string run =
      o.command.empty() ? "mptrain run --tuned" : "mptrain run --tuned -- " + shell_command(o.command);
  print_note(fmt::format("mptrain: tune: result saved in {}; {}{} applies it\n", path, run,
                         o.save.empty() ? "" : fmt::format(" (with --tuned={})", o.save)));
}

// `tune --show`: the saved results (--save's FILE alone when given), whether each applies here.
int show_results(const TuneOptions& o, const tune::MeasuredOn& here) {
  std::vector<std::pair<std::string, tune::SavedResult>> results;
  std::string where = o.save;
  if (!o.save.empty()) {
    results.emplace_back(o.save, value_or_fail(tune::load_result(o.save), exit_code::usage_error));
  } else {
    where = tune::saved_directory(current_environment());
    if (!where.empty()) results = tune::list_results(where);
  }
  if (!o.command.empty()) {
    std::erase_if(results, [&](const auto& r) { return r.second.command != o.command; });
  }
  const long long now = static_cast<long long>(std::time(nullptr));
  nlohmann::json list = nlohmann::json::array();
  std::string text =
      fmt::format("mptrain tune: {} in {}\n", counted(static_cast<long long>(results.size()), "saved result"),
                  where.empty() ? "(no cache directory)" : where);
  if (!results.empty()) {
    text += fmt::format("  {:<8} {:<9} {:<26} {:>8}  {}\n", "AGE", "APPLIES", "WINNER", "SPEEDUP", "COMMAND");
  }
  for (const auto& [path, r] : results) {
    const bool applies = tune::tuned_options(r, here).ok();
    const std::string winner = !r.winner ? "(none)" : r.winner->empty() ? "(default plan)" : shell_command(*r.winner);
    const std::string command = r.command.empty() ? "(built-in training)" : shell_command(r.command);
    text += fmt::format("  {:<8} {:<9} {:<26} {:>8}  {}\n", tune::age_text(r.saved_at, now), applies ? "yes" : "no",
                        printable(winner), r.speedup ? fmt::format("{:.2f}x", *r.speedup) : "-", printable(command));
    if (!applies) text += fmt::format("           measured on {}; {}\n", r.on.cpus, r.on.topology);
    nlohmann::json entry = tune::to_json(r);
    entry["path"] = path;
    entry["applies_here"] = applies;
    list.push_back(std::move(entry));
  }
  if (o.json) {
    print_json({{"directory", where}, {"results", std::move(list)}});
  } else {
    print_report(text);
  }
  return exit_code::success;
}

tune::MetricSpec metric_of(const TuneOptions& o) {
  if (!o.command.empty() && !o.metric.empty()) return {tune::MetricKind::value, o.metric, !o.lower_is_better};
  if (!o.command.empty() && !o.progress.empty()) return {tune::MetricKind::lines, o.progress, true};
  if (!o.command.empty()) return {tune::MetricKind::whole_run, "", false};
  return {tune::MetricKind::counter, std::string(tune::training_progress_pattern), true};
}

// The candidates' inputs from `machine` and the options.
tune::CandidateInputs candidate_inputs(const TuneOptions& o, const affinity::Machine& machine) {
  auto inputs = value_or_fail(tune::machine_inputs(machine, FsRoot::from_env()));
  inputs.builtin = o.command.empty();
  inputs.process_counts = o.process_counts;
  inputs.tries = o.tries;
  inputs.only_tries = o.only_tries;
  return inputs;
}

int run_tune(const TuneOptions& o) {
  if (cluster::started_by_parallel_launcher(current_environment())) {
    throw Failure(exit_code::usage_error,
                  "mptrain tune measures one node: run it without mpirun or srun, on one node of the job");
  }
  if (o.command.empty() && (!o.metric.empty() || !o.progress.empty())) {
    throw Failure(exit_code::usage_error, "--metric and --progress read a program's output: give the program after --");
  }
  if (!o.command.empty() && !o.training.empty()) {
    throw Failure(exit_code::usage_error, "--train gives the built-in training's options: not with a program after --");
  }
  const FsRoot root = FsRoot::from_env();
  const auto machine = value_or_fail(affinity::read_this_machine(root));
  const tune::MeasuredOn here = tune::measured_on(machine, tune::cpu_model(root));
  if (o.show) return show_results(o, here);
  tune::Program program{o.command, {}, value_or_fail(tune::this_binary())};
  if (!o.training.empty())
    program.training = value_or_fail(tune::option_words(o.training, "--train"), exit_code::usage_error);
  const auto inputs = candidate_inputs(o, machine);
  const auto candidates = value_or_fail(tune::make_candidates(inputs), exit_code::usage_error);
  if (o.dry_run && o.json) print_json(tune::dry_run_json(program, candidates));
  if (o.dry_run && !o.json) print_report(tune::dry_run_text(program, candidates));
  if (o.dry_run) return exit_code::success;
  const auto metric = metric_of(o);
  value_or_fail(tune::MetricReader::make(metric), exit_code::usage_error);
  auto relay = value_or_fail(procmgr::SignalRelay::install());
  // A reader that went away (`mptrain tune … | head -1`) stops the search as SIGTERM does: its
  // trials stopped, its folder removed. The trials' own programs get SIGPIPE's default back.
  struct sigaction closed_output {};
  closed_output.sa_handler = [](int) { ::kill(::getpid(), SIGTERM); };
  ::sigemptyset(&closed_output.sa_mask);
  ::sigaction(SIGPIPE, &closed_output, nullptr);
  const auto work = value_or_fail(tune::WorkDirectory::make());
  tune::SearchSettings settings{metric,
                                {o.warmup_s, metric.kind == tune::MetricKind::whole_run ? 0 : o.trial_s, 0,
                                 tune::trial_grace + tune::trial_grace_margin},
                                o.budget_s,
                                5,
                                work->path()};
  const auto observe = [&](const tune::CandidateResult& c, const tune::TrialResult& trial, int number) {
    std::string measured = "nothing measured";
    if (!c.values.empty() && trial.throughput) {
      measured = fmt::format("{:.4g} {}", *trial.throughput, tune::unit_of(metric, trial.unit));
    } else if (!c.mptrain_error.empty()) {
      measured = "mptrain could not run it: " + printable(c.mptrain_error).substr(0, 160);
    } else if (c.failed) {
      measured = fmt::format("failed with exit code {}{}", c.exit_code,
                             c.failure_lines.empty() ? "" : ": " + printable(c.failure_lines.back()).substr(0, 160));
    } else if (!c.unmeasured.empty()) {
      measured += ": " + c.unmeasured;
    }
    print_note(fmt::format("mptrain: tune: trial {} ({:.1f} s): {}: {}\n", number, trial.seconds,
                           printable(c.candidate.label()), measured));
  };
  const auto outcome = tune::search(program, inputs, settings, *relay, observe);
  const tune::Report report(program, outcome, metric, o.budget_s, o.trial_s);
  if (!outcome.error.empty()) throw Failure(exit_code::runtime_failure, report.error_text());
  const nlohmann::json document = report.json();
  if (o.json) {
    print_json(document);
  } else {
    print_report(report.text());
  }
  if (outcome.stop_signal == 0 && report.any_measured()) save_result(o, document, here);
  if (outcome.stop_signal != 0)
    return procmgr::ExitStatus{procmgr::ExitStatus::Kind::signaled, outcome.stop_signal}.shell_code();
  if (!report.any_measured()) {
    const char* why = report.all_refused()  ? ": mptrain could not run any trial (see above)"
                      : report.all_failed() ? ": every candidate's program failed (see above)"
                                            : "";
    print_error(std::string("no candidate could be measured") + why);
    return exit_code::runtime_failure;
  }
  return exit_code::success;
}

}  // namespace

void add_tune_command(CLI::App& app, Runner& runner) {
  auto o = std::make_shared<TuneOptions>();
  auto* command = app.add_subcommand(
      "tune", "Measure which launch of a program (or of the built-in training) is fastest on this machine");
  command
      ->add_option("-n,--num-processes", o->process_counts,
                   "Process counts to split the CPUs by, as 1,2,4 (default: the divisors of N, up to 8 of them)")
      ->delimiter(',')
      ->transform(whole_number(1, 1 << 20));
  command
      ->add_option("--try", o->tries,
                   "Also try this launch, given as run placement options (repeatable): "
                   "--try \"-n 2 -t 1 --bind none\"")
      ->type_name("OPTIONS");
  command
      ->add_option("--train", o->training,
                   "Options of the built-in training for every candidate: --train \"--model mlp --data DIR\"")
      ->type_name("OPTIONS");
  command->add_flag("--only-tries", o->only_tries, "Try the baseline, the default plan and the --try launches only");
  auto* metric = command
                     ->add_option("--metric", o->metric,
                                  "Read throughput as the first number REGEX captures in the program's output "
                                  "(tqdm's it/s and s/it read as a rate)")
                     ->type_name("REGEX")
                     ->check(non_empty());
  command->add_option("--progress", o->progress, "Read throughput as lines matching REGEX per second")
      ->type_name("REGEX")
      ->check(non_empty())
      ->excludes(metric);
  auto* lower = command
                    ->add_flag("--lower-is-better", o->lower_is_better,
                               "The --metric is a time (seconds per step): lower is faster")
                    ->needs(metric);
  auto higher = std::make_shared<bool>(false);
  command->add_flag("--higher-is-better", *higher, "The --metric is a rate (the default)")
      ->needs(metric)
      ->excludes(lower);
  command->add_option("--warmup", o->warmup_s, "Seconds of each trial not measured")->transform(from_to(0, 3600));
  command->add_option("--trial", o->trial_s, "Seconds measured in each trial after the warm-up")
      ->transform(bounded("above 0 and at most 3600", [](double s) { return s > 0 && s <= 3600; }));
  command->add_option("--budget", o->budget_s, "Seconds the whole search may take")
      ->transform(bounded("above 0 and at most 86400", [](double s) { return s > 0 && s <= 86400; }));
  command->add_flag("--dry-run", o->dry_run, "List the candidates and run nothing");
  command->add_flag("--json", o->json, "Print the result as one JSON document on stdout");
  command
      ->add_option("--save", o->save,
                   "Save the result in FILE (default: the user's cache directory, keyed by the command) for "
                   "`mptrain run --tuned`")
      ->type_name("FILE")
      ->check(non_empty());
  command->add_flag("--show", o->show,
                    "List the saved results (of the command after --, or --save's FILE) and whether each applies here");
  add_command_words(*command, o->command, "The program and its arguments, after -- (none: the built-in training)");
  command->footer(
      "Example: mptrain tune --metric '([0-9.]+) ?(?:[a-z]+/s|s/[a-z]+)' -- python3 train.py   (tqdm, any unit)\n"
      "See mptrain-tune(1).");
  command->callback([&runner, o, higher] { runner = [o] { return run_tune(*o); }; });
}

}  // namespace mptrain::cli
