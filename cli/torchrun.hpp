// `mptrain torchrun`: torchrun's command line (read by cluster/torchrun.hpp, translated by
// cluster/torchrun_launch.hpp) wired into run_launcher with torchrun's variables, log layout
// and error files; when a worker fails, torchrun's summary (cluster/torchrun_failures.hpp).
#pragma once

#include <string>
#include <vector>

#include "cli/run.hpp"
#include "cluster/torchrun_failures.hpp"
#include "cluster/torchrun_files.hpp"
#include "procmgr/group.hpp"

namespace mptrain::cli {

using cluster::torchrun_attempt_environment;
using cluster::torchrun_error_file;
using cluster::torchrun_failures_json;
using TorchrunFailure = cluster::TorchrunFailure;

// The failures of `result`'s last attempt, error files in `settings.run_dir` (cluster::torchrun_failures).
std::vector<TorchrunFailure> torchrun_failures(const procmgr::GroupResult& result, const TorchrunSettings& settings,
                                               int node_rank);

// The root-cause summary of `failures` for the run of `settings` (cluster::torchrun_summary).
std::string torchrun_summary(const std::vector<TorchrunFailure>& failures, const TorchrunSettings& settings);

// The hint when the failed rank's interpreter could not import a module (cluster::interpreter_hint).
std::string interpreter_hint(const procmgr::GroupResult& result, const TorchrunSettings& settings);

}  // namespace mptrain::cli
