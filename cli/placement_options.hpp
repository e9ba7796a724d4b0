// The placement options shared by `plan` and `run` (SPEC "mptrain plan").
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "affinity/json.hpp"
#include "affinity/node_share.hpp"
#include "affinity/plan.hpp"
#include "affinity/planner.hpp"
#include "cluster/identity.hpp"
#include "launch/sharing.hpp"
#include "procmgr/signals.hpp"
#include "util/run_registry.hpp"

namespace mptrain::cli {

// Which node this mptrain is, as typed on the command line (SPEC "Beyond one
// machine"); run copies its launcher's --master-addr into master_addr.
using NodeOptions = cluster::NodeRequest;

// Placement options as typed on the command line.
struct PlacementOptions {
  affinity::PlacementRequest request;  // -n, -t, --bind and --reserve as given
  std::string cpus;                    // --cpus as typed, parsed by to_request
  bool physical_cores = false;
  bool allow_oversubscribe = false;
  NodeOptions nodes;
  launch::Sharing sharing;  // --when-busy, --wait-timeout, --ignore-others
};

// Registers -n, -t, --bind, --cpus, --physical-cores, --reserve and
// --allow-oversubscribe, and the node options, on `command`, storing into `options`.
void add_placement_options(CLI::App& command, PlacementOptions& options);

// Registers --when-busy, --wait-timeout and --ignore-others (the group "Other runs") on a launch `command`.
void add_sharing_options(CLI::App& command, launch::Sharing& sharing);

// Registers --nnodes, --node-rank, --local-rank and --local-size (the group "Nodes") on `command`.
void add_node_options(CLI::App& command, NodeOptions& options);
// Registers --master-addr in the group "Nodes" on `command`, for a command
// (plan) that has no launcher option of that name.
void add_master_addr_option(CLI::App& command, NodeOptions& options);

// This mptrain's node identity from its environment and `options`; throws a
// usage Failure when they are malformed or disagree.
cluster::NodeIdentity read_node_identity(const NodeOptions& options);

// The planner request for `options`; throws a usage Failure for a bad --cpus list.
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

// A plan made on this node's share of its host: who this mptrain is, which
// of the host's CPUs it takes, and its workers' placement on them.
struct NodePlan {
  cluster::NodeIdentity node;
  affinity::NodeShare share;
  affinity::Plan plan;  // planned on share.cpus; its notes start with the node's and the share's
};

// The plan for `options` on this node's share of `machine` (the node read
// from the environment and `options.nodes`); throws a usage Failure when the
// node cannot be read, the host cannot be shared or the request cannot be planned.
NodePlan plan_node(const PlacementOptions& options, const affinity::Machine& machine);

// The plan for `options` on this node's share of this machine (usable CPUs
// read under MPTRAIN_FSROOT); throws a runtime Failure when the machine
// cannot be read and a usage Failure as plan_node does.
NodePlan plan_this_node(const PlacementOptions& options);

// plan_this_node on the part of this machine `claim` gives (the usable CPUs
// the other live runs leave, launch/sharing.hpp), saying so in the plan's
// notes; waits or fails as --when-busy says (a Failure with
// launch::busy_exit_code). On every usable CPU when --cpus chose, when this
// host's mptrain processes split it themselves (a local size above 1) or
// with --ignore-others. `records`: the run will hold its CPUs (not a dry
// run); `command`: what it runs (empty: the built-in training). A stop
// signal `held` holds (Ctrl-C while it waits) ends it with the signal's
// Failure (128 + signal), its record removed and nothing started.
NodePlan plan_this_node(const PlacementOptions& options, launch::MachineClaim& claim, bool records,
                        const std::vector<std::string>& command, const procmgr::PendingSignals* held = nullptr);
// Prints each of `plan`'s notes on stderr as "mptrain: note: …": run's
// modes show them so (plan shows them in its report), so a default that was
// assumed ("--node-rank not given: this is node 0") or CPUs ignored are
// never silent; how a default chose M or T (plan.choices) is left out: the
// run's report gives M x T.
void print_plan_notes(const affinity::Plan& plan);

using affinity::plan_table;
using affinity::workers_by_threads;
// The node of `node_plan` as the JSON object `node` of `plan --json`: rank,
// count, local_rank, local_size, source, cpus and how they were chosen.
nlohmann::json node_to_json(const NodePlan& node_plan);
// "node 1 of 2 (local 1 of 2, from Open MPI): CPUs 1 of usable 0-1"; "" for a single node.
std::string node_line(const NodePlan& node_plan);

}  // namespace mptrain::cli
