// `mptrain torchrun`: torchrun's command line (cluster/torchrun.hpp reads
// it) turned into a launch of run_launcher with torchrun's variables, log
// layout and error files; and, when a worker fails, torchrun's root-cause
// summary from the failed ranks' error files.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/run.hpp"
#include "cluster/torchrun.hpp"
#include "procmgr/group.hpp"

namespace mptrain::cli {

// One worker that failed, as the summary names it.
struct TorchrunFailure {
  int rank = 0;  // global: node rank x M + local rank
  int local_rank = 0;
  pid_t pid = 0;
  procmgr::ExitStatus status;
  std::filesystem::path error_file;
  std::optional<cluster::WorkerError> error;  // what the file says; nullopt when it holds nothing usable
  std::string error_problem;                  // why `error` is missing: "" when the worker wrote no file
  bool stopped = false;                       // it ended after mptrain stopped the group
};

// The failures of the last attempt of `result`: the first failed worker
// (the root cause) first, then the others that failed — on their own, or
// with an error file of their own after mptrain stopped them. Each with
// its error file in `settings.run_dir`, read when there is one.
std::vector<TorchrunFailure> torchrun_failures(const procmgr::GroupResult& result, const TorchrunSettings& settings,
                                               int node_rank);

// The summary printed on stderr: the program that failed, the root cause
// (rank, local rank, exit code or signal, pid, time, error file, message and
// traceback), then the other failures.
std::string torchrun_summary(const std::vector<TorchrunFailure>& failures, const TorchrunSettings& settings);

// The JSON of `failures`: {"root_cause": {...} or null, "failures": [...]},
// each {rank, local_rank, pid, exit_code, signal, error_file, message,
// traceback, timestamp, stopped}.
nlohmann::json torchrun_failures_json(const std::vector<TorchrunFailure>& failures);

// Local rank `rank`'s error file in attempt `restart` under `run_dir`:
// RUN_DIR/attempt_A/R/error.json.
std::filesystem::path torchrun_error_file(const std::filesystem::path& run_dir, int rank, int restart);

// The variable TORCHELASTIC_ERROR_FILE of local rank `rank` in attempt
// `restart` under `run_dir` (its folder is created, an old file removed).
std::vector<std::string> torchrun_attempt_environment(const std::filesystem::path& run_dir, int rank, int restart);

// When the failed rank of `result` could not import a module (its stderr
// says "No module named 'torch'"): which interpreter ran it, which others
// on this machine import that module (checked only then), and how to
// choose one (MPTRAIN_PYTHON), as text to append to the failure; "" otherwise.
std::string interpreter_hint(const procmgr::GroupResult& result, const TorchrunSettings& settings);

}  // namespace mptrain::cli
