// `mptrain plan`: computes the placement for M workers without running anything.
#include <fmt/format.h>

#include <memory>

#include "cli/commands.hpp"
#include "cli/placement_options.hpp"
#include "launch/sharing.hpp"
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
  to_request(options.placement);  // a bad --cpus list is a usage error before the machine is read
  const auto machine = load_machine(options.topology);
  // On this machine, the plan is made beside the other live runs, as `run` would make it.
  const bool here = options.topology.xml_file.empty() && options.topology.synthetic.empty();
  std::string unshared;
  auto claim = here ? launch::MachineClaim::open(runs_directory(), unshared)
                    : launch::MachineClaim::without_others(runs_directory());
  if (!unshared.empty()) print_warning(unshared);
  const auto node_plan =
      here ? plan_this_node(options.placement, claim, false, {}) : plan_node(options.placement, machine);
  if (options.json) {
    auto document = affinity::plan_json(node_plan.plan);
    document["topology"] = machine.topology.source;
    document["node"] = node_to_json(node_plan);
    document["other_runs"] = launch::runs_json(claim.others());
    print_json(document);
  } else {
    const auto node = node_line(node_plan);
    print_report(fmt::format("Topology: {}\n{}{}", machine.topology.source, node.empty() ? "" : node + "\n",
                             plan_table(node_plan.plan)));
  }
  return exit_code::success;
}

}  // namespace

void add_plan_command(CLI::App& app, Runner& runner) {
  auto options = std::make_shared<PlanOptions>();
  auto* command = app.add_subcommand("plan", "Show where M workers and their threads would run, without running them");
  add_placement_options(*command, options->placement);
  command->add_flag("--ignore-others", options->placement.sharing.ignore_others,
                    "Plan on every usable CPU, as if no other mptrain run were on the machine");
  add_master_addr_option(*command, options->placement.nodes);
  add_topology_options(*command, options->topology);
  command->add_flag("--json", options->json, "Print the plan as one JSON document on stdout");
  command->footer(
      "Example: mptrain plan -n 4 --topology-synthetic \"package:2 core:8 pu:2\"\n"
      "Under mpirun or srun, or with --nnodes, the plan is for this node's share of the host.\n"
      "With --topology or --topology-synthetic every PU of that machine counts as usable.\nSee mptrain-plan(1).");
  command->callback([&runner, options] { runner = [options] { return run_plan(*options); }; });
}

}  // namespace mptrain::cli
