// The workers of a plan as procmgr starts them.
#pragma once

#include <vector>

#include "affinity/plan.hpp"
#include "procmgr/launch.hpp"

namespace mptrain::launch {

// The workers of `plan` as procmgr launches them, with this machine's NUMA
// nodes (read under MPTRAIN_FSROOT; none without NUMA support).
procmgr::LaunchLayout launch_layout(const affinity::Plan& plan);

// procmgr::pinned_specs of `plan`: one worker per placement, pinned and its
// memory bound to its node unless the binding is none; the caller adds what runs.
std::vector<procmgr::WorkerSpec> worker_specs(const affinity::Plan& plan);

}  // namespace mptrain::launch
