#include "tune/search.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>

#include "tune/stats.hpp"
#include "util/text.hpp"

namespace mptrain::tune {
namespace {

using Clock = std::chrono::steady_clock;

// The epochs the built-in training is asked for: more than any window needs;
// tune stops it.
constexpr int endless_epochs = 1'000'000;

CandidateResult result_of(Candidate candidate) {
  CandidateResult result;
  result.candidate = std::move(candidate);
  return result;
}

// The monitor's verdict and estimated loss in a trial's report.
void take_verdict(CandidateResult& result, const nlohmann::json& report) {
  if (!report.is_object()) return;
  const nlohmann::json& monitor = report.contains("monitor") ? report["monitor"] : report;
  if (!monitor.is_object()) return;
  if (monitor.contains("verdict") && monitor["verdict"].is_string()) result.verdict = monitor["verdict"];
  const auto loss = monitor.find("estimated_throughput_loss");
  result.estimated_loss =
      loss != monitor.end() && loss->is_number() ? std::optional(loss->get<double>()) : std::nullopt;
}

// K from the default plan's report: the processes the program starts that run pools of their own.
std::optional<int> children_of(const nlohmann::json& report) {
  if (!report.is_object()) return std::nullopt;
  const auto advice = report.find("children_advice");
  if (advice != report.end() && advice->is_object()) {
    const auto k = advice->find("children");
    if (k != advice->end() && k->is_number_integer()) return k->get<int>();
  }
  // Pools capped to one thread run no team the advice would count: count the processes other than
  // the worker that worked, each at least a quarter of the busiest one's CPU time.
  const auto monitor = report.find("monitor");
  const auto workers = report.find("workers");
  if (monitor == report.end() || workers == report.end() || !monitor->contains("processes")) return std::nullopt;
  std::vector<long long> worker_pids;
  for (const auto& w : *workers) worker_pids.push_back(w.value("pid", 0LL));
  std::vector<double> busy;
  for (const auto& process : (*monitor)["processes"]) {
    const long long pid = process.value("pid", 0LL);
    if (std::find(worker_pids.begin(), worker_pids.end(), pid) != worker_pids.end()) continue;
    busy.push_back(process.value("cpu_seconds", 0.0));
  }
  if (busy.empty()) return std::nullopt;
  const double most = *std::max_element(busy.begin(), busy.end());
  const auto working = std::count_if(busy.begin(), busy.end(), [&](double cpu) { return most > 0 && cpu * 4 >= most; });
  const auto per_worker = static_cast<int>((working + static_cast<long>(worker_pids.size()) - 1) /
                                           static_cast<long>(std::max<std::size_t>(1, worker_pids.size())));
  return per_worker >= 2 ? std::optional(per_worker) : std::nullopt;
}

// After the first round, when the budget cannot give every candidate left a
// second trial: only the best that fit go on (at least two), so that the
// noise is measured on the contenders.
void keep_contenders(std::vector<CandidateResult>& results, const SearchSettings& settings, double left,
                     double per_trial) {
  std::vector<std::size_t> active;
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (!results[i].dropped && !results[i].failed && !results[i].values.empty()) active.push_back(i);
  }
  const std::size_t fit = per_trial > 0 ? static_cast<std::size_t>(std::max(0.0, left / per_trial)) : active.size();
  if (active.size() <= std::max<std::size_t>(fit, 2)) return;
  std::sort(active.begin(), active.end(), [&](std::size_t a, std::size_t b) {
    return speedup(results[a].values.front(), results[b].values.front(), settings.metric.higher_is_better) > 1;
  });
  for (std::size_t k = std::max<std::size_t>(fit, 2); k < active.size(); ++k) results[active[k]].dropped = true;
}

// Makes the candidates again with what the probe found, keeping what was measured.
void remake(std::vector<CandidateResult>& results, const CandidateInputs& inputs) {
  auto made = make_candidates(inputs);
  if (!made.ok()) return;
  std::vector<CandidateResult> next;
  for (auto& candidate : *made) {
    const auto old = std::find_if(results.begin(), results.end(), [&](const CandidateResult& r) {
      return r.candidate.baseline == candidate.baseline && r.candidate.options == candidate.options;
    });
    if (old != results.end()) {
      next.push_back(std::move(*old));
    } else {
      next.push_back(result_of(std::move(candidate)));
    }
  }
  results = std::move(next);
}

// The seconds a trial of `result` is expected to take: a windowed trial as
// long as the longest trial yet (start and stop included; the last one may
// have been a candidate that failed at once), at least its window and half a second.
double expected_seconds(const CandidateResult& result, const SearchSettings& settings, double longest_seen) {
  const bool whole_run = settings.metric.kind == MetricKind::whole_run;
  if (!whole_run) return std::max(settings.timing.warmup + settings.timing.window + 0.5, longest_seen);
  if (!result.values.empty()) return *std::max_element(result.values.begin(), result.values.end()) + 0.5;
  return longest_seen;
}

// The built-in training's options without --save-model PATH (a trial is
// stopped, and a stopped training writes its model: the user's file would be
// rewritten by every trial, and a --resume of it would compound them).
std::vector<std::string> without_saving(const std::vector<std::string>& training) {
  std::vector<std::string> kept;
  for (std::size_t i = 0; i < training.size(); ++i) {
    if (training[i] == "--save-model") {
      ++i;
      continue;
    }
    if (!training[i].starts_with("--save-model=")) kept.push_back(training[i]);
  }
  return kept;
}

// mptrain's own error when it could not run a trial (it printed one and no
// report, and the program printed nothing): "" when the program ran.
std::string mptrain_error_of(const TrialResult& trial) {
  if (!trial.report.is_null() || !trial.last_lines.empty()) return "";
  for (auto line = trial.mptrain_lines.rbegin(); line != trial.mptrain_lines.rend(); ++line) {
    if (line->starts_with("mptrain: error: ")) return line->substr(16);
  }
  return "";
}

}  // namespace

TrialCommand trial_command(const Program& program, const Candidate& candidate, const std::string& directory) {
  TrialCommand command;
  command.directory = directory;
  if (program.command.empty()) {
    command.argv = {program.mptrain, "run"};
    command.argv.insert(command.argv.end(), candidate.options.begin(), candidate.options.end());
    const std::vector<std::string> training = without_saving(program.training);
    command.argv.insert(command.argv.end(), training.begin(), training.end());
    command.argv.insert(command.argv.end(), {"--json", "--epochs", std::to_string(endless_epochs)});
    command.read_mptrain_stderr = true;
    return command;
  }
  if (candidate.baseline) {
    command.argv = {program.mptrain,
                    "doctor",
                    "--json",
                    "--fail-on",
                    "never",
                    "--",
                    "/bin/sh",
                    "-c",
                    R"(exec "$@" >"$0.out" 2>"$0.err")",
                    directory + "/rank-0"};
  } else {
    command.argv = {program.mptrain, "run"};
    command.argv.insert(command.argv.end(), candidate.options.begin(), candidate.options.end());
    const std::string grace = fmt::format("{:g}", trial_grace);
    command.argv.insert(command.argv.end(),
                        {"--json", "--grace", grace, "--log-dir", directory, "--redirects", "3", "--"});
  }
  command.argv.insert(command.argv.end(), program.command.begin(), program.command.end());
  return command;
}

std::string user_command(const Program& program, const Candidate& candidate) {
  if (candidate.baseline) return shell_command(program.command);
  std::vector<std::string> words{"mptrain", "run"};
  words.insert(words.end(), candidate.options.begin(), candidate.options.end());
  words.insert(words.end(), program.training.begin(), program.training.end());
  if (!program.command.empty()) {
    words.emplace_back("--");
    words.insert(words.end(), program.command.begin(), program.command.end());
  }
  return shell_command(words);
}

namespace {

// One search: its candidates' results, its clock and what the trials so far showed.
class Search {
 public:
  Search(const Program& program, CandidateInputs inputs, const SearchSettings& settings, procmgr::SignalRelay& relay,
         const TrialObserver& observe)
      : program_(program), inputs_(std::move(inputs)), settings_(settings), relay_(relay), observe_(observe) {
    if (auto made = make_candidates(inputs_); made.ok()) {
      for (auto& candidate : *made) outcome_.candidates.push_back(result_of(std::move(candidate)));
    }
    probed_ = inputs_.builtin || inputs_.children.has_value();
  }

  SearchOutcome run() {
    for (int round = 0; round < settings_.max_rounds; ++round) {
      bool ran = false;
      for (std::size_t i = 0; i < outcome_.candidates.size(); ++i) {
        const Step step = step_of(i, round);
        if (step == Step::stop) return finish();
        ran = ran || step == Step::ran;
      }
      if (round == 0) drop_after_first_round();
      if (round > 0) drop_behind();
      if (!ran) break;
    }
    return finish();
  }

 private:
  enum class Step { skipped, ran, stop };

  double elapsed() const { return std::chrono::duration<double>(Clock::now() - started_).count(); }
  bool whole_run() const { return settings_.metric.kind == MetricKind::whole_run; }

  SearchOutcome finish() {
    outcome_.elapsed = elapsed();
    return std::move(outcome_);
  }

  // Candidate `i`'s trial of round `round`, when it is still in and the budget has room for it.
  Step step_of(std::size_t i, int round) {
    CandidateResult& result = outcome_.candidates[i];
    if (result.dropped || result.failed || result.trials > round) return Step::skipped;
    const double left = settings_.budget - elapsed();
    const double expected = expected_seconds(result, settings_, longest_seen_);
    if ((whole_run() && trial_number_ > 0 && expected > left) || (!whole_run() && expected > left) || left <= 0) {
      const std::string label = result.candidate.label();
      if (result.trials == 0 &&
          std::find(outcome_.skipped.begin(), outcome_.skipped.end(), label) == outcome_.skipped.end()) {
        outcome_.skipped.push_back(label);
      }
      return Step::skipped;
    }
    auto reader = MetricReader::make(settings_.metric);
    if (!reader.ok()) {
      outcome_.error = reader.error().message;
      return Step::stop;
    }
    const std::string directory = fmt::format("{}/trial-{}", settings_.work_directory, ++trial_number_);
    if (::mkdir(directory.c_str(), 0700) != 0) {
      outcome_.error = errno_error("cannot make a trial's folder:", directory).message;
      return Step::stop;
    }
    TrialTiming timing = settings_.timing;
    timing.limit = left;
    auto trial = run_trial(trial_command(program_, result.candidate, directory), timing, **reader, relay_);
    if (!trial.ok()) {
      outcome_.error = trial.error().message;
      return Step::stop;
    }
    outcome_.rounds = round + 1;
    record(result, *trial, **reader);
    if (observe_) observe_(result, *trial, trial_number_);
    if (outcome_.stop_signal != 0 || !outcome_.error.empty()) return Step::stop;
    probe_children(result, *trial);
    return Step::ran;
  }

  // What trial `trial` of `result` measured (`reader`: its output).
  void record(CandidateResult& result, const TrialResult& trial, const MetricReader& reader) {
    ++result.trials;
    longest_seen_ = std::max(longest_seen_, trial.wall_seconds);
    last_seen_ = trial.wall_seconds;
    take_verdict(result, trial.report);
    switch (trial.end) {
      case TrialEnd::interrupted:
        outcome_.stop_signal = trial.stop_signal;
        break;
      case TrialEnd::failed:
        result.failed = true;
        result.exit_code = trial.exit_code;
        result.failure_lines = trial.last_lines.empty() ? trial.mptrain_lines : trial.last_lines;
        result.mptrain_error = mptrain_error_of(trial);
        break;
      case TrialEnd::ended_early:
        outcome_.error = fmt::format(
            "the program ended after {:.1f} s, inside the {:.1f} s warm-up: its trials cannot be windowed; "
            "tune it with whole-run trials (without --metric and --progress), or a shorter --warmup",
            trial.seconds, settings_.timing.warmup);
        outcome_.error_lines = trial.last_lines;
        break;
      case TrialEnd::over_limit:
        break;
      case TrialEnd::measured:
        record_measured(result, trial, reader);
        break;
    }
  }

  // A trial that ran its window. A pattern that never matched in the first trial is an error (the
  // pattern is wrong); once it has matched, a trial that saw nothing in its window is only not counted.
  void record_measured(CandidateResult& result, const TrialResult& trial, const MetricReader& reader) {
    if (!whole_run() && !reader.matched() && !matched_before_) {
      outcome_.error = fmt::format(
          "the pattern '{}' matched nothing the program printed in its first trial, which tune stopped after "
          "{:.1f} s (its warm-up and window): a figure the program prints only at its end is never seen; print "
          "it as the program goes, or time whole runs (leave out --metric and --progress)",
          settings_.metric.pattern, trial.seconds);
      outcome_.error_lines = trial.last_lines;
      return;
    }
    if (settings_.metric.kind == MetricKind::value && reader.matched() && !reader.read_any() &&
        !reader.capture_is_number() && !read_before_) {
      outcome_.error = fmt::format(
          "the pattern '{}' matched, but what it captures ({}) is no number: put the number in its first capture "
          "group, such as '([0-9.]+)it/s'",
          settings_.metric.pattern, reader.unreadable());
      outcome_.error_lines = trial.last_lines;
      return;
    }
    matched_before_ = matched_before_ || reader.matched();
    read_before_ = read_before_ || reader.read_any();
    if (outcome_.unit.empty()) outcome_.unit = reader.unit();
    result.unmeasured.clear();
    if (trial.throughput) {
      result.values.push_back(*trial.throughput);
    } else if (settings_.metric.kind == MetricKind::value && !reader.unreadable().empty() && !reader.read_any()) {
      result.unmeasured = fmt::format("its metric read {}, which is no throughput (a finite number of at least 0)",
                                      reader.unreadable());
    } else if (settings_.metric.kind == MetricKind::counter) {
      result.unmeasured = fmt::format("the training printed fewer than two progress lines in its {:.1f} s window",
                                      settings_.timing.window);
    } else if (!whole_run()) {
      result.unmeasured = fmt::format("nothing matched in its {:.1f} s window", settings_.timing.window);
    }
  }

  // The default plan's first trial counts the processes the program starts; the candidates are made again.
  void probe_children(const CandidateResult& result, const TrialResult& trial) {
    if (probed_ || result.candidate.baseline || !result.candidate.options.empty()) return;
    probed_ = true;
    inputs_.children = children_of(trial.report);
    if (inputs_.children) remake(outcome_.candidates, inputs_);
  }

  // Drops what is clearly worse than the best first trial, then keeps the contenders the budget allows.
  void drop_after_first_round() {
    std::optional<double> best;
    for (const auto& r : outcome_.candidates) {
      if (r.values.empty()) continue;
      const double v = r.values.front();
      if (!best || speedup(v, *best, settings_.metric.higher_is_better) > 1) best = v;
    }
    for (auto& r : outcome_.candidates) {
      if (best && !r.values.empty() && clearly_worse(r.values.front(), *best, settings_.metric.higher_is_better)) {
        r.dropped = true;
      }
    }
    keep_contenders(outcome_.candidates, settings_, settings_.budget - elapsed(), last_seen_);
  }

  // Successive halving: after a later round, what is clearly behind the best is dropped (stats.hpp).
  void drop_behind() {
    std::vector<Measured> measured;
    for (const auto& r : outcome_.candidates) {
      Measured m{r.values, r.candidate.simplicity(), r.failed || r.dropped};
      m.baseline = r.candidate.runs_today();
      measured.push_back(std::move(m));
    }
    for (const std::size_t i : clearly_behind(measured, settings_.metric.higher_is_better)) {
      outcome_.candidates[i].dropped = true;
    }
  }

  const Program& program_;
  CandidateInputs inputs_;
  const SearchSettings& settings_;
  procmgr::SignalRelay& relay_;
  const TrialObserver& observe_;
  SearchOutcome outcome_;
  const Clock::time_point started_ = Clock::now();
  double longest_seen_ = 0;
  double last_seen_ = 0;
  int trial_number_ = 0;
  bool probed_ = false;
  bool matched_before_ = false;
  bool read_before_ = false;
};

}  // namespace

SearchOutcome search(const Program& program, CandidateInputs inputs, const SearchSettings& settings,
                     procmgr::SignalRelay& relay, const TrialObserver& observe) {
  return Search(program, std::move(inputs), settings, relay, observe).run();
}

}  // namespace mptrain::tune
