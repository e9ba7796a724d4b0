#include "cli/placement_options.hpp"

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "util/environment.hpp"
#include "util/failure.hpp"
#include "util/fs.hpp"

namespace mptrain::cli {

namespace {

// The most workers or threads per worker -n and -t accept.
constexpr long long max_count = 1 << 20;

// -n's check: a whole number of workers, or torchrun's auto and cpu (one
// per usable CPU, handed on as PlacementOptions::one_per_cpu).
CLI::Validator process_count() {
  auto number = whole_number(1, max_count);
  auto check = [number](std::string& text) -> std::string {
    if (text == "auto" || text == "cpu") {
      text = std::to_string(PlacementOptions::one_per_cpu);
      return {};
    }
    if (text == "gpu" || text == "xpu") {
      return fmt::format(
          "{} counts {}s, and mptrain runs CPU workers: give a number of workers, or auto or cpu for one per "
          "usable CPU",
          text, text == "gpu" ? "GPU" : "XPU");
    }
    return number(text);
  };
  return CLI::Validator(std::move(check), fmt::format("from 1 to {}, auto or cpu", max_count));
}

}  // namespace

void add_placement_options(CLI::App& command, PlacementOptions& options) {
  command
      .add_option("-n,--num-processes,--nproc-per-node", options.num_processes,
                  "Worker processes M, or auto or cpu for one per usable CPU (--nproc-per-node: torchrun's name)")
      ->transform(process_count())
      ->default_str("one per package")
      ->group("Placement");
  command.add_option("-t,--threads-per-process", options.threads_per_process, "Threads per worker T")
      ->transform(whole_number(1, max_count))
      ->default_str("floor(N/M)")
      ->group("Placement");
  command.add_option("--bind", options.bind, "Pinning: " + names_list(affinity::bind_names))
      ->check(one_of(affinity::bind_names))
      ->default_str("core")
      ->group("Placement");
  command
      .add_option("--cpus", options.cpus,
                  "Use only these CPUs: a list such as 0-3,8 or 0-15:2, or hwloc locations such as core:0-3, "
                  "numa:1, package:0.core:0-1 (words separated by spaces are united)")
      ->check(non_empty())
      ->group("Placement");
  command.add_flag("--physical-cores", options.physical_cores, "Use one PU (hardware thread) per core")
      ->group("Placement");
  command.add_option("--reserve", options.reserve, "PUs of each worker's set left for helper threads")
      ->transform(whole_number(0))
      ->group("Placement");
  command.add_flag("--allow-oversubscribe", options.allow_oversubscribe, "Plan M x T > N anyway (for demonstrations)")
      ->group("Placement");
  add_node_options(command, options.nodes);
}

void add_node_options(CLI::App& command, NodeOptions& options) {
  command
      .add_option("--nnodes", options.nnodes,
                  "Nodes K in the job: mptrain processes, one per host or per package (torchrun's name)")
      ->transform(whole_number(1))
      ->default_str("from mpirun, srun or PET_NNODES, else 1")
      ->group("Nodes");
  command.add_option("--node-rank", options.node_rank, "This node's rank, 0 to K-1 (torchrun's name)")
      ->transform(whole_number(0))
      ->default_str("from the launcher, else 0")
      ->group("Nodes");
  command
      .add_option("--local-rank", options.local_rank,
                  "This mptrain's rank among the mptrain on its host, which split the host's CPUs (the node rank "
                  "when --master-addr is a loopback address)")
      ->transform(whole_number(0))
      ->default_str("from the launcher, else 0")
      ->group("Nodes");
  command
      .add_option("--local-size", options.local_size,
                  "mptrain processes on this host (K when --master-addr is a loopback address)")
      ->transform(whole_number(1))
      ->default_str("from the launcher, else 1")
      ->group("Nodes");
}

void add_master_addr_option(CLI::App& command, NodeOptions& options) {
  command
      .add_option("--master-addr", options.master_addr,
                  "Node 0's address; a loopback address (127.0.0.1, localhost, ::1) puts every node on this host")
      ->check(non_empty())
      ->group("Nodes");
}

cluster::NodeIdentity read_node_identity(const NodeOptions& options) {
  cluster::NodeRequest request;
  if (options.nnodes > 0) request.nnodes = options.nnodes;
  if (options.node_rank >= 0) request.node_rank = options.node_rank;
  if (options.local_rank >= 0) request.local_rank = options.local_rank;
  if (options.local_size > 0) request.local_size = options.local_size;
  request.master_addr = options.master_addr;
  return value_or_fail(cluster::read_node_identity(current_environment(), request), exit_code::usage_error);
}

affinity::PlacementRequest to_request(const PlacementOptions& options) {
  affinity::PlacementRequest request;
  if (options.num_processes > 0) request.num_processes = options.num_processes;
  request.one_per_cpu = options.num_processes == PlacementOptions::one_per_cpu;
  if (options.threads_per_process > 0) request.threads_per_process = options.threads_per_process;
  if (!options.bind.empty()) request.bind = value_or_fail(affinity::parse_bind(options.bind), exit_code::usage_error);
  if (!options.cpus.empty()) {
    auto cpus = affinity::parse_cpu_selection(options.cpus);
    if (!cpus.ok()) usage_failure("--cpus: {}", cpus.error().message);
    request.cpus = std::move(cpus).value();
  }
  request.core_use = options.physical_cores ? affinity::CoreUse::physical_cores : affinity::CoreUse::all_pus;
  request.reserve = options.reserve;
  request.oversubscribe =
      options.allow_oversubscribe ? affinity::Oversubscribe::allow : affinity::Oversubscribe::refuse;
  return request;
}

namespace {

nlohmann::json index_or_null(int index) { return index < 0 ? nlohmann::json(nullptr) : nlohmann::json(index); }

std::string index_or_dash(int index) { return index < 0 ? "-" : std::to_string(index); }

std::string or_dash(const std::string& text) { return text.empty() ? "-" : text; }

// What `plan` shows: the remarks, then how defaults chose M and T.
std::vector<std::string> all_notes(const affinity::Plan& plan) {
  std::vector<std::string> notes = plan.notes;
  notes.insert(notes.end(), plan.choices.begin(), plan.choices.end());
  return notes;
}

// This machine's topology and usable CPUs; a runtime Failure that names
// MPTRAIN_FSROOT when that chose where /proc and /sys were read.
affinity::Machine this_machine() {
  auto machine = affinity::read_this_machine(FsRoot::from_env());
  if (!machine.ok()) runtime_failure("{}", under_fsroot(machine.error().message));
  return std::move(machine).value();
}

}  // namespace

void add_topology_options(CLI::App& command, TopologyOptions& options) {
  auto* xml = command
                  .add_option("--topology", options.xml_file,
                              "Plan for the machine in this hwloc XML file (lstopo --of xml FILE); all its PUs count "
                              "as usable")
                  ->check(non_empty())
                  ->group("Topology");
  auto* synthetic = command
                        .add_option("--topology-synthetic", options.synthetic,
                                    "Plan for a synthetic machine such as \"package:2 core:8 pu:2\"; all its PUs "
                                    "count as usable")
                        ->check(non_empty())
                        ->group("Topology");
  xml->excludes(synthetic);
  synthetic->excludes(xml);
}

// The largest --topology file read: hwloc's XML of a machine of 8,192 PUs
// with its caches and devices is a few megabytes.
constexpr std::size_t max_topology_bytes = std::size_t{64} << 20;

affinity::Machine load_machine(const TopologyOptions& options) {
  if (!options.synthetic.empty()) {
    auto topology = value_or_fail(affinity::load_synthetic_topology(options.synthetic), exit_code::usage_error);
    auto usable = affinity::usable_cpus_of(topology);
    return {std::move(topology), std::move(usable)};
  }
  if (!options.xml_file.empty()) {
    auto xml = read_regular_file(options.xml_file, max_topology_bytes);
    if (!xml.ok()) runtime_failure("--topology: {}", xml.error().message);
    auto topology = affinity::load_xml_topology(*xml, options.xml_file);
    if (!topology.ok()) runtime_failure("--topology: {}", topology.error().message);
    auto usable = affinity::usable_cpus_of(*topology);
    return {std::move(topology).value(), std::move(usable)};
  }
  return this_machine();
}

NodePlan plan_node(const PlacementOptions& options, const affinity::Machine& machine) {
  auto request = to_request(options);
  NodePlan out;
  out.node = read_node_identity(options.nodes);
  // --cpus restricts the host before it is split, so the mptrain on it share the selection.
  std::optional<CpuSet> only;
  if (request.cpus && out.node.local_size > 1) {
    auto selected = affinity::resolve_cpu_selection(*request.cpus, machine.topology);
    if (!selected.ok()) usage_failure("--cpus: {}", selected.error().message);
    only = std::move(selected).value();
    request.cpus.reset();
  }
  auto share = affinity::node_share(machine.topology, machine.usable, out.node.local_rank, out.node.local_size, only);
  if (!share.ok()) usage_failure("{}{}", only ? fmt::format("--cpus {}: ", options.cpus) : "", share.error().message);
  out.share = std::move(share).value();
  out.plan =
      value_or_fail(affinity::make_plan(machine.topology, affinity::usable_share(machine.usable, out.share), request),
                    exit_code::usage_error);
  // The node's notes first: they say which CPUs the workers were planned on.
  std::vector<std::string> notes = out.node.notes;
  notes.insert(notes.end(), out.share.notes.begin(), out.share.notes.end());
  notes.insert(notes.end(), out.plan.notes.begin(), out.plan.notes.end());
  out.plan.notes = std::move(notes);
  return out;
}

NodePlan plan_this_node(const PlacementOptions& options) { return plan_node(options, this_machine()); }

void print_plan_notes(const affinity::Plan& plan) {
  for (const auto& note : plan.notes) print_notice(note);
}

affinity::Plan plan_for_this_machine(const PlacementOptions& options) { return plan_this_node(options).plan; }

nlohmann::json plan_to_json(const affinity::Plan& plan) {
  nlohmann::json workers = nlohmann::json::array();
  for (const auto& worker : plan.workers) {
    workers.push_back({{"rank", worker.rank},
                       {"cpus", worker.cpus.to_string()},
                       {"package", index_or_null(worker.package)},
                       {"numa_node", index_or_null(worker.numa_node)},
                       {"threads", worker.threads}});
  }
  return {{"usable_cpus", plan.usable_cpus},
          {"usable_cpu_list", plan.usable_cpu_list.to_string()},
          {"num_processes", plan.num_processes},
          {"threads_per_process", plan.threads_per_process},
          {"cpus_per_process", plan.cpus_per_process},
          {"bind", affinity::to_string(plan.bind)},
          {"bind_reason", plan.bind_reason},
          {"oversubscribed", plan.oversubscribed},
          {"unused_cpus", plan.unused_cpus.to_string()},
          {"workers", std::move(workers)},
          {"notes", all_notes(plan)}};
}

std::string workers_by_threads(const affinity::Plan& plan) {
  return fmt::format("{} x {}", counted(plan.num_processes, "worker"), counted(plan.threads_per_process, "thread"));
}

std::string plan_table(const affinity::Plan& plan) {
  std::string out = fmt::format("{} on N = {} ({}), bind {}{}\n", workers_by_threads(plan),
                                counted(plan.usable_cpus, "usable CPU"), plan.usable_cpu_list.to_string(),
                                affinity::to_string(plan.bind), plan.oversubscribed ? ", OVERSUBSCRIBED" : "");
  out += fmt::format("  bind: {}\n\n", plan.bind_reason);
  out += fmt::format("{:>4}  {:<24}  {:>7}  {:>9}  {:>7}\n", "RANK", "CPUS", "PACKAGE", "NUMA NODE", "THREADS");
  for (const auto& worker : plan.workers) {
    out += fmt::format("{:>4}  {:<24}  {:>7}  {:>9}  {:>7}\n", worker.rank, worker.cpus.to_string(),
                       index_or_dash(worker.package), index_or_dash(worker.numa_node), worker.threads);
  }
  out += fmt::format("\nunused CPUs: {}\n", or_dash(plan.unused_cpus.to_string()));
  for (const auto& note : all_notes(plan)) out += "note: " + note + "\n";
  return out;
}

nlohmann::json node_to_json(const NodePlan& node_plan) {
  const auto& node = node_plan.node;
  const auto& share = node_plan.share;
  return {{"rank", node.rank},
          {"count", node.count},
          {"local_rank", node.local_rank},
          {"local_size", node.local_size},
          {"source", cluster::to_string(node.source)},
          {"local_source", node.local_source},
          {"node_list", node.node_list.empty() ? nlohmann::json(nullptr) : nlohmann::json(node.node_list)},
          {"cpus", share.cpus.to_string()},
          {"host_cpus", share.host_cpus.to_string()},
          {"split", affinity::to_string(share.kind)},
          {"unused_cpus", share.unused.to_string()}};
}

std::string node_line(const NodePlan& node_plan) {
  const auto& node = node_plan.node;
  if (node.single_node()) return {};
  const std::string nodes = node.node_list.empty() ? "" : fmt::format(", nodes {}", node.node_list);
  return fmt::format("node {} of {} (local {} of {}, from {}{}): CPUs {} of usable {}", node.rank, node.count,
                     node.local_rank, node.local_size, cluster::to_string(node.source), nodes,
                     node_plan.share.cpus.to_string(), node_plan.share.host_cpus.to_string());
}

}  // namespace mptrain::cli
