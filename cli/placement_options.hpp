// The placement options shared by `plan` and `run` (SPEC "mptrain plan").
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "affinity/plan.hpp"
#include "affinity/planner.hpp"

namespace mptrain::cli {

// Placement options as typed on the command line.
struct PlacementOptions {
  int num_processes = 0;        // 0: not given
  int threads_per_process = 0;  // 0: not given
  std::string bind;
  std::string cpus;
  bool physical_cores = false;
  int reserve = 0;
  bool allow_oversubscribe = false;
};

// Registers -n, -t, --bind, --cpus, --physical-cores, --reserve and
// --allow-oversubscribe on `command`, storing into `options`.
void add_placement_options(CLI::App& command, PlacementOptions& options);

// The planner request for `options`; throws a usage Failure for a bad
// --bind name or --cpus list.
affinity::PlacementRequest to_request(const PlacementOptions& options);

// Where `plan` and `topo` take the machine from, as typed on the command line.
struct TopologyOptions {
  std::string xml_file;   // --topology FILE.xml
  std::string synthetic;  // --topology-synthetic "package:2 core:8 pu:2"
};

// Registers --topology and --topology-synthetic (mutually exclusive) on `command`.
void add_topology_options(CLI::App& command, TopologyOptions& options);

// The machine `options` name, with every PU usable, or this machine with the
// CPUs this process may use (read under MPTRAIN_FSROOT); throws a usage
// Failure for a bad description and a runtime Failure for unreadable input.
affinity::Machine load_machine(const TopologyOptions& options);

// The plan for `options` on this machine (usable CPUs read under
// MPTRAIN_FSROOT); throws a runtime Failure when the machine cannot be read
// and a usage Failure when the request cannot be planned.
affinity::Plan plan_for_this_machine(const PlacementOptions& options);

// `plan` as the JSON object of SPEC "mptrain plan" (package/numa_node null when a worker spans several).
nlohmann::json plan_to_json(const affinity::Plan& plan);
// The shape of `plan` in words: "4 workers x 8 threads", "1 worker x 1 thread".
std::string workers_by_threads(const affinity::Plan& plan);
// `plan` as a human-readable summary and table: rank, CPUs, package, NUMA node, threads.
std::string plan_table(const affinity::Plan& plan);

}  // namespace mptrain::cli
