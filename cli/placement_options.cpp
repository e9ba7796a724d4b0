#include "cli/placement_options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <optional>

#include "affinity/share_plan.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "launch/sharing.hpp"
#include "procmgr/group.hpp"
#include "util/environment.hpp"
#include "util/failure.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace mptrain::cli {

namespace {

// -n's check: a whole number of workers, or a word affinity::process_count_word accepts.
CLI::Validator process_count() {
  auto check = [number = whole_number(1, affinity::max_count)](std::string& text) -> std::string {
    const auto word = affinity::process_count_word(text);
    if (!word.ok()) return word.error().message;
    return *word == affinity::ProcessCountWord::one_per_cpu ? std::string() : number(text);
  };
  return CLI::Validator(std::move(check), fmt::format("from 1 to {}, auto or cpu", affinity::max_count));
}

// Stores the checked -n `text` in `request`: one worker per CPU, or a number.
void store_process_count(affinity::PlacementRequest& request, const std::string& text) {
  request.one_per_cpu = affinity::process_count_word(text).value_or(affinity::ProcessCountWord::number) ==
                        affinity::ProcessCountWord::one_per_cpu;
  if (!request.one_per_cpu) request.num_processes = static_cast<int>(parse_int(text).value_or(0));
}

// Registers option `names`, a whole number (INT) from `min` to `max`, stored in the std::optional<int> `target`.
CLI::Option* add_count_option(CLI::App& command, std::string names, std::optional<int>& target, long long min,
                              long long max, std::string help) {
  const auto store = [&target](int value) { target = value; };
  return command.add_option_function<int>(std::move(names), store, std::move(help))->transform(whole_number(min, max));
}

// This machine's topology and usable CPUs; a runtime Failure that names
// MPTRAIN_FSROOT when that chose where /proc and /sys were read.
affinity::Machine this_machine() {
  auto machine = affinity::read_this_machine(FsRoot::from_env());
  if (!machine.ok()) runtime_failure("{}", under_fsroot(machine.error().message));
  return std::move(machine).value();
}

}  // namespace

void add_placement_options(CLI::App& command, PlacementOptions& options) {
  auto& request = options.request;
  command
      .add_option_function<std::string>(
          "-n,--num-processes,--nproc-per-node",
          [&request](const std::string& text) { store_process_count(request, text); },
          "Worker processes M, or auto or cpu for one per usable CPU (--nproc-per-node: torchrun's name)")
      ->type_name("INT")
      ->transform(process_count())
      ->default_str("one per package")
      ->group("Placement");
  add_count_option(command, "-t,--threads-per-process", request.threads_per_process, 1, affinity::max_count,
                   "Threads per worker T")
      ->default_str("floor(N/M)")
      ->group("Placement");
  add_word_option(command, "--bind", request.bind, affinity::bind_names, "Pinning: " + names_list(affinity::bind_names))
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
  add_word_option(command, "--cpu-kind", request.cpu_kind, affinity::cpu_kind_names,
                  "Kinds of core on a hybrid CPU: performance or efficiency cores only, or all with a worker free "
                  "to mix them")
      ->default_str("every kind, one per worker, performance first")
      ->group("Placement");
  command
      .add_option("--reserve", request.reserve,
                  "PUs of each worker's set left for helper threads, handed to oneCCL and Intel MPI")
      ->transform(whole_number(0))
      ->group("Placement");
  command.add_flag("--allow-oversubscribe", options.allow_oversubscribe, "Plan M x T > N anyway (for demonstrations)")
      ->group("Placement");
  add_node_options(command, options.nodes);
}

void add_sharing_options(CLI::App& command, launch::Sharing& sharing) {
  add_word_option(command, "--when-busy", sharing.when_busy, launch::when_busy_names,
                  "When other mptrain runs leave too few free CPUs: share them (passive waits), wait for them "
                  "(a FIFO queue), or fail with exit 75")
      ->default_str("share")
      ->group("Other runs");
  command
      .add_option("--wait-timeout", sharing.wait_timeout_s,
                  "With --when-busy wait: give up (exit 75) after this long: 90, 500ms, 2s")
      ->type_name("DURATION")
      ->transform(duration(std::chrono::milliseconds(1), std::chrono::hours(24 * 365)))
      ->default_str("none")
      ->group("Other runs");
  command
      .add_flag("--ignore-others", sharing.ignore_others,
                "Plan on every usable CPU as if no other mptrain run were on the machine")
      ->group("Other runs");
}

void add_node_options(CLI::App& command, NodeOptions& options) {
  constexpr long long int_max = std::numeric_limits<int>::max();
  add_count_option(command, "--nnodes", options.nnodes, 1, int_max,
                   "Nodes K in the job: mptrain processes, one per host or per package (torchrun's name)")
      ->default_str("from mpirun, srun or PET_NNODES, else 1")
      ->group("Nodes");
  add_count_option(command, "--node-rank", options.node_rank, 0, int_max,
                   "This node's rank, 0 to K-1 (torchrun's name)")
      ->default_str("from the launcher, else 0")
      ->group("Nodes");
  add_count_option(command, "--local-rank", options.local_rank, 0, int_max,
                   "This mptrain's rank among the mptrain on its host, which split the host's CPUs (the node rank "
                   "when --master-addr is a loopback address)")
      ->default_str("from the launcher, else 0")
      ->group("Nodes");
  add_count_option(command, "--local-size", options.local_size, 1, int_max,
                   "mptrain processes on this host (K when --master-addr is a loopback address)")
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
  return value_or_fail(cluster::read_node_identity(current_environment(), options), exit_code::usage_error);
}

affinity::PlacementRequest to_request(const PlacementOptions& options) {
  affinity::PlacementRequest request = options.request;
  if (!options.cpus.empty()) {
    auto cpus = affinity::parse_cpu_selection(options.cpus);
    if (!cpus.ok()) usage_failure("--cpus: {}", cpus.error().message);
    request.cpus = std::move(cpus).value();
  }
  request.core_use = options.physical_cores ? affinity::CoreUse::physical_cores : affinity::CoreUse::all_pus;
  request.oversubscribe =
      options.allow_oversubscribe ? affinity::Oversubscribe::allow : affinity::Oversubscribe::refuse;
  return request;
}

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

affinity::Machine load_machine(const TopologyOptions& options) {
  if (!options.synthetic.empty()) {
    return value_or_fail(affinity::synthetic_machine(options.synthetic), exit_code::usage_error);
  }
  if (options.xml_file.empty()) return this_machine();
  auto machine = affinity::xml_machine(options.xml_file);
  if (!machine.ok()) runtime_failure("--topology: {}", machine.error().message);
  return std::move(machine).value();
}

NodePlan plan_node(const PlacementOptions& options, const affinity::Machine& machine) {
  auto request = to_request(options);
  auto node = read_node_identity(options.nodes);
  auto planned = value_or_fail(affinity::plan_share(machine, std::move(request), node.local_rank, node.local_size),
                               exit_code::usage_error);
  // The node's notes first: they say which CPUs the workers were planned on.
  auto& notes = planned.plan.notes;
  notes.insert(notes.begin(), node.notes.begin(), node.notes.end());
  return {std::move(node), std::move(planned.share), std::move(planned.plan)};
}

NodePlan plan_this_node(const PlacementOptions& options) { return plan_node(options, this_machine()); }

NodePlan plan_this_node(const PlacementOptions& options, launch::MachineClaim& claim, bool records,
                        const std::vector<std::string>& command, const procmgr::PendingSignals* held) {
  const auto& request = options.request;
  auto machine = this_machine();
  // What the run needs: one CPU per worker, or M x T where T was given (never more than N: it would wait forever).
  const int workers = request.one_per_cpu ? 1 : request.num_processes.value_or(1);
  const int need = std::clamp(workers * request.threads_per_process.value_or(1), 1, std::max(1, machine.usable.count));
  const auto self = launch::arriving_record(command, workers, need, !request.threads_per_process.has_value());
  auto sharing = options.sharing;
  if (sharing.wait_timeout_s > 0 && sharing.when_busy != launch::WhenBusy::wait)
    usage_failure("--wait-timeout needs --when-busy wait");
  sharing.ignore_others |= !options.cpus.empty() || read_node_identity(options.nodes).local_size > 1;
  const auto window = value_or_fail(launch::start_window(), exit_code::usage_error);
  const auto stop_signal = [held] { return held ? held->stop() : 0; };
  auto placed = claim.place(
      machine, self, sharing, window, records, [](const std::string& line) { print_notice(line); },
      [&] { return stop_signal() != 0; });
  if (const int signal = stop_signal(); signal != 0) {
    throw Failure(procmgr::ExitStatus{procmgr::ExitStatus::Kind::signaled, signal}.shell_code(),
                  fmt::format("{} while planning or waiting for free CPUs: stopped; nothing was started",
                              procmgr::signal_name(signal)));
  }
  if (!placed.ok()) throw Failure(launch::busy_exit_code, placed.error().message);
  auto node_plan = plan_node(options, placed->machine);
  auto& plan = node_plan.plan;
  plan.shares_cpus = placed->shares_cpus;
  plan.notes.insert(plan.notes.begin(), placed->notes.begin(), placed->notes.end());
  return node_plan;
}

void print_plan_notes(const affinity::Plan& plan) {
  for (const auto& note : plan.notes) print_notice(note);
}

nlohmann::json node_to_json(const NodePlan& node_plan) {
  auto out = cluster::node_json(node_plan.node);
  affinity::add_share_keys(out, node_plan.share);
  return out;
}

std::string node_line(const NodePlan& node_plan) {
  const auto& node = node_plan.node;
  if (node.single_node()) return {};
  const std::string nodes = node.node_list.empty() ? "" : fmt::format(", nodes {}", node.node_list);
  return fmt::format("node {} of {} (local {} of {}, from {}{}): CPUs {} of usable {}", node.rank, node.count,
                     node.local_rank, node.local_size, cluster::to_string(node.source), nodes,
                     node_plan.share.cpus.to_short_string(), node_plan.share.host_cpus.to_short_string());
}

}  // namespace mptrain::cli
