#include "launch/layout.hpp"
#include "util/fs.hpp"
#include "util/pinning.hpp"

namespace mptrain::launch {

procmgr::LaunchLayout launch_layout(const affinity::Plan& plan) {
  procmgr::LaunchLayout layout;
  for (const auto& placement : plan.workers)
    layout.workers.push_back({placement.rank, placement.cpus, placement.numa_node, placement.reserved});
  layout.pinned = plan.bind != affinity::Bind::none;
  layout.online_nodes = read_online_nodes(FsRoot::from_env()).value_or(CpuSet());
  return layout;
}

std::vector<procmgr::WorkerSpec> worker_specs(const affinity::Plan& plan) {
  return procmgr::pinned_specs(launch_layout(plan));
}

}  // namespace mptrain::launch
