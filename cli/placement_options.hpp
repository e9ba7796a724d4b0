// The placement options shared by `plan` and `run` (SPEC "mptrain plan").
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "affinity/plan.hpp"

namespace mptrain::cli {

// Placement options as typed on the command line.
struct PlacementOptions {
  int num_processes = 0;  // 0: not given
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

}  // namespace mptrain::cli
