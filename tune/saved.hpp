// What `mptrain tune` found, kept for `mptrain run --tuned`: one JSON file
// per command line under the user's cache directory (or a file the user
// names), with the usable CPUs and the topology it was measured on, so that
// a result from another machine or CPU set is refused rather than applied.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "affinity/planner.hpp"
#include "util/result.hpp"

namespace mptrain::tune {

// Where a result was measured: the usable CPUs (the list and N) and the topology's shape and CPU model.
struct MeasuredOn {
  std::string cpus;      // "0-1, N=2"
  std::string topology;  // "1 package, 1 NUMA node, 2 cores, 2 PUs: AMD EPYC 9B14"
  bool operator==(const MeasuredOn&) const = default;
};

// `machine`'s CPUs and topology as a result records them; `cpu_model`: /proc/cpuinfo's model name.
MeasuredOn measured_on(const affinity::Machine& machine, const std::string& cpu_model);

// One saved result.
struct SavedResult {
  std::vector<std::string> command;  // the program's words; empty: the built-in training
  MeasuredOn on;
  long long saved_at = 0;  // seconds since the epoch
  // The winner's run options (empty: the default plan); nullopt when no launch beat the baseline.
  std::optional<std::vector<std::string>> winner;
  std::optional<double> speedup;  // the winner's over the baseline
  std::string decision;           // the report's sentence
};

nlohmann::json to_json(const SavedResult& result);
// An Error naming what is missing when `document` is no saved result.
Result<SavedResult> saved_result_of(const nlohmann::json& document);

// The file name of `command`'s result in the cache directory: a hash of its words, hex, ".json".
std::string saved_file_name(const std::vector<std::string>& command);

// The folder of saved results: $XDG_CACHE_HOME/mptrain/tune, else
// $HOME/.cache/mptrain/tune (`xdg_cache`, `home`: those variables, "" when
// unset); "" when neither is set.
std::string saved_directory(const std::string& xdg_cache, const std::string& home);

// saved_directory from XDG_CACHE_HOME and HOME in `environment` ("NAME=VALUE" entries).
std::string saved_directory(const std::vector<std::string>& environment);
// The file of `command`'s result in saved_directory(environment); "" when there is none.
std::string saved_path(const std::vector<std::string>& command, const std::vector<std::string>& environment);

// Writes `result` to `path` (through a temporary file renamed over it; the
// folder made, mode 0700, when missing); an Error naming the path.
Result<bool> save_result(const SavedResult& result, const std::string& path);
// Reads the result in `path`; an Error naming it when it cannot be read or is no result.
Result<SavedResult> load_result(const std::string& path);
// Every result in `directory` with its path, newest first (unreadable files skipped).
std::vector<std::pair<std::string, SavedResult>> list_results(const std::string& directory);

// How long ago `saved_at` was, at `now`: "40 s", "5 min", "3 h", "2 days".
std::string age_text(long long saved_at, long long now);

// What `run --tuned` applies from `result` on a machine where it runs on
// `here`: the winner's options ({} for the default plan when no launch beat
// the baseline); an Error (a usage error) when it was measured on another
// CPU set or topology, saying which and what to do.
Result<std::vector<std::string>> tuned_options(const SavedResult& result, const MeasuredOn& here);

}  // namespace mptrain::tune
