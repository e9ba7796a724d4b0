// torchrun's root-cause summary: the workers of a failed group with what
// their error files say (cluster/torchrun_files.hpp), as text and JSON, and
// the hint when a script's interpreter could not import a module.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cluster/torchrun.hpp"
#include "procmgr/group.hpp"

namespace mptrain::cluster {

// One worker that failed, as the summary names it.
struct TorchrunFailure {
  int rank = 0;  // global: node rank x M + local rank
  int local_rank = 0;
  pid_t pid = 0;
  procmgr::ExitStatus status;
  std::filesystem::path error_file;
  std::optional<WorkerError> error;  // what the file says; nullopt when it holds nothing usable
  std::string error_problem;         // why `error` is missing: "" when the worker wrote no file
  bool stopped = false;              // it ended after mptrain stopped the group
};

// The failures of the last attempt of `result`: the first failed worker
// (the root cause) first, then the others that failed — on their own, or
// with an error file of their own after mptrain stopped them. Each with
// its error file in `run_dir`, read when there is one.
std::vector<TorchrunFailure> torchrun_failures(const procmgr::GroupResult& result, const std::filesystem::path& run_dir,
                                               int node_rank);

// The summary printed on stderr: the program that failed (`program`, run
// `run_id`), the root cause (rank, local rank, exit code or signal, pid,
// time, error file, message and traceback), then the other failures; "" for none.
std::string torchrun_summary(const std::vector<TorchrunFailure>& failures, std::string_view program,
                             std::string_view run_id);

// The JSON of `failures`: {"root_cause": {...} or null, "failures": [...]},
// each {rank, local_rank, pid, exit_code, signal, error_file, message,
// traceback, timestamp, stopped}.
nlohmann::json torchrun_failures_json(const std::vector<TorchrunFailure>& failures);

// When the failed rank of `result` could not import a module (its stderr
// says "No module named 'torch'") under `interpreter` ("" for --no-python):
// which interpreter ran it, which others in the PATH of `environment` import
// that module (checked only then), and how to choose one (MPTRAIN_PYTHON),
// as text to append to the failure; "" otherwise.
std::string interpreter_hint(const procmgr::GroupResult& result, const std::string& interpreter,
                             const std::vector<std::string>& environment);

}  // namespace mptrain::cluster
