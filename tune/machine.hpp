// What the candidates are made from on this machine: N, the default plan's
// process count, SMT, the installed allocators; and the doctor's pointer to
// tune.
#pragma once

#include <string>
#include <vector>

#include "affinity/planner.hpp"
#include "tune/candidates.hpp"
#include "util/fs.hpp"

namespace mptrain::tune {

// The machine's part of the candidates' inputs: N and SMT from `machine`,
// the default plan's M from the planner, the allocators found under `root`.
// An Error when the default plan cannot be made.
Result<CandidateInputs> machine_inputs(const affinity::Machine& machine, const FsRoot& root);

// The CPU's model name (/proc/cpuinfo's first "model name" under `root`); "" when none is given.
std::string cpu_model(const FsRoot& root);

// The line a diagnosis that is costly or uncertain ends with: how to measure
// which launch is fastest, `mptrain tune -- CMD` (the command shell-quoted;
// "CMD" when it is not known).
std::string measure_hint(const std::vector<std::string>& command);
// `mptrain tune -- CMD` for `command` (shell-quoted; "CMD" when empty), the command of measure_hint.
std::string tune_command(const std::vector<std::string>& command);

}  // namespace mptrain::tune
