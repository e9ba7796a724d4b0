// The JSON of affinity's results as SPEC's documents write them: a plan
// (`plan --json` and the "plan" of run's reports), its keys that run's
// reports repeat at their top level, a node's share of its host, and the
// machine of `topo --json`. Each key is written here once.
#pragma once

#include <nlohmann/json.hpp>

#include "affinity/node_share.hpp"
#include "affinity/plan.hpp"
#include "affinity/planner.hpp"

namespace mptrain::affinity {

// Writes `plan`'s shape into `object`: num_processes, threads_per_process and bind.
void add_plan_keys(nlohmann::json& object, const Plan& plan);
// Writes `worker`'s place into `object`: rank and cpus.
void add_worker_keys(nlohmann::json& object, const WorkerPlacement& worker);
// `plan` as the JSON object of SPEC "mptrain plan": the keys above, N and its
// CPUs, cpus_per_process, bind_reason, oversubscribed, unused_cpus, notes and
// the workers (package/numa_node null when a worker spans several).
nlohmann::json plan_json(const Plan& plan);
// Writes `share` into `object` (the "node" of `plan --json`): cpus,
// host_cpus, split and unused_cpus.
void add_share_keys(nlohmann::json& object, const NodeShare& share);
// `machine` as the JSON document of `topo --json`: the topology's counts and
// layout, the usable CPUs and how they were found, and `defaults`, the
// binding a plan would get.
nlohmann::json machine_json(const Machine& machine, const BindChoice& defaults);

}  // namespace mptrain::affinity
