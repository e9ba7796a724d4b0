// The files of a torchrun run on disk: its run folder (made, checked for
// what the workers wrote, removed) and each worker's error file, the one
// torch.distributed.elastic's @record writes when the worker fails.
// Linux code in torchrun_files_linux.cpp.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "cluster/torchrun_launch.hpp"
#include "procmgr/group.hpp"
#include "util/result.hpp"

namespace mptrain::cluster {

// Makes the run folder `plan` describes (a unique BASE/PREFIXXXXXXX, and
// BASE first under --log-dir) and returns its path; in a dry run only the
// pattern, nothing made. An Error naming the folder (or TMPDIR) and what to
// do when it cannot be made.
Result<std::filesystem::path> make_run_folder(const RunFolderPlan& plan, bool dry_run);

// Whether a worker wrote anything under `dir`: a file that is not empty and
// not the run's lock file (a refusal before any worker started leaves only
// empty folders).
bool holds_files(const std::filesystem::path& dir);

// Removes `dir` and everything in it; an error is ignored (a temporary folder).
void remove_run_folder(const std::filesystem::path& dir);

// Local rank `rank`'s error file in attempt `restart` under `run_dir`:
// RUN_DIR/attempt_A/R/error.json.
std::filesystem::path torchrun_error_file(const std::filesystem::path& run_dir, int rank, int restart);

// The variable TORCHELASTIC_ERROR_FILE of local rank `rank` in attempt
// `restart` under `run_dir` (its folder is created, an old file removed).
std::vector<std::string> torchrun_attempt_environment(const std::filesystem::path& run_dir, int rank, int restart);

// "TORCHELASTIC_ERROR_FILE=FILE".
std::string error_file_variable(const std::filesystem::path& file);

// The settings of the launch `args` ask for: run id, role, -r/-t, the ranks
// shown, the program and its interpreter (from `environment`), and the run
// folder, made (a dry run: planned only) under `current_dir`. An Error
// when the folder cannot be made.
Result<TorchrunSettings> torchrun_settings(const TorchrunArgs& args, const std::vector<std::string>& environment,
                                           const std::filesystem::path& current_dir, bool dry_run);

// Sets torchrun's output on `group` (a launch of `world_size` workers):
// RUN_DIR/attempt_A/LOCAL_RANK/ holds the streams -r/-t name and the error
// file; the run folder goes with mptrain when temporary. An Error (a usage
// error) for a bad -r, -t or --local-ranks-filter.
Status use_torchrun_output(procmgr::GroupOptions& group, const TorchrunSettings& settings, int world_size);

}  // namespace mptrain::cluster
