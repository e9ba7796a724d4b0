// What `mptrain tune` says: the ranked table, the winner (or why none) and
// its command, the doctor's estimate beside the loss measured, as text or
// as the JSON document of the contract.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "tune/search.hpp"
#include "tune/stats.hpp"

namespace mptrain::tune {

// The unit of a throughput: "samples/s", "lines/s", "s" (a whole run), or
// for a --metric the unit its numbers were read in (`seen`: "step/s",
// "it/s", "s/it"), "metric" when none followed them.
std::string unit_of(const MetricSpec& metric, std::string_view seen = {});

// `--dry-run`: the candidates and their commands, as text or JSON.
std::string dry_run_text(const Program& program, const std::vector<Candidate>& candidates);
nlohmann::json dry_run_json(const Program& program, const std::vector<Candidate>& candidates);

class Report {
 public:
  // `window_s`: the seconds each windowed trial measured.
  Report(Program program, const SearchOutcome& outcome, MetricSpec metric, double budget_s, double window_s);

  // The table, the decision and the winner's command.
  std::string text() const;
  // The contract's document: baseline, candidates, winner, noise, budget_seconds, elapsed_seconds, …
  nlohmann::json json() const;
  // The search's error with the program's last lines.
  std::string error_text() const;
  bool any_measured() const { return !decision_.ranking.empty(); }
  bool all_failed() const;
  // Whether mptrain itself could not run any trial (each failed candidate's error is mptrain's).
  bool all_refused() const;

 private:
  nlohmann::json candidate_json(std::size_t i) const;
  std::string table() const;
  // Why each failed or unmeasured candidate was: its exit code and last lines, or the reason.
  std::string why_unmeasured() const;
  std::string conclusion() const;
  std::string unit() const;
  std::optional<double> speedup_of(std::size_t i) const;
  std::optional<std::size_t> baseline() const;
  // The baseline's loss measured against the best: 1 − baseline/best.
  std::optional<double> measured_loss() const;

  Program program_;
  const SearchOutcome& outcome_;
  MetricSpec metric_;
  double budget_s_;
  Decision decision_;
};

}  // namespace mptrain::tune
