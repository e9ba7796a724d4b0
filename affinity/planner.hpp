// The placement planner: a pure function from a topology, the usable CPUs
// and a request to a Plan, so its tests need no processes and no machine.
//
// Placement (bind core): the usable PUs are split into M sets of T, spread
// evenly over packages, then over NUMA nodes, L3 caches and cores inside each
// package, so a worker's PUs sit together; a worker that fits in no single
// package takes leftover PUs in logical order. With bind numa (package) each
// worker is placed the same way, then given every usable CPU of the NUMA
// node(s) (package(s)) its placement touches: workers placed on the same node
// share all of its CPUs. With bind none every worker gets all usable CPUs.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "affinity/plan.hpp"
#include "affinity/topology.hpp"
#include "affinity/usable_cpus.hpp"
#include "util/fs.hpp"
#include "util/result.hpp"

namespace mptrain::affinity {

// Plans `request` over the PUs of `topology` that `usable` allows; an Error
// explaining the refusal and what to do instead otherwise (a usage error:
// M×T > N without Oversubscribe::allow, --reserve ≥ T, --cpus naming an
// object `topology` lacks or no usable CPU).
Result<Plan> make_plan(const Topology& topology, const UsableCpus& usable, const PlacementRequest& request);

// A binding and why it was chosen.
struct BindChoice {
  Bind bind = Bind::core;
  std::string reason;
};

// The binding a plan gets when --bind is not given: none when the CPU quota
// is what limits N (the CPUs are not ours alone), core otherwise.
BindChoice default_binding(const UsableCpus& usable);

// A machine to plan for: its topology and the CPUs this process may use.
struct Machine {
  Topology topology;
  UsableCpus usable;
};

// This machine: the live hwloc topology and the usable CPUs read under
// `root`; an Error (a runtime failure) when either cannot be read.
Result<Machine> read_this_machine(const FsRoot& root);
// The machine of hwloc synthetic description `description`, every PU
// usable; an Error as load_synthetic_topology gives (a usage error).
Result<Machine> synthetic_machine(std::string_view description);
// The largest hwloc XML file xml_machine reads: that of a machine of 8,192
// PUs with its caches and devices is a few megabytes.
inline constexpr std::size_t max_topology_bytes = std::size_t{64} << 20;
// The machine of hwloc XML file `file` (`lstopo --of xml`), every PU usable;
// an Error naming the file when it is not a readable regular file of at most
// max_topology_bytes, or hwloc's when it rejects the document.
Result<Machine> xml_machine(const std::filesystem::path& file);

}  // namespace mptrain::affinity
