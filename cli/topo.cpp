// `mptrain topo`: what the machine offers and what this process may use.
#include <fmt/format.h>

#include <memory>

#include "affinity/usable_cpus.hpp"
#include "cli/commands.hpp"
#include "cli/placement_options.hpp"
#include "launch/sharing.hpp"
#include "util/failure.hpp"
#include "util/table.hpp"
#include "util/text.hpp"

namespace mptrain::cli {

namespace {

// Everything `mptrain topo` was given.
struct TopoOptions {
  TopologyOptions topology;
  bool json = false;
};

// The report's fields: a label column, then the value.
const Table fields({{"", 14, Align::left}, {"", 0, Align::left}});

std::string cgroup_text(const affinity::CgroupCpuLimits& cgroup) {
  if (cgroup.version == affinity::CgroupVersion::none) return fields.row("Cgroup:", "none found");
  std::string out = fields.row("Cgroup:", fmt::format("v{} {}", affinity::version_number(cgroup.version), cgroup.path));
  out += fields.row("  cpuset:",
                    cgroup.cpuset ? cgroup.cpuset->to_short_string() + " (" + cgroup.cpuset_file + ")" : "none");
  out += fields.row("  CPU quota:",
                    cgroup.quota_cpus
                        ? fmt::format("{} ({})", counted_amount(*cgroup.quota_cpus, "CPU"), cgroup.quota_file)
                        : "none");
  return out;
}

std::string layout_text(const affinity::Topology& topology) {
  std::string out;
  const auto caches = affinity::cache_lines(topology);
  for (std::size_t i = 0; i < caches.size(); ++i) out += fields.row(i == 0 ? "Caches:" : "", caches[i]);
  const auto kinds = affinity::kind_lines(topology);
  for (std::size_t i = 0; i < kinds.size(); ++i) out += fields.row(i == 0 ? "CPU kinds:" : "", kinds[i]);
  for (int package = 0; package < topology.packages; ++package) {
    out +=
        fmt::format("  package {}:    CPUs {}\n", package, affinity::package_cpus(topology, package).to_short_string());
  }
  for (int node : affinity::numa_node_ids(topology)) {
    out += fmt::format("  NUMA node {}:  CPUs {}\n", node, affinity::numa_node_cpus(topology, node).to_short_string());
  }
  return out;
}

std::string topo_text(const affinity::Machine& machine, const affinity::BindChoice& defaults) {
  const auto& t = machine.topology;
  const auto& u = machine.usable;
  std::string out = fields.row("Topology:", t.source) + fields.row("Packages:", t.packages) +
                    fields.row("NUMA nodes:", t.numa_nodes) + fields.row("Cores:", t.cores) +
                    fields.row("PUs:", t.pus.size()) + fields.row("L3 caches:", t.l3_caches) + layout_text(t);
  for (const auto& note : t.notes) out += "  note: " + note + "\n";
  const auto online = u.online.to_short_string();
  out += fields.row("Online CPUs:", online.empty() ? "none" : online) +
         fields.row("Affinity:", u.affinity.to_short_string());
  out += cgroup_text(u.cgroup);
  out += fields.row("Usable CPUs:", fmt::format("{} (on CPUs {}), limited by {}", u.count, u.cpus.to_short_string(),
                                                affinity::to_string(u.limited_by)));
  out += fmt::format("  {}\n", affinity::explain(u));
  out += fields.row("Default bind:", fmt::format("{} ({})", affinity::to_string(defaults.bind), defaults.reason));
  return out;
}

int run_topo(const TopoOptions& options) {
  const auto machine = load_machine(options.topology);
  const auto defaults = affinity::default_binding(machine.usable);
  // On this machine: the other live mptrain runs, and the usable CPUs they leave free.
  const bool here = options.topology.xml_file.empty() && options.topology.synthetic.empty();
  const auto runs = here ? live_runs(runs_directory()).value_or(std::vector<RunRecord>{}) : std::vector<RunRecord>{};
  auto free = machine.usable.cpus;
  for (const auto& run : runs) free = run.state == RunState::running ? free.minus(run.cpus) : free;
  if (options.json) {
    auto document = affinity::machine_json(machine, defaults);
    document["other_runs"] = launch::runs_json(runs);
    document["free_cpu_list"] = free.to_string();
    print_json(document);
  } else {
    auto text = topo_text(machine, defaults);
    text += launch::runs_listing("Other mptrain runs", runs);
    if (!runs.empty()) text += fmt::format("Free CPUs: {}\n", free.empty() ? "none" : free.to_short_string());
    print_report(text);
  }
  return exit_code::success;
}

}  // namespace

void add_topo_command(CLI::App& app, Runner& runner) {
  auto options = std::make_shared<TopoOptions>();
  auto* command =
      app.add_subcommand("topo", "Show the machine's packages, NUMA nodes, cores and PUs, and the usable CPUs N");
  add_topology_options(*command, options->topology);
  command->add_flag("--json", options->json, "Print the report as one JSON document on stdout");
  command->footer(
      "N = |online ∩ affinity ∩ cgroup cpuset|, capped by the cgroup CPU quota (rounded down, at least 1).\n"
      "MPTRAIN_FSROOT=DIR reads /proc and /sys files under DIR instead of /. See mptrain-topo(1).");
  command->callback([&runner, options] { runner = [options] { return run_topo(*options); }; });
}

}  // namespace mptrain::cli
