// What a finished launch reports: the workers' table, the threads it
// spread, the pools the programs sized, the monitor's verdict and advice,
// as text or one JSON document (SPEC "mptrain run -- CMD").
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "affinity/plan.hpp"
#include "cluster/identity.hpp"
#include "cluster/torchrun_failures.hpp"
#include "cluster/torchrun_launch.hpp"
#include "monitor/advice.hpp"
#include "monitor/run_monitor.hpp"
#include "procmgr/group.hpp"
#include "procmgr/launch.hpp"
#include "procmgr/launch_report.hpp"

namespace mptrain::launch {

// A finished launch: its plan, result, monitor, the --children advice and the pools the programs sized.
struct Report {
  const affinity::Plan& plan;
  const procmgr::GroupResult& result;
  const monitor::RunMonitor& monitor;
  std::optional<monitor::ChildrenAdvice> advice;
  std::vector<procmgr::PoolRecord> pools;
  cluster::NodeIdentity node;  // this mptrain's node (0 of 1 alone): its document says which it is
};

// Adds to a run's --json `document` (with `workers` whose `rank` is local)
// the node it ran on — `node` (cluster::node_json, and `host`) — and each
// worker's `global_rank`: node rank × `workers_per_node` + local rank, the
// rank its lines are tagged with, so documents from several nodes (one per
// rank under mpirun) never look alike.
void add_node_keys(nlohmann::json& document, const cluster::NodeIdentity& node, int workers_per_node);

// The workers of `result` with their pids and the CPUs `plan` gave them.
std::vector<monitor::LaunchedWorker> launched_workers(const affinity::Plan& plan, const procmgr::GroupResult& result);

// The report as text: the workers' table, the threads spread, the pools and the monitor's lines.
std::string report_text(const Report& report);

// The --json document of `report` for `command`: the result's keys, the
// plan's, the advice, the spread threads and the monitor's; with
// `torchrun`, its run id, log folder and `failures`.
nlohmann::json report_json(const Report& report, const std::vector<std::string>& command,
                           const cluster::TorchrunSettings* torchrun,
                           const std::vector<cluster::TorchrunFailure>& failures);

// The warnings after the report: processes that inherited one CPU of a
// worker's several because the placement library did not run (`settings`
// without one, `asked` why); none when OpenMP's places were not set or nothing was pinned.
std::vector<std::string> unplaced_warnings(const Report& report, const procmgr::WorkerSettings& settings,
                                           procmgr::Descendants asked);

}  // namespace mptrain::launch
