// The search: candidates interleaved in rounds (A B C, A B C, …) so that a
// shared machine's drift falls on all of them, a clearly worse candidate
// dropped after its first trial, all within a budget of seconds.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tune/candidates.hpp"
#include "tune/metric.hpp"
#include "tune/trial.hpp"

namespace mptrain::tune {

// The program tuned.
struct Program {
  std::vector<std::string> command;   // CMD ARGS…; empty: the built-in training
  std::vector<std::string> training;  // the built-in training's own options (--train), given to every candidate
  std::string mptrain;                // the absolute path of the mptrain binary that runs the trials
};

// The seconds a trial's mptrain gives a program between SIGTERM and
// SIGKILL when tune stops it (run's own default is 10 s: a program that
// ignores SIGTERM would spend it in every trial); tune itself kills the
// trial's process group `trial_grace_margin` seconds after that.
inline constexpr double trial_grace = 2;
inline constexpr double trial_grace_margin = 2;

// The trial process's command line for `candidate` writing its output into `directory`:
// `mptrain run OPTIONS --json --log-dir DIR --redirects 3 -- CMD`, the baseline
// bare under `mptrain doctor --json -- …` (its output into DIR's rank-0 files),
// the built-in training with its progress read from mptrain's stderr and
// without --save-model (a trial never writes the user's files).
TrialCommand trial_command(const Program& program, const Candidate& candidate, const std::string& directory);

// What a user types for `candidate`: the program's command as it is for the
// baseline, else `mptrain run OPTIONS -- CMD` (each word shell-quoted).
std::string user_command(const Program& program, const Candidate& candidate);

// What was found about one candidate.
struct CandidateResult {
  Candidate candidate;
  std::vector<double> values;              // one throughput per measured trial
  int trials = 0;                          // trials run (measured or not)
  bool dropped = false;                    // clearly worse after its first trial
  bool failed = false;                     // its program failed
  int exit_code = 0;                       // the failure's exit code
  std::vector<std::string> failure_lines;  // the failed program's last lines
  std::string mptrain_error;               // mptrain's own error when it could not run the trial ("" otherwise)
  std::string verdict;                     // the monitor's verdict of its last trial ("" when none)
  std::optional<double> estimated_loss;    // the monitor's estimated throughput loss of its last trial
  std::string unmeasured;                  // why its last trial measured nothing ("" when it did)
};

// How the search goes.
struct SearchSettings {
  MetricSpec metric;
  TrialTiming timing;   // limit: unused (a whole run gets what is left of the budget)
  double budget = 120;  // seconds for the whole search
  int max_rounds = 5;
  std::string work_directory;  // an empty folder for the trials' output
};

// How the search ended.
struct SearchOutcome {
  std::vector<CandidateResult> candidates;
  int rounds = 0;                        // rounds begun
  double elapsed = 0;                    // seconds
  int stop_signal = 0;                   // a stop signal tune received (the search ended early)
  std::string error;                     // why the search could not go on ("" when it could); exit 1
  std::vector<std::string> error_lines;  // the program's last lines, for `error`
  std::vector<std::string> skipped;      // candidates not tried: the budget ran out (each once)
  std::string unit;                      // the unit a --metric's numbers were read in ("" when none followed them)
};

// Called after each trial: the candidate, its result, the trial's number.
using TrialObserver = std::function<void(const CandidateResult&, const TrialResult&, int)>;

// Runs the search over the candidates of `inputs` (the children probe —
// the default plan's first trial counts the processes the program starts —
// may add --children candidates on the way).
SearchOutcome search(const Program& program, CandidateInputs inputs, const SearchSettings& settings,
                     procmgr::SignalRelay& relay, const TrialObserver& observe);

}  // namespace mptrain::tune
