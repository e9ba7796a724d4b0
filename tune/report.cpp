#include "tune/report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "util/text.hpp"

namespace mptrain::tune {
namespace {

// The widest bar of the table.
constexpr int bar_width = 24;

std::string number(double value) { return fmt::format("{:.4g}", value); }

nlohmann::json or_null(const std::optional<double>& value) { return value ? nlohmann::json(*value) : nullptr; }

// The candidates as the statistics see them; a count of lines in a window
// of `window` seconds can show no finer difference than one line.
std::vector<Measured> measured_of(const SearchOutcome& outcome, const MetricSpec& metric, double window) {
  std::vector<Measured> list;
  for (const auto& c : outcome.candidates) {
    Measured m{c.values, c.candidate.simplicity(), c.failed};
    if (metric.kind == MetricKind::lines && !c.values.empty() && window > 0) {
      const double fewest = *std::min_element(c.values.begin(), c.values.end()) * window;
      m.resolution = fewest > 0 ? 1 / fewest : 1;
    }
    list.push_back(std::move(m));
  }
  return list;
}

}  // namespace

std::string unit_of(const MetricSpec& metric) {
  switch (metric.kind) {
    case MetricKind::value:
      return "metric";
    case MetricKind::lines:
      return "lines/s";
    case MetricKind::counter:
      return "samples/s";
    case MetricKind::whole_run:
      break;
  }
  return "s";
}

std::string dry_run_text(const Program& program, const std::vector<Candidate>& candidates) {
  std::string text = fmt::format(
      "mptrain tune would try {} (the --children K candidates of a program that starts "
      "its own workers are added after the default plan's first trial):\n",
      counted(static_cast<long long>(candidates.size()), "candidate"));
  for (const auto& c : candidates) {
    text += fmt::format("  {:<28} {:<16} {}\n", c.label(), to_string(c.origin), user_command(program, c));
  }
  return text;
}

nlohmann::json dry_run_json(const Program& program, const std::vector<Candidate>& candidates) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& c : candidates) {
    list.push_back({{"label", c.label()},
                    {"options", c.options},
                    {"baseline", c.baseline},
                    {"origin", to_string(c.origin)},
                    {"command", user_command(program, c)}});
  }
  return {{"candidates", std::move(list)}};
}

Report::Report(Program program, const SearchOutcome& outcome, MetricSpec metric, double budget_s, double window_s)
    : program_(std::move(program)),
      outcome_(outcome),
      metric_(std::move(metric)),
      budget_s_(budget_s),
      decision_(decide(measured_of(outcome, metric_, window_s), metric_.higher_is_better)) {}

bool Report::all_failed() const {
  return std::all_of(outcome_.candidates.begin(), outcome_.candidates.end(),
                     [](const CandidateResult& c) { return c.failed || c.trials == 0; });
}

std::optional<std::size_t> Report::baseline() const {
  for (std::size_t i = 0; i < outcome_.candidates.size(); ++i) {
    const auto& c = outcome_.candidates[i].candidate;
    if (c.baseline || c.origin == Origin::baseline) return i;
  }
  return std::nullopt;
}

std::optional<double> Report::speedup_of(std::size_t i) const {
  const auto base = baseline();
  if (!base || outcome_.candidates[*base].values.empty() || outcome_.candidates[i].values.empty()) return std::nullopt;
  return speedup(median(outcome_.candidates[i].values), median(outcome_.candidates[*base].values),
                 metric_.higher_is_better);
}

std::optional<double> Report::measured_loss() const {
  if (!decision_.winner) return std::nullopt;
  const auto gain = speedup_of(*decision_.winner);
  return gain && *gain > 0 ? std::optional(std::max(0.0, 1 - 1 / *gain)) : std::nullopt;
}

nlohmann::json Report::candidate_json(std::size_t i) const {
  const CandidateResult& c = outcome_.candidates[i];
  nlohmann::json throughput = nullptr;
  if (!c.values.empty()) {
    const Spread s = spread_of(c.values);
    throughput = {{"median", s.median}, {"min", s.min}, {"max", s.max}, {"unit", unit_of(metric_)}};
  }
  nlohmann::json document{{"label", c.candidate.label()},
                          {"options", c.candidate.options},
                          {"baseline", c.candidate.baseline},
                          {"origin", to_string(c.candidate.origin)},
                          {"command", user_command(program_, c.candidate)},
                          {"throughput", throughput},
                          {"values", c.values},
                          {"speedup", or_null(speedup_of(i))},
                          {"verdict", c.verdict.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.verdict)},
                          {"estimated_throughput_loss", or_null(c.estimated_loss)},
                          {"trials", c.trials},
                          {"dropped", c.dropped},
                          {"failed", c.failed}};
  if (c.failed) {
    document["exit_code"] = c.exit_code;
    document["failure_lines"] = c.failure_lines;
  }
  return document;
}

nlohmann::json Report::json() const {
  nlohmann::json candidates = nlohmann::json::array();
  for (std::size_t i = 0; i < outcome_.candidates.size(); ++i) candidates.push_back(candidate_json(i));
  const auto base = baseline();
  nlohmann::json interrupted = nullptr;
  if (outcome_.stop_signal != 0) interrupted = outcome_.stop_signal;
  return {{"baseline", base ? candidate_json(*base) : nlohmann::json(nullptr)},
          {"candidates", std::move(candidates)},
          {"winner", decision_.winner ? candidate_json(*decision_.winner) : nlohmann::json(nullptr)},
          {"decision", decision_.why},
          {"simplest_tied", decision_.winner ? nlohmann::json(nullptr) : candidate_json(decision_.simplest_tied)},
          {"noise", or_null(decision_.noise)},
          {"measured_throughput_loss", or_null(measured_loss())},
          {"metric",
           {{"kind", unit_of(metric_)}, {"pattern", metric_.pattern}, {"higher_is_better", metric_.higher_is_better}}},
          {"rounds", outcome_.rounds},
          {"skipped", outcome_.skipped},
          {"interrupted_by_signal", interrupted},
          {"budget_seconds", budget_s_},
          {"elapsed_seconds", outcome_.elapsed}};
}

std::string Report::table() const {
  std::string text = fmt::format("  {:<30} {:>10} {:>10} {:>10} {:>8}  {:<15} {:>5} {:>6}\n", "CANDIDATE", "MEDIAN",
                                 "MIN", "MAX", "SPEEDUP", "VERDICT", "LOSS", "TRIALS");
  double best = 0;
  for (const std::size_t i : decision_.ranking) {
    const double m = median(outcome_.candidates[i].values);
    best = std::max(best, metric_.higher_is_better ? m : (m > 0 ? 1 / m : 0));
  }
  std::vector<std::size_t> order = decision_.ranking;
  for (std::size_t i = 0; i < outcome_.candidates.size(); ++i) {
    if (std::find(order.begin(), order.end(), i) == order.end()) order.push_back(i);
  }
  for (const std::size_t i : order) {
    const CandidateResult& c = outcome_.candidates[i];
    const std::string verdict = c.verdict.empty() ? "-" : c.verdict;
    const std::string loss = c.estimated_loss ? percent(*c.estimated_loss) : "-";
    if (c.values.empty()) {
      const std::string what = c.failed ? fmt::format("failed with exit code {}", c.exit_code) : "not measured";
      text += fmt::format("  {:<30} {:<41} {:<15} {:>5} {:>6}\n", c.candidate.label(), what, verdict, loss, c.trials);
      continue;
    }
    const Spread s = spread_of(c.values);
    const double rate = metric_.higher_is_better ? s.median : (s.median > 0 ? 1 / s.median : 0);
    const auto bar = static_cast<std::size_t>(best > 0 ? std::lround(bar_width * rate / best) : 0);
    const auto gain = speedup_of(i);
    text += fmt::format("  {:<30} {:>10} {:>10} {:>10} {:>8}  {:<15} {:>5} {:>6}{}  {}\n", c.candidate.label(),
                        number(s.median), number(s.min), number(s.max), gain ? fmt::format("{:.2f}x", *gain) : "-",
                        verdict, loss, c.trials, c.dropped ? " (dropped)" : "", std::string(bar, '#'));
  }
  return text;
}

std::string Report::conclusion() const {
  std::string text;
  if (decision_.noise) text += fmt::format("noise between rounds: {:.1f}%\n", 100 * *decision_.noise);
  if (decision_.ranking.empty()) return text + "no candidate was measured\n";
  if (decision_.winner) {
    const auto& winner = outcome_.candidates[*decision_.winner];
    const auto gain = speedup_of(*decision_.winner);
    text += fmt::format("winner: {}{}: {}\n  {}\n", winner.candidate.label(),
                        gain ? fmt::format(", {:.2f}x the baseline", *gain) : "", decision_.why,
                        user_command(program_, winner.candidate));
  } else {
    const auto& simplest = outcome_.candidates[decision_.simplest_tied];
    text += fmt::format("no measurable difference: {}; the simplest of the tied is {}\n  {}\n", decision_.why,
                        simplest.candidate.label(), user_command(program_, simplest.candidate));
  }
  if (const auto base = baseline(); base && outcome_.candidates[*base].estimated_loss) {
    const auto measured = measured_loss();
    text += fmt::format("the monitor estimated the baseline's throughput loss at {}; tune measured {}\n",
                        percent(*outcome_.candidates[*base].estimated_loss),
                        measured ? percent(*measured) + " (the baseline against the winner)" : "no measurable loss");
  }
  return text;
}

std::string Report::text() const {
  std::string head = fmt::format("mptrain tune: {} in {}, {:.0f} s of a {:.0f} s budget; throughput in {}\n",
                                 counted(static_cast<long long>(outcome_.candidates.size()), "candidate"),
                                 counted(outcome_.rounds, "round"), outcome_.elapsed, budget_s_, unit_of(metric_));
  if (!outcome_.skipped.empty()) {
    head += fmt::format("not tried, the budget ran out first: {}\n", fmt::join(outcome_.skipped, ", "));
  }
  if (outcome_.stop_signal != 0) head += "the search was interrupted: what it measured so far\n";
  return head + table() + conclusion();
}

std::string Report::error_text() const {
  std::string text = outcome_.error;
  if (!outcome_.error_lines.empty()) {
    text += "; the program's last lines:";
    for (const auto& line : outcome_.error_lines) text += "\n  " + printable(line);
  }
  return text;
}

}  // namespace mptrain::tune
