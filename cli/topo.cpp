// `mptrain topo`: what the machine offers and what this process may use.
#include <fmt/core.h>

#include <memory>

#include "affinity/usable_cpus.hpp"
#include "cli/commands.hpp"
#include "cli/placement_options.hpp"
#include "util/failure.hpp"

namespace mptrain::cli {

namespace {

// Everything `mptrain topo` was given.
struct TopoOptions {
  TopologyOptions topology;
  bool json = false;
};

template <class T>
nlohmann::json optional_json(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

nlohmann::json cgroup_json(const affinity::CgroupCpuLimits& cgroup) {
  const int version = affinity::version_number(cgroup.version);
  std::optional<std::string> cpuset;
  if (cgroup.cpuset) cpuset = cgroup.cpuset->to_string();
  return {{"version", version == 0 ? nlohmann::json(nullptr) : nlohmann::json(version)},
          {"path", cgroup.path.empty() ? nlohmann::json(nullptr) : nlohmann::json(cgroup.path)},
          {"cpuset", optional_json(cpuset)},
          {"cpuset_file", cgroup.cpuset_file.empty() ? nlohmann::json(nullptr) : nlohmann::json(cgroup.cpuset_file)},
          {"quota_cpus", optional_json(cgroup.quota_cpus)},
          {"quota_file", cgroup.quota_file.empty() ? nlohmann::json(nullptr) : nlohmann::json(cgroup.quota_file)}};
}

nlohmann::json layout_json(const affinity::Topology& topology) {
  nlohmann::json nodes = nlohmann::json::array();
  for (int node : affinity::numa_node_ids(topology)) {
    nodes.push_back({{"numa_node", node}, {"cpus", affinity::numa_node_cpus(topology, node).to_string()}});
  }
  nlohmann::json packages = nlohmann::json::array();
  for (int package = 0; package < topology.packages; ++package) {
    packages.push_back({{"package", package}, {"cpus", affinity::package_cpus(topology, package).to_string()}});
  }
  return {{"package_cpus", std::move(packages)}, {"numa_node_cpus", std::move(nodes)}};
}

nlohmann::json topo_json(const affinity::Machine& machine, const affinity::BindChoice& defaults) {
  const auto& t = machine.topology;
  const auto& u = machine.usable;
  nlohmann::json out = {{"topology", t.source},
                        {"packages", t.packages},
                        {"numa_nodes", t.numa_nodes},
                        {"cores", t.cores},
                        {"pus", static_cast<int>(t.pus.size())},
                        {"l3_caches", t.l3_caches},
                        {"online_cpus", u.online.to_string()},
                        {"affinity_cpus", u.affinity.to_string()},
                        {"cgroup", cgroup_json(u.cgroup)},
                        {"usable_cpus", u.count},
                        {"usable_cpu_list", u.cpus.to_string()},
                        {"limited_by", affinity::to_string(u.limited_by)},
                        {"explanation", affinity::explain(u)},
                        {"default_bind", affinity::to_string(defaults.bind)},
                        {"bind_reason", defaults.reason}};
  out.update(layout_json(t));
  return out;
}

std::string or_none(const std::string& text) { return text.empty() ? "none" : text; }

std::string cgroup_text(const affinity::CgroupCpuLimits& cgroup) {
  if (cgroup.version == affinity::CgroupVersion::none) return "none found\n";
  std::string out = fmt::format("v{} {}\n", affinity::version_number(cgroup.version), cgroup.path);
  out +=
      fmt::format("  cpuset:       {}\n",
                  cgroup.cpuset ? cgroup.cpuset->to_string() + " (" + cgroup.cpuset_file + ")" : std::string("none"));
  out += fmt::format("  CPU quota:    {}\n", cgroup.quota_cpus
                                                 ? fmt::format("{:g} CPUs ({})", *cgroup.quota_cpus, cgroup.quota_file)
                                                 : std::string("none"));
  return out;
}

std::string layout_text(const affinity::Topology& topology) {
  std::string out;
  for (int package = 0; package < topology.packages; ++package) {
    out += fmt::format("  package {}:    CPUs {}\n", package, affinity::package_cpus(topology, package).to_string());
  }
  for (int node : affinity::numa_node_ids(topology)) {
    out += fmt::format("  NUMA node {}:  CPUs {}\n", node, affinity::numa_node_cpus(topology, node).to_string());
  }
  return out;
}

std::string topo_text(const affinity::Machine& machine, const affinity::BindChoice& defaults) {
  const auto& t = machine.topology;
  const auto& u = machine.usable;
  std::string out = fmt::format("Topology:       {}\n", t.source);
  out += fmt::format("Packages:       {}\nNUMA nodes:     {}\nCores:          {}\n", t.packages, t.numa_nodes, t.cores);
  out += fmt::format("PUs:            {}\nL3 caches:      {}\n", t.pus.size(), t.l3_caches);
  out += layout_text(t);
  out += fmt::format("Online CPUs:    {}\nAffinity:       {}\n", or_none(u.online.to_string()), u.affinity.to_string());
  out += "Cgroup:         " + cgroup_text(u.cgroup);
  out += fmt::format("Usable CPUs:    {} (on CPUs {}), limited by {}\n", u.count, u.cpus.to_string(),
                     affinity::to_string(u.limited_by));
  out += fmt::format("  {}\n", affinity::explain(u));
  out += fmt::format("Default bind:   {} ({})\n", affinity::to_string(defaults.bind), defaults.reason);
  return out;
}

int run_topo(const TopoOptions& options) {
  const auto machine = load_machine(options.topology);
  const auto defaults = affinity::default_binding(machine.usable);
  if (options.json) {
    print_json(topo_json(machine, defaults));
  } else {
    print_report(topo_text(machine, defaults));
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
