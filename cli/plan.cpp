// `mptrain plan`: computes the placement for M workers without running anything.
#include <fmt/format.h>

#include <memory>

#include "cli/commands.hpp"
#include "cli/placement_options.hpp"
#include "util/failure.hpp"

namespace mptrain::cli {

namespace {

// Everything `mptrain plan` was given.
struct PlanOptions {
  PlacementOptions placement;
  TopologyOptions topology;
  bool json = false;
};

int run_plan(const PlanOptions& options) {
  const auto request = to_request(options.placement);
  const auto machine = load_machine(options.topology);
  const auto plan =
      value_or_fail(affinity::make_plan(machine.topology, machine.usable, request), exit_code::usage_error);
  if (options.json) {
    auto document = plan_to_json(plan);
    document["topology"] = machine.topology.source;
    print_json(document);
  } else {
    print_report(fmt::format("Topology: {}\n{}", machine.topology.source, plan_table(plan)));
  }
  return exit_code::success;
}

}  // namespace

void add_plan_command(CLI::App& app, Runner& runner) {
  auto options = std::make_shared<PlanOptions>();
  auto* command = app.add_subcommand("plan", "Show where M workers and their threads would run, without running them");
  add_placement_options(*command, options->placement);
  add_topology_options(*command, options->topology);
  command->add_flag("--json", options->json, "Print the plan as one JSON document on stdout");
  command->footer(
      "Example: mptrain plan -n 4 --topology-synthetic \"package:2 core:8 pu:2\"\n"
      "With --topology or --topology-synthetic every PU of that machine counts as usable.\nSee mptrain-plan(1).");
  command->callback([&runner, options] { runner = [options] { return run_plan(*options); }; });
}

}  // namespace mptrain::cli
