// What a launch request decides for every worker, before anything starts:
// its settings (thread counts, places, the placement library, the
// allocator, memory), the group's output and stopping, whether busy threads
// are spread, the warnings to print, or a refusal. A pure function of the
// request, the plan, what the system holds (Facts, looked up by
// launch/facts_linux.cpp) and the environment: tests/launch/ checks every
// branch without a process.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "affinity/plan.hpp"
#include "launch/request.hpp"
#include "procmgr/group.hpp"
#include "procmgr/launch.hpp"
#include "util/cpu_set.hpp"
#include "util/result.hpp"

namespace mptrain::launch {

// What the machine holds that a decision needs.
struct Facts {
  Result<std::string> place_library = Error{"not looked up"};  // its path, or why it cannot be used
  Result<std::string> allocator = std::string();               // the allocator's library ("": the system's)
  Result<CpuSet> numa_nodes = Error{"not looked up"};          // online NUMA nodes, for --membind/--interleave
  std::string program_reach;  // why the placement library cannot run inside the program ("": it can)
  int launcher = 0;           // this mptrain's pid
};

// A launch refused before anything starts: its exit code and message.
struct Refusal {
  int exit_code = 0;
  std::string message;
};

// What a request decides.
struct Decision {
  std::optional<Refusal> refusal;    // set: nothing below holds
  procmgr::WorkerSettings settings;  // the tree tables are the caller's to make when place_library is set
  procmgr::GroupOptions group;       // output, stopping, restarts (the caller adds its ticks and MPI's variables)
  bool spread = false;               // give busy threads no runtime placed a PU of their own
  std::vector<std::string> warnings;
};

// Why `children` working children per worker (--children) do not fit
// workers of `threads` CPUs each (`workers` of them on `usable` CPUs): each
// needs a CPU of its own; a higher thread count where the usable CPUs leave
// room, else fewer workers, give each more (spelled as `spell` says). ""
// when they fit.
std::string children_refusal(int children, int threads, int usable, int workers,
                             const OptionSpellings& spell = run_spellings);

// The decision for `request` on `plan`, given `facts` and the workers'
// base `environment`: a usage refusal (exit 2) for --children that does not
// fit without --allow-oversubscribe, --children with --descendants leave,
// bad stream choices or NUMA nodes; a runtime refusal (exit 1) for a
// placement library --children needs and cannot have, an allocator or NUMA
// nodes that cannot be read. A missing library nothing needs is a warning.
Decision decide(const Request& request, const affinity::Plan& plan, const Facts& facts,
                const std::vector<std::string>& environment);

}  // namespace mptrain::launch
