#include "tune/report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "util/text.hpp"

namespace mptrain::tune {
namespace {

// The widest bar of the table.
constexpr int bar_width = 24;

std::string number(double value) { return fmt::format("{:.4g}", value); }

nlohmann::json or_null(const std::optional<double>& value) { return value ? nlohmann::json(*value) : nullptr; }

// A line of a program's output for the report: printable, at most 160 characters.
std::string quoted_line(std::string_view line) {
  constexpr std::size_t longest = 160;
  if (line.size() <= longest) return printable(line);
  return printable(line.substr(0, longest)) + fmt::format("… ({} more characters)", line.size() - longest);
}

// The candidates as the statistics see them; a count of lines in a window
// of `window` seconds can show no finer difference than one line.
std::vector<Measured> measured_of(const SearchOutcome& outcome, const MetricSpec& metric, double window) {
  std::vector<Measured> list;
  for (const auto& c : outcome.candidates) {
    Measured m{c.values, c.candidate.simplicity(), c.failed};
    m.baseline = c.candidate.runs_today();
    if (metric.kind == MetricKind::lines && !c.values.empty() && window > 0) {
      const double fewest = *std::min_element(c.values.begin(), c.values.end()) * window;
      m.resolution = fewest > 0 ? 1 / fewest : 1;
    }
    list.push_back(std::move(m));
  }
  return list;
}

}  // namespace

std::string unit_of(const MetricSpec& metric, std::string_view seen) {
  switch (metric.kind) {
    case MetricKind::value:
      return seen.empty() ? "metric" : std::string(seen);
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
      decision_(decide(measured_of(outcome, metric_, window_s), metric_.higher_is_better,
                       metric_.kind == MetricKind::whole_run)) {}

bool Report::all_failed() const {
  return std::all_of(outcome_.candidates.begin(), outcome_.candidates.end(),
                     [](const CandidateResult& c) { return c.failed || c.trials == 0; });
}

bool Report::all_refused() const {
  return all_failed() &&
         std::all_of(outcome_.candidates.begin(), outcome_.candidates.end(),
                     [](const CandidateResult& c) { return c.trials == 0 || !c.mptrain_error.empty(); });
}

std::optional<std::size_t> Report::baseline() const {
  for (std::size_t i = 0; i < outcome_.candidates.size(); ++i) {
    if (outcome_.candidates[i].candidate.runs_today()) return i;
  }
  return std::nullopt;
}

std::string Report::unit() const { return unit_of(metric_, outcome_.unit); }

std::optional<double> Report::speedup_of(std::size_t i) const {
  const auto base = baseline();
  if (!base || outcome_.candidates[*base].values.empty() || outcome_.candidates[i].values.empty()) return std::nullopt;
  return speedup(median(outcome_.candidates[i].values), median(outcome_.candidates[*base].values),
                 metric_.higher_is_better);
}

std::optional<double> Report::measured_loss() const {
  const auto base = baseline();
  if (decision_.ranking.empty() || !base || !std::count(decision_.ranking.begin(), decision_.ranking.end(), *base)) {
    return std::nullopt;
  }
  const auto gain = speedup_of(decision_.ranking.front());
  return gain && *gain > 0 ? std::optional(std::max(0.0, 1 - 1 / *gain)) : std::nullopt;
}

nlohmann::json Report::candidate_json(std::size_t i) const {
  const CandidateResult& c = outcome_.candidates[i];
  nlohmann::json throughput = nullptr;
  if (!c.values.empty()) {
    const Spread s = spread_of(c.values);
    throughput = {{"median", s.median}, {"min", s.min}, {"max", s.max}, {"unit", unit()}};
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
  if (!c.unmeasured.empty()) document["unmeasured"] = c.unmeasured;
  if (!c.mptrain_error.empty()) document["mptrain_error"] = c.mptrain_error;
  return document;
}

nlohmann::json Report::json() const {
  nlohmann::json candidates = nlohmann::json::array();
  for (std::size_t i = 0; i < outcome_.candidates.size(); ++i) candidates.push_back(candidate_json(i));
  const auto base = baseline();
  nlohmann::json interrupted = nullptr;
  if (outcome_.stop_signal != 0) interrupted = outcome_.stop_signal;
  nlohmann::json tied = nlohmann::json::array();
  if (any_measured()) {
    for (const std::size_t i : decision_.tied) tied.push_back(candidate_json(i));
  }
  return {{"baseline", base ? candidate_json(*base) : nlohmann::json(nullptr)},
          {"candidates", std::move(candidates)},
          {"winner", decision_.winner ? candidate_json(*decision_.winner) : nlohmann::json(nullptr)},
          {"decision", decision_.why},
          {"tied", std::move(tied)},
          {"simplest_tied", any_measured() ? candidate_json(decision_.simplest_tied) : nlohmann::json(nullptr)},
          {"noise", or_null(decision_.noise)},
          {"measured_throughput_loss", or_null(measured_loss())},
          {"metric", {{"kind", unit()}, {"pattern", metric_.pattern}, {"higher_is_better", metric_.higher_is_better}}},
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
  if (!std::isfinite(best)) best = 0;
  std::vector<std::size_t> order = decision_.ranking;
  for (std::size_t i = 0; i < outcome_.candidates.size(); ++i) {
    if (std::find(order.begin(), order.end(), i) == order.end()) order.push_back(i);
  }
  for (const std::size_t i : order) {
    const CandidateResult& c = outcome_.candidates[i];
    const std::string verdict = c.verdict.empty() ? "-" : c.verdict;
    const std::string loss = c.estimated_loss ? percent(*c.estimated_loss) : "-";
    const bool ranked = std::count(decision_.ranking.begin(), decision_.ranking.end(), i) != 0;
    if (!ranked) {
      const std::string what = !c.mptrain_error.empty() ? "mptrain could not run it"
                               : c.failed               ? fmt::format("failed with exit code {}", c.exit_code)
                               : c.trials == 0          ? "not tried"
                                                        : "not measured";
      text += fmt::format("  {:<30} {:<41} {:<15} {:>5} {:>6}\n", printable(c.candidate.label()), what, verdict, loss,
                          c.trials);
      continue;
    }
    const Spread s = spread_of(c.values);
    const double rate = metric_.higher_is_better ? s.median : (s.median > 0 ? 1 / s.median : 0);
    const double share_of_best = best > 0 && std::isfinite(rate) ? std::clamp(rate / best, 0.0, 1.0) : 0.0;
    const auto bar = static_cast<std::size_t>(std::lround(bar_width * share_of_best));
    const auto gain = speedup_of(i);
    text +=
        fmt::format("  {:<30} {:>10} {:>10} {:>10} {:>8}  {:<15} {:>5} {:>6}{}  {}\n", printable(c.candidate.label()),
                    number(s.median), number(s.min), number(s.max), gain ? fmt::format("{:.2f}x", *gain) : "-", verdict,
                    loss, c.trials, c.dropped ? " (dropped)" : "", std::string(bar, '#'));
  }
  return text;
}

std::string Report::why_unmeasured() const {
  std::string text;
  for (const CandidateResult& c : outcome_.candidates) {
    if (c.failed && !c.mptrain_error.empty()) {
      text += fmt::format("{}: mptrain could not run it: {}\n", printable(c.candidate.label()),
                          quoted_line(c.mptrain_error));
    } else if (c.failed) {
      text += fmt::format("{} failed with exit code {}{}\n", printable(c.candidate.label()), c.exit_code,
                          c.failure_lines.empty() ? "" : "; its last lines:");
      const std::size_t from = c.failure_lines.size() > 3 ? c.failure_lines.size() - 3 : 0;
      for (std::size_t k = from; k < c.failure_lines.size(); ++k) text += "  " + quoted_line(c.failure_lines[k]) + "\n";
    } else if (c.values.empty() && !c.unmeasured.empty()) {
      text += fmt::format("{} was not measured: {}\n", printable(c.candidate.label()), c.unmeasured);
    }
  }
  return text;
}

std::string Report::conclusion() const {
  std::string text;
  if (decision_.noise) text += fmt::format("noise between rounds: {:.1f}%\n", 100 * *decision_.noise);
  if (decision_.ranking.empty()) return text + "no candidate was measured\n";
  const auto label = [&](std::size_t i) { return printable(outcome_.candidates[i].candidate.label()); };
  const auto command = [&](std::size_t i) { return user_command(program_, outcome_.candidates[i].candidate); };
  if (decision_.winner) {
    const auto gain = speedup_of(*decision_.winner);
    text += fmt::format("winner: {}{}: {}\n  {}\n", label(*decision_.winner),
                        gain ? fmt::format(", {:.2f}x the baseline", *gain) : "", decision_.why,
                        command(*decision_.winner));
    if (decision_.tied.size() > 1) {
      std::vector<std::string> labels;
      for (const std::size_t i : decision_.tied) labels.push_back(label(i));
      text += fmt::format("the top {} are within the noise of each other ({}); the simplest is {}\n  {}\n",
                          decision_.tied.size(), fmt::join(labels, ", "), label(decision_.simplest_tied),
                          command(decision_.simplest_tied));
    }
  } else {
    text += fmt::format("no measurable difference: {}; the simplest of the tied is {}\n  {}\n", decision_.why,
                        label(decision_.simplest_tied), command(decision_.simplest_tied));
  }
  if (const auto base = baseline(); base && outcome_.candidates[*base].estimated_loss) {
    const auto measured = measured_loss();
    std::string found = "nothing (the baseline was not measured)";
    if (measured && decision_.winner) {
      found = percent(*measured) + " (the baseline against the best)";
    } else if (measured) {
      found = percent(*measured) + " (the baseline against the best), within the noise";
    }
    text += fmt::format("the monitor estimated the baseline's throughput loss at {}; tune measured {}\n",
                        percent(*outcome_.candidates[*base].estimated_loss), found);
  }
  return text;
}

std::string Report::text() const {
  std::string head = fmt::format("mptrain tune: {} in {}, {:.0f} s of a {:.0f} s budget; throughput in {}\n",
                                 counted(static_cast<long long>(outcome_.candidates.size()), "candidate"),
                                 counted(outcome_.rounds, "round"), outcome_.elapsed, budget_s_, unit());
  if (!outcome_.skipped.empty()) {
    head += fmt::format("not tried, the budget ran out first: {}\n", fmt::join(outcome_.skipped, ", "));
  }
  if (outcome_.stop_signal != 0) head += "the search was interrupted: what it measured so far\n";
  return head + table() + why_unmeasured() + conclusion();
}

std::string Report::error_text() const {
  std::string text = outcome_.error;
  if (!outcome_.error_lines.empty()) {
    text += "; the program's last lines:";
    for (const auto& line : outcome_.error_lines) text += "\n  " + quoted_line(line);
  }
  return text;
}

}  // namespace mptrain::tune
