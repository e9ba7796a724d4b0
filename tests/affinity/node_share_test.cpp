#include "affinity/node_share.hpp"

#include <catch2/catch.hpp>
#include <string>

#include "affinity/planner.hpp"
#include "tests/affinity/helpers.hpp"

using namespace mptrain;
using namespace mptrain::affinity;
using namespace mptrain::affinity::testing;

namespace {

// Two packages of 4 cores of 2 PUs: CPUs 0-7 and 8-15.
NodeShare share_of(const Topology& topology, const UsableCpus& usable, int local_rank, int local_size) {
  auto share = node_share(topology, usable, local_rank, local_size);
  INFO((share.ok() ? std::string() : share.error().message));
  REQUIRE(share.ok());
  return std::move(share).value();
}

NodeShare share_of_only(const Topology& topology, const UsableCpus& usable, int local_rank, int local_size,
                        const CpuSet& only) {
  auto share = node_share(topology, usable, local_rank, local_size, only);
  INFO((share.ok() ? std::string() : share.error().message));
  REQUIRE(share.ok());
  return std::move(share).value();
}

NodeShare share_of(const Topology& topology, int local_rank, int local_size) {
  return share_of(topology, usable_cpus_of(topology), local_rank, local_size);
}

CpuSet cpus(const char* list) { return CpuSet::parse(list).value(); }

bool share_has_note(const NodeShare& share, const std::string& text) {
  for (const auto& note : share.notes) {
    if (note.find(text) != std::string::npos) return true;
  }
  return false;
}

UsableCpus usable(const char* online, const char* affinity, CgroupCpuLimits cgroup = {}) {
  auto out = combine_usable_cpus(cpus(online), cpus(affinity), std::move(cgroup));
  REQUIRE(out.ok());
  return std::move(out).value();
}

}  // namespace

TEST_CASE("the only mptrain on a host gets every usable CPU", "[affinity][node_share]") {
  const auto share = share_of(topology_of("package:2 core:4 pu:2"), 0, 1);
  CHECK(share.kind == ShareKind::whole_host);
  CHECK(share.cpus == cpus("0-15"));
  CHECK(share.host_cpus == cpus("0-15"));
  CHECK(share.unused.empty());
}

TEST_CASE("as many mptrain as packages get one package each", "[affinity][node_share]") {
  const auto topology = topology_of("package:2 core:4 pu:2");
  const auto first = share_of(topology, 0, 2);
  const auto second = share_of(topology, 1, 2);
  CHECK(first.kind == ShareKind::package);
  CHECK(first.cpus == cpus("0-7"));
  CHECK(second.cpus == cpus("8-15"));
  CHECK(second.host_cpus == cpus("0-15"));
  CHECK(second.unused.empty());
}

TEST_CASE("other counts get contiguous, equal shares, the remainder unused", "[affinity][node_share]") {
  const auto topology = topology_of("package:2 core:4 pu:2");
  CHECK(share_of(topology, 0, 3).cpus == cpus("0-4"));
  CHECK(share_of(topology, 1, 3).cpus == cpus("5-9"));
  const auto last = share_of(topology, 2, 3);
  CHECK(last.kind == ShareKind::equal_share);
  CHECK(last.cpus == cpus("10-14"));
  CHECK(last.unused == cpus("15"));
  CHECK(share_has_note(last, "1 usable CPU left unused by the split: 15"));
  CHECK(share_of(topology, 3, 4).cpus == cpus("12-15"));
  CHECK(share_of(topology, 3, 4).unused.empty());
}

TEST_CASE("shares follow the topology's order, not the CPU numbers", "[affinity][node_share]") {
  // Package 0 holds the even CPUs, package 1 the odd ones, as on many two-socket servers.
  Topology topology;
  for (int i = 0; i < 8; ++i) {
    const int package = i / 4;
    topology.pus.push_back(Pu{2 * (i % 4) + package, i, package, package, package});
  }
  topology.packages = 2;
  topology.source = "interleaved";
  const auto usable = usable_cpus_of(topology);
  CHECK(share_of(topology, usable, 1, 2).cpus == cpus("1,3,5,7"));
  CHECK(share_of(topology, usable, 0, 4).cpus == cpus("0,2"));
  CHECK(share_of(topology, usable, 2, 4).cpus == cpus("1,3"));
}

TEST_CASE("a process the launcher bound already keeps its CPUs", "[affinity][node_share]") {
  // Bound by its launcher to CPUs 8-11 of the 16, as mpirun --bind-to l3cache might.
  Topology topology = topology_of("package:2 core:4 pu:2");
  const auto share = share_of(topology, usable("0-15", "8-11"), 1, 2);
  CHECK(share.kind == ShareKind::already_bound);
  CHECK(share.cpus == cpus("8-11"));
  CHECK(share.host_cpus == cpus("0-15"));
  CHECK(share_has_note(share, "already bound to CPUs 8-11 of the host's usable 0-15"));
  // Alone on its host a bound process is the whole host as before.
  CHECK(share_of(topology, usable("0-15", "8-11"), 0, 1).kind == ShareKind::whole_host);
}

TEST_CASE("a cgroup cpuset is the host being split, not a binding", "[affinity][node_share]") {
  CgroupCpuLimits cgroup;
  cgroup.cpuset = cpus("0-7");
  const auto share = share_of(topology_of("package:2 core:4 pu:2"), usable("0-15", "0-15", cgroup), 1, 2);
  CHECK(share.kind == ShareKind::equal_share);
  CHECK(share.cpus == cpus("4-7"));
  CHECK(share.host_cpus == cpus("0-7"));
}

TEST_CASE("a CPU quota is divided among the mptrain on the host", "[affinity][node_share]") {
  CgroupCpuLimits cgroup;
  cgroup.quota_cpus = 3.0;
  const auto whole = usable("0-15", "0-15", cgroup);
  const auto share = share_of(topology_of("package:2 core:4 pu:2"), whole, 1, 2);
  REQUIRE(share.quota_cpus);
  CHECK(*share.quota_cpus == 1.5);
  CHECK(share_has_note(share, "quota of 3 CPUs is shared by the 2 mptrain on this host: 1.5 each"));
  const auto narrowed = usable_share(whole, share);
  CHECK(narrowed.cpus == cpus("8-15"));
  CHECK(narrowed.count == 1);
  CHECK(narrowed.limited_by == LimitedBy::quota);
}

TEST_CASE("more mptrain than usable CPUs on a host is refused", "[affinity][node_share]") {
  const auto topology = topology_of("package:2 core:4 pu:2");
  auto share = node_share(topology, usable_cpus_of(topology), 0, 17);
  REQUIRE_FALSE(share.ok());
  CHECK(share.error().message.find("17 mptrain processes on this host but only 16 usable CPUs") != std::string::npos);
}

TEST_CASE("a plan made on a share places its workers inside it", "[affinity][node_share]") {
  const auto topology = topology_of("package:2 core:4 pu:2");
  const auto whole = usable_cpus_of(topology);
  const auto share = share_of(topology, whole, 1, 3);
  const auto plan = make_plan(topology, usable_share(whole, share), PlacementRequest{});
  REQUIRE(plan.ok());
  CHECK(plan->usable_cpus == 5);
  CHECK(plan->usable_cpu_list == cpus("5-9"));
  for (const auto& worker : plan->workers) CHECK(share.cpus.intersect(worker.cpus) == worker.cpus);
}

TEST_CASE("the mptrain on a host share the CPUs --cpus selects", "[affinity][node_share]") {
  const auto topology = topology_of("package:2 core:4 pu:2");
  const auto whole = usable_cpus_of(topology);
  const auto share = share_of_only(topology, whole, 1, 2, cpus("0-7"));
  CHECK(share.cpus == cpus("4-7"));
  CHECK(share.host_cpus == cpus("0-7"));
  // A bound process keeps the part of its binding that is selected.
  const auto bound = share_of_only(topology, usable("0-15", "4-11"), 1, 2, cpus("0-7"));
  CHECK(bound.kind == ShareKind::already_bound);
  CHECK(bound.cpus == cpus("4-7"));
  auto none = node_share(topology, usable("0-15", "8-15"), 0, 2, cpus("0-7"));
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().message.find("none of them usable; the usable CPUs are 8-15") != std::string::npos);
}
