// The planner on today's servers, from hwloc XML topologies written by
// tests/data/affinity/make_topologies.py: SMT siblings kept together, L3
// domains, hybrid CPUs' kinds of core, and the reserve's PUs.
#include <catch2/catch.hpp>
#include <map>
#include <set>
#include <string>

#include "affinity/planner.hpp"
#include "tests/affinity/helpers.hpp"

using namespace mptrain;
using namespace mptrain::affinity;
using namespace mptrain::affinity::testing;

namespace {

Machine xml(const std::string& name) {
  auto machine = xml_machine(std::string(MPTRAIN_TEST_DATA) + "/affinity/" + name);
  INFO(name);
  REQUIRE(machine.ok());
  return std::move(machine).value();
}

Plan plan_on(const Machine& machine, const PlacementRequest& request) {
  auto plan = make_plan(machine.topology, machine.usable, request);
  INFO((plan.ok() ? std::string() : plan.error().message));
  REQUIRE(plan.ok());
  return std::move(plan).value();
}

std::string refusal_on(const Machine& machine, const PlacementRequest& request) {
  auto plan = make_plan(machine.topology, machine.usable, request);
  REQUIRE_FALSE(plan.ok());
  return plan.error().message;
}

PlacementRequest server_workers(int m, std::optional<int> t = std::nullopt) {
  PlacementRequest request;
  request.num_processes = m;
  request.threads_per_process = t;
  return request;
}

// Whether every core of `topology` has its PUs with one worker of `plan` at most.
bool no_core_split(const Topology& topology, const Plan& plan) {
  std::map<int, std::set<int>> ranks_of_core;
  for (const auto& worker : plan.workers) {
    for (const Pu& pu : topology.pus) {
      if (worker.cpus.contains(pu.os_index)) ranks_of_core[pu.core].insert(worker.rank);
    }
  }
  for (const auto& [core, ranks] : ranks_of_core) {
    if (ranks.size() > 1) return false;
  }
  return true;
}

// The cores of `topology` whose PUs all lie in `cpus` (whole cores), and whether `cpus` is made of whole cores only.
bool whole_cores(const Topology& topology, const CpuSet& cpus) {
  for (const auto& core : objects_of(topology, ObjectType::core)) {
    const auto inside = core.intersect(cpus);
    if (!inside.empty() && inside != core) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("2-socket SMT Xeon: the default gives each socket's whole cores to one worker", "[affinity][servers]") {
  const auto machine = xml("xeon-2s-smt.xml");
  const auto plan = plan_on(machine, PlacementRequest{});
  REQUIRE(plan.workers.size() == 2);
  CHECK(plan.workers[0].cpus.to_short_string() == "0-19,40-59");
  CHECK(plan.workers[1].cpus.to_short_string() == "20-39,60-79");
  CHECK(plan.workers[1].numa_node == 1);
}

TEST_CASE("2-socket SMT Xeon: six workers get six whole cores each, none split", "[affinity][servers]") {
  const auto machine = xml("xeon-2s-smt.xml");
  const auto plan = plan_on(machine, server_workers(6));
  CHECK(plan.threads_per_process == 12);  // floor(80/6) = 13 is six and a half cores
  CHECK(has_note(plan, "-t lowered from 13 to 12"));
  CHECK(no_core_split(machine.topology, plan));
  for (const auto& worker : plan.workers) {
    CHECK(whole_cores(machine.topology, worker.cpus));
    CHECK(worker.package >= 0);
  }
}

TEST_CASE("2-socket SMT Xeon: a -t that splits a core is refused with the nearest whole-core ones",
          "[affinity][servers]") {
  const auto machine = xml("xeon-2s-smt.xml");
  const auto message = refusal_on(machine, server_workers(4, 9));
  CHECK(message.find("would share the SMT siblings of one core") != std::string::npos);
  CHECK(message.find("use -t 8, -t 10, or --physical-cores") != std::string::npos);
  PlacementRequest physical = server_workers(4, 9);
  physical.core_use = CoreUse::physical_cores;
  CHECK(plan_on(machine, physical).threads_per_process == 9);
}

TEST_CASE("2-socket SMT Xeon: a reserve takes the first PU of each worker's set", "[affinity][servers]") {
  const auto machine = xml("xeon-2s-smt.xml");
  PlacementRequest request = server_workers(2);
  request.reserve = 1;
  const auto plan = plan_on(machine, request);
  CHECK(plan.threads_per_process == 39);
  CHECK(plan.workers[0].reserved.to_string() == "0");
  CHECK(plan.workers[1].reserved.to_string() == "20");
  CHECK(has_note(plan, "2 CPUs reserved for the communication library's threads: 0,20"));
}

TEST_CASE("2-socket SMT Xeon: topo's caches give each level's size and sharing", "[affinity][servers]") {
  const auto lines = cache_lines(xml("xeon-2s-smt.xml").topology);
  REQUIRE(lines.size() == 4);
  CHECK(lines[0] == "L1d: 32 KiB x 40, one per core");
  CHECK(lines[1] == "L2: 1 MiB x 40, one per core");
  CHECK(lines[2] == "L3: 27.5 MiB x 2, CPUs 0-19,40-59 | 20-39,60-79");
  CHECK(lines[3] == "L1i: 32 KiB x 40, one per core");
}

TEST_CASE("EPYC with 8 L3 domains a socket: a worker that fits in an L3 gets one", "[affinity][servers]") {
  const auto machine = xml("epyc-2s-8l3.xml");
  CHECK(machine.topology.l3_caches == 16);
  const auto plan = plan_on(machine, server_workers(16, 6));
  std::set<int> l3s;
  for (const auto& worker : plan.workers) {
    CHECK(worker.l3 >= 0);
    l3s.insert(worker.l3);
  }
  CHECK(l3s.size() == 16);  // spread over the domains, none straddled
  CHECK(no_core_split(machine.topology, plan));
}

TEST_CASE("workers that fit in no single L3 span two neighbouring domains, never three", "[affinity][servers]") {
  // 12 workers x 10 PUs on 2 packages of 4 L3 domains of 16 PUs: each domain holds one worker whole; the
  // other two of a package take the four domains' leftovers. Taken in order, one of them spanned three
  // domains (6 + 4 + ... : 30-31,42-47,58-59 on L3 1-3).
  const auto machine = machine_of("package:2 l3:4 core:8 pu:2");
  const auto plan = plan_on(machine, server_workers(12));
  REQUIRE(plan.workers.size() == 12);
  int spanning = 0;
  for (const auto& worker : plan.workers) {
    std::set<int> l3s;
    for (const Pu& pu : machine.topology.pus) {
      if (worker.cpus.contains(pu.os_index)) l3s.insert(pu.l3);
    }
    INFO("rank " << worker.rank << " on " << worker.cpus.to_string());
    CHECK(l3s.size() <= 2);
    CHECK(worker.cpus.size() == 10);
    spanning += l3s.size() == 2;
  }
  CHECK(spanning == 4);  // two a package: 6 workers in 4 domains
  CHECK(no_core_split(machine.topology, plan));
}

TEST_CASE("EPYC with 8 L3 domains a socket: bind l3 gives each worker its whole L3 domain", "[affinity][servers]") {
  const auto machine = xml("epyc-2s-8l3.xml");
  PlacementRequest request = server_workers(32);
  request.bind = Bind::l3;
  const auto plan = plan_on(machine, request);
  CHECK(plan.threads_per_process == 4);
  const auto& l3 = objects_of(machine.topology, ObjectType::l3);
  for (const auto& worker : plan.workers) {
    REQUIRE(worker.l3 >= 0);
    CHECK(worker.cpus == l3.at(static_cast<std::size_t>(worker.l3)));
  }
  CHECK(plan.workers[0].cpus.to_short_string() == "0-3,64-67");
  CHECK(plan.workers[0].cpus == plan.workers[1].cpus);  // two workers of 4 PUs share a domain of 8
}

TEST_CASE("EPYC with 8 L3 domains a socket: topo lists each L3 domain", "[affinity][servers]") {
  const auto lines = cache_lines(xml("epyc-2s-8l3.xml").topology);
  REQUIRE(lines.size() >= 3);
  CHECK(lines[2].starts_with("L3: 32 MiB x 16, CPUs 0-3,64-67 | 4-7,68-71 | "));
}

TEST_CASE("bind l3 on a topology without L3 caches is refused, saying how to describe them", "[affinity][servers]") {
  PlacementRequest request = server_workers(2);
  request.bind = Bind::l3;
  CHECK(refusal_on(machine_of("package:2 core:4 pu:2"), request).find("shows no L3 cache") != std::string::npos);
  request.num_processes = 4;
  const auto plan = plan_on(machine_of("package:2 l3:2 core:2 pu:2"), request);
  CHECK(plan.workers[0].l3 == 0);
  CHECK(plan.workers[3].cpus.to_short_string() == "12-15");
}

TEST_CASE("hybrid CPU: hwloc's kinds load, performance cores first", "[affinity][servers]") {
  const auto& topology = xml("hybrid-client.xml").topology;
  REQUIRE(topology.kinds.size() == 2);
  CHECK(topology.kinds[0].role == KindRole::performance);
  CHECK(topology.kinds[0].cpus.to_short_string() == "0-15");
  CHECK(topology.kinds[0].core_type == "IntelCore");
  CHECK(topology.kinds[0].max_mhz == 4900);
  CHECK(topology.kinds[1].role == KindRole::efficiency);
  CHECK(topology.kinds[1].cpus.to_short_string() == "16-19");
  CHECK(kind_lines(topology)[1] == "efficiency: CPUs 16-19 (IntelAtom, up to 3600 MHz)");
}

TEST_CASE("hybrid CPU: one worker by default runs on the performance cores only", "[affinity][servers]") {
  const auto plan = plan_on(xml("hybrid-client.xml"), PlacementRequest{});
  REQUIRE(plan.workers.size() == 1);
  CHECK(plan.workers[0].cpus.to_short_string() == "0-15");
  CHECK(plan.workers[0].kind == KindRole::performance);
  CHECK(has_note(plan, "the efficiency cores (CPUs 16-19) are left unused"));
}

TEST_CASE("hybrid CPU: each worker runs on one kind, the performance cores filled first", "[affinity][servers]") {
  const auto machine = xml("hybrid-client.xml");
  const auto plan = plan_on(machine, server_workers(5));
  CHECK(plan.threads_per_process == 4);
  REQUIRE(plan.workers.size() == 5);
  for (int rank = 0; rank < 4; ++rank) CHECK(plan.workers[rank].kind == KindRole::performance);
  CHECK(plan.workers[4].kind == KindRole::efficiency);
  CHECK(plan.workers[4].cpus.to_short_string() == "16-19");
  CHECK(no_core_split(machine.topology, plan));
}

TEST_CASE("hybrid CPU: a -t that mixes kinds is refused - --cpu-kind all allows it", "[affinity][servers]") {
  const auto machine = xml("hybrid-client.xml");
  const auto message = refusal_on(machine, server_workers(2, 10));
  CHECK(message.find("rank 1 would mix two kinds of core") != std::string::npos);
  CHECK(message.find("use -t 8, or --cpu-kind all") != std::string::npos);
  PlacementRequest all = server_workers(2, 10);
  all.cpu_kind = CpuKindUse::all;
  const auto plan = plan_on(machine, all);
  CHECK(plan.workers[1].cpus.to_short_string() == "10-19");
  CHECK_FALSE(plan.workers[1].kind.has_value());
}

TEST_CASE("hybrid CPU: --cpu-kind chooses performance or efficiency cores only", "[affinity][servers]") {
  const auto machine = xml("hybrid-client.xml");
  PlacementRequest request = server_workers(2);
  request.cpu_kind = CpuKindUse::efficiency;
  auto plan = plan_on(machine, request);
  CHECK(plan.usable_cpus == 4);
  CHECK(plan.workers[0].cpus.to_short_string() == "16-17");
  CHECK(plan.workers[1].cpus.to_short_string() == "18-19");
  request.cpu_kind = CpuKindUse::performance;
  plan = plan_on(machine, request);
  CHECK(plan.usable_cpus == 16);
  CHECK(plan.workers[1].cpus.to_short_string() == "8-15");
  request.cpu_kind = CpuKindUse::efficiency;
  CHECK(refusal_on(machine_of("package:1 core:4 pu:2"), request).find("has one kind of core") != std::string::npos);
}

TEST_CASE("synthetic 2-socket SMT: three workers never split a core's siblings", "[affinity][servers]") {
  const auto machine = machine_of("package:2 core:16 pu:2");
  const auto plan = plan_on(machine, server_workers(3));
  CHECK(plan.threads_per_process == 20);
  CHECK(no_core_split(machine.topology, plan));
  for (const auto& worker : plan.workers) CHECK(whole_cores(machine.topology, worker.cpus));
  CHECK(refusal_on(machine, server_workers(3, 21)).find("use -t 20, or --physical-cores") != std::string::npos);
}

TEST_CASE("more workers than cores must share one: the plan says so", "[affinity][servers]") {
  const auto machine = machine_of("package:1 core:2 pu:2");
  const auto plan = plan_on(machine, server_workers(3));
  CHECK(plan.threads_per_process == 1);
  CHECK(has_note(plan, "must share the SMT siblings of one core"));
}

TEST_CASE("physical cores print in the short form mptrain reads", "[affinity][servers]") {
  PlacementRequest request = server_workers(1);
  request.core_use = CoreUse::physical_cores;
  const auto plan = plan_on(machine_of("package:2 core:16 pu:2"), request);
  CHECK(plan.usable_cpu_list.to_short_string() == "0-62:2");
  CHECK(plan_table(plan).find("(0-62:2)") != std::string::npos);
}

// Intel's sub-NUMA clustering (SNC2): hwloc shows one L3 per package and a NUMA node per cluster.
namespace {

PlacementRequest bound(int m, std::optional<int> t, Bind bind) {
  PlacementRequest request = server_workers(m, t);
  request.bind = bind;
  return request;
}

// Whether each worker of `plan` lies inside one NUMA node of `topology`, and how many workers each node holds.
std::map<int, int> workers_per_cluster(const Topology& topology, const Plan& plan) {
  std::map<int, int> count;
  for (const auto& worker : plan.workers) {
    INFO("rank " << worker.rank << ": " << worker.cpus.to_short_string());
    REQUIRE(worker.numa_node >= 0);
    CHECK(worker.cpus.minus(numa_node_cpus(topology, worker.numa_node)).empty());
    ++count[worker.numa_node];
  }
  return count;
}

}  // namespace

TEST_CASE("SNC2 Xeon: hwloc shows a NUMA node per cluster under one L3 per package", "[affinity][servers]") {
  const auto machine = xml("xeon-2s-snc2.xml");
  CHECK(machine.topology.packages == 2);
  CHECK(machine.topology.numa_nodes == 4);
  CHECK(machine.topology.l3_caches == 2);
  CHECK(numa_node_cpus(machine.topology, 1).to_short_string() == "12-23,60-71");
}

TEST_CASE("SNC2 Xeon: four workers get a sub-NUMA cluster each under bind core, l3 and numa", "[affinity][servers]") {
  const auto machine = xml("xeon-2s-snc2.xml");
  for (const Bind bind : {Bind::core, Bind::l3, Bind::numa}) {
    INFO("bind " << to_string(bind));
    const auto plan = plan_on(machine, bound(4, std::nullopt, bind));
    CHECK(plan.threads_per_process == 24);
    CHECK(workers_per_cluster(machine.topology, plan) == std::map<int, int>{{0, 1}, {1, 1}, {2, 1}, {3, 1}});
    CHECK(plan.workers[1].cpus.to_short_string() == "12-23,60-71");
    CHECK_FALSE(has_note(plan, "NUMA nodes (sub-NUMA clusters"));
  }
}

TEST_CASE("SNC2 Xeon: smaller workers stay inside one cluster, bind l3 widens to the cluster only",
          "[affinity][servers]") {
  const auto machine = xml("xeon-2s-snc2.xml");
  for (const Bind bind : {Bind::core, Bind::l3, Bind::numa}) {
    INFO("bind " << to_string(bind));
    const auto plan = plan_on(machine, bound(8, 12, bind));
    CHECK(workers_per_cluster(machine.topology, plan) == std::map<int, int>{{0, 2}, {1, 2}, {2, 2}, {3, 2}});
    for (const auto& worker : plan.workers) {
      // The package's L3 is shared by both clusters; under bind l3 a worker gets its cluster's part of it.
      CHECK(worker.cpus.size() == (bind == Bind::core ? 12 : 24));
      CHECK(worker.l3 == worker.package);
    }
    CHECK_FALSE(has_note(plan, "NUMA nodes (sub-NUMA clusters"));
  }
}

TEST_CASE("SNC2 Xeon: workers too big for a cluster span two, and a note says so", "[affinity][servers]") {
  const auto machine = xml("xeon-2s-snc2.xml");
  for (const Bind bind : {Bind::core, Bind::l3, Bind::numa}) {
    INFO("bind " << to_string(bind));
    const auto plan = plan_on(machine, bound(2, std::nullopt, bind));
    CHECK(plan.workers[0].numa_node == -1);
    CHECK(plan.workers[0].package == 0);
    CHECK(has_note(plan,
                   "ranks 0-1 span NUMA nodes (sub-NUMA clusters where the machine has them): 48 PUs per "
                   "worker do not fit in one, which holds at most 24"));
  }
  const auto fifth = plan_on(machine, server_workers(5, 18));  // four clusters take one each, 6 PUs left in each
  CHECK(fifth.workers[1].numa_node == -1);                     // the fifth set, made of the leftovers, sorts second
  CHECK(has_note(fifth,
                 "rank 1 spans NUMA nodes (sub-NUMA clusters where the machine has them) though 18 PUs fit "
                 "in one: the other workers left no NUMA node that much room"));
  const auto package = plan_on(machine, bound(2, std::nullopt, Bind::package));
  CHECK_FALSE(has_note(package, "span NUMA nodes"));
}

TEST_CASE("a plan knows the machine's kinds of core and L3 caches, and each worker's", "[affinity][servers]") {
  const auto epyc = plan_on(xml("epyc-2s-8l3.xml"), bound(2, std::nullopt, Bind::numa));
  CHECK(epyc.l3_caches == 16);
  CHECK(epyc.cpu_kinds == 0);
  CHECK(epyc.workers[1].l3_caches.to_short_string() == "8-15");
  PlacementRequest mixed = server_workers(2, 10);
  mixed.cpu_kind = CpuKindUse::all;
  const auto hybrid = plan_on(xml("hybrid-client.xml"), mixed);
  CHECK(hybrid.cpu_kinds == 2);
  CHECK(hybrid.workers[0].kind == KindRole::performance);  // all its CPUs are performance cores
  CHECK_FALSE(hybrid.workers[1].kind.has_value());         // 10-19 mixes both kinds
  CHECK(hybrid.workers[0].l3_caches.to_short_string() == "0");
  CHECK(plan_on(machine_of("package:2 core:4 pu:2"), server_workers(2)).l3_caches == 0);
}

TEST_CASE("plan's table shows KIND and L3 columns only where they apply", "[affinity][servers]") {
  const auto hybrid = plan_table(plan_on(xml("hybrid-client.xml"), server_workers(5)));
  CHECK(hybrid.find("RANK  CPUS                      KIND         L3     PACKAGE  NUMA NODE  THREADS\n") !=
        std::string::npos);
  CHECK(hybrid.find("   4  16-19                     efficiency   0            0          0        4\n") !=
        std::string::npos);
  const auto plain = plan_table(plan_on(machine_of("package:2 core:4 pu:2"), server_workers(2)));
  CHECK(plain.find("RANK  CPUS                      PACKAGE  NUMA NODE  THREADS\n") != std::string::npos);
}

TEST_CASE("plan's table keeps its columns aligned past a CPU list longer than its column", "[affinity][servers]") {
  auto plan = plan_on(machine_of("package:1 l3:2 core:32 pu:1"), server_workers(2));
  plan.workers[0].cpus = CpuSet::parse("0,3,5,9,12,17,20,26,30,34,38,41,44,50,55,61").value();
  const auto table = plan_table(plan);
  const auto header_at = table.find("RANK  CPUS");
  REQUIRE(header_at != std::string::npos);
  const auto header = table.substr(header_at, table.find('\n', header_at) - header_at);
  const auto package_end = header.find("PACKAGE") + std::string_view("PACKAGE").size() - 1;
  for (const std::string rank : {"   0  ", "   1  "}) {
    const auto row_at = table.find("\n" + rank);
    REQUIRE(row_at != std::string::npos);
    const auto row = table.substr(row_at + 1, table.find('\n', row_at + 1) - row_at - 1);
    CAPTURE(header, row);
    REQUIRE(row.size() > package_end);
    CHECK(row[package_end] == '0');      // the package's index under the end of its title
    CHECK(row[package_end + 1] == ' ');  // and nothing of a longer cell spilled into it
  }
}
