// How one of several mptrain on a host takes its share of the host's usable
// CPUs (SPEC "Beyond one machine"), before planning its workers on that
// share. A pure function of the topology, the usable CPUs and the local rank
// and size, so synthetic topologies test it.
//
// With local size S and local rank L: the whole host when S is 1; package L
// when S equals the number of packages holding usable CPUs (the seeds' "one
// process per socket"); otherwise the L-th of S contiguous, equal shares of
// the usable CPUs in topology order (floor division; the remainder is left
// unused and reported). A process the launcher already bound to a strict
// subset of the host's usable CPUs (mpirun binds each rank by default) keeps
// that subset: its neighbours' CPUs are already out of its mask.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "affinity/topology.hpp"
#include "affinity/usable_cpus.hpp"
#include "util/cpu_set.hpp"
#include "util/result.hpp"

namespace mptrain::affinity {

// How a node's share was chosen.
enum class ShareKind {
  whole_host,     // the only mptrain on its host: every usable CPU
  package,        // one package each: as many mptrain as packages with usable CPUs
  equal_share,    // one of S contiguous, equal shares in topology order
  already_bound,  // bound by the launcher to a subset of the host: taken as it is
};

// "whole host", "package", "equal share" or "already bound".
std::string_view to_string(ShareKind kind);

// One mptrain's share of its host.
struct NodeShare {
  CpuSet cpus;       // the CPUs this mptrain plans its workers on
  CpuSet host_cpus;  // the host's usable CPUs, before the split
  CpuSet unused;     // CPUs of host_cpus that no local rank gets
  ShareKind kind = ShareKind::whole_host;
  std::optional<double> quota_cpus;  // this mptrain's part of the cgroup's CPU quota; nullopt: no quota
  std::vector<std::string> notes;    // how the share was chosen, for `plan` to show
};

// The share of local rank `local_rank` of `local_size` (0 <= rank < size)
// of the CPUs of `topology` that `usable` allows — of those in `only` when
// it is set (the CPUs --cpus selects, so the mptrain on a host share the
// selection); an Error (a usage error) when the host has fewer usable CPUs
// than mptrain processes or none of them is in `topology` and `only`.
Result<NodeShare> node_share(const Topology& topology, const UsableCpus& usable, int local_rank, int local_size,
                             const std::optional<CpuSet>& only = std::nullopt);

// `usable` narrowed to `share`: its CPUs, its part of the quota, and N recounted from them.
UsableCpus usable_share(const UsableCpus& usable, const NodeShare& share);

}  // namespace mptrain::affinity
