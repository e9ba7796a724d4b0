#include "affinity/planner.hpp"

#include <catch2/catch.hpp>
#include <set>
#include <string>

#include "tests/affinity/helpers.hpp"

using namespace mptrain;
using namespace mptrain::affinity;
using namespace mptrain::affinity::testing;

namespace {

Plan plan_for(const std::string& description, const PlacementRequest& request) {
  const Topology topology = topology_of(description);
  auto plan = make_plan(topology, usable_cpus_of(topology), request);
  INFO((plan.ok() ? std::string() : plan.error().message));
  REQUIRE(plan.ok());
  return std::move(plan).value();
}

std::string refusal(const std::string& description, const PlacementRequest& request) {
  const Topology topology = topology_of(description);
  auto plan = make_plan(topology, usable_cpus_of(topology), request);
  REQUIRE_FALSE(plan.ok());
  return plan.error().message;
}

PlacementRequest processes(int m) {
  PlacementRequest request;
  request.num_processes = m;
  return request;
}

bool pairwise_disjoint(const Plan& plan) {
  CpuSet seen;
  for (const auto& worker : plan.workers) {
    if (!seen.intersect(worker.cpus).empty()) return false;
    seen = seen.unite(worker.cpus);
  }
  return true;
}

// The distinct values `key` takes over the PUs of `cpus`.
template <class Key>
std::set<int> keys_of(const Topology& topology, const CpuSet& cpus, Key key) {
  std::set<int> out;
  for (const Pu& pu : topology.pus) {
    if (cpus.contains(pu.os_index)) out.insert(key(pu));
  }
  return out;
}

const char* const two_sockets = "package:2 core:8 pu:2";

}  // namespace

TEST_CASE("one socket: one worker takes every PU by default", "[affinity][planner]") {
  const Plan plan = plan_for("package:1 core:4 pu:1", {});
  CHECK(plan.usable_cpus == 4);
  CHECK(plan.num_processes == 1);
  CHECK(plan.threads_per_process == 4);
  CHECK(plan.bind == Bind::core);
  REQUIRE(plan.workers.size() == 1);
  CHECK(plan.workers[0].cpus.to_string() == "0-3");
  CHECK(plan.workers[0].package == 0);
  CHECK(plan.unused_cpus.empty());
}

TEST_CASE("two sockets: the default is one worker per package", "[affinity][planner]") {
  const Plan plan = plan_for(two_sockets, {});
  REQUIRE(plan.num_processes == 2);
  CHECK(plan.threads_per_process == 16);
  CHECK(plan.workers[0].cpus.to_string() == "0-15");
  CHECK(plan.workers[1].cpus.to_string() == "16-31");
}

TEST_CASE("two sockets: four workers get eight PUs each, two per package", "[affinity][planner]") {
  const Plan plan = plan_for(two_sockets, processes(4));
  CHECK(plan.threads_per_process == 8);
  CHECK(pairwise_disjoint(plan));
  std::multiset<int> packages;
  for (const auto& worker : plan.workers) {
    CHECK(worker.cpus.size() == 8);
    CHECK(worker.threads == 8);
    CHECK(worker.package >= 0);
    packages.insert(worker.package);
  }
  CHECK(packages.count(0) == 2);
  CHECK(packages.count(1) == 2);
  CHECK_FALSE(plan.oversubscribed);
}

TEST_CASE("two sockets: three workers get ten PUs each and two stay unused", "[affinity][planner]") {
  const Plan plan = plan_for(two_sockets, processes(3));
  CHECK(plan.threads_per_process == 10);
  CHECK(pairwise_disjoint(plan));
  for (const auto& worker : plan.workers) CHECK(worker.cpus.size() == 10);
  CHECK(plan.unused_cpus.size() == 2);
}

TEST_CASE("physical cores: one PU per core", "[affinity][planner]") {
  PlacementRequest request = processes(4);
  request.core_use = CoreUse::physical_cores;
  const Topology topology = topology_of(two_sockets);
  const Plan plan = plan_for(two_sockets, request);
  CHECK(plan.usable_cpus == 16);
  CHECK(plan.threads_per_process == 4);
  for (const auto& worker : plan.workers) {
    CHECK(keys_of(topology, worker.cpus, [](const Pu& pu) { return pu.core; }).size() == 4);
  }
}

TEST_CASE("SMT on: one thread per worker lands on separate cores", "[affinity][planner]") {
  PlacementRequest request = processes(4);
  request.threads_per_process = 1;
  const Topology topology = topology_of("package:1 core:4 pu:2");
  const Plan plan = plan_for("package:1 core:4 pu:2", request);
  CpuSet all;
  for (const auto& worker : plan.workers) all = all.unite(worker.cpus);
  CHECK(keys_of(topology, all, [](const Pu& pu) { return pu.core; }).size() == 4);
}

TEST_CASE("SMT on: a worker of two PUs takes both threads of one core", "[affinity][planner]") {
  const Plan plan = plan_for("package:1 core:4 pu:2", processes(4));
  CHECK(plan.workers[0].cpus.to_string() == "0-1");
  CHECK(plan.workers[3].cpus.to_string() == "6-7");
}

TEST_CASE("SMT off: workers take consecutive cores", "[affinity][planner]") {
  const Plan plan = plan_for("package:1 core:4 pu:1", processes(2));
  CHECK(plan.workers[0].cpus.to_string() == "0-1");
  CHECK(plan.workers[1].cpus.to_string() == "2-3");
}

TEST_CASE("four NUMA nodes: four workers get one node each", "[affinity][planner]") {
  const Plan plan = plan_for("package:2 numa:2 core:4 pu:2", processes(4));
  std::set<int> nodes;
  for (const auto& worker : plan.workers) {
    CHECK(worker.cpus.size() == 8);
    nodes.insert(worker.numa_node);
  }
  CHECK(nodes == std::set<int>{0, 1, 2, 3});
}

TEST_CASE("bind numa: workers placed on one node share all of its CPUs", "[affinity][planner]") {
  PlacementRequest request = processes(8);
  request.bind = Bind::numa;
  const Plan plan = plan_for("package:2 numa:2 core:4 pu:2", request);
  CHECK(plan.threads_per_process == 4);
  CHECK(plan.workers[0].cpus.to_string() == "0-7");
  CHECK(plan.workers[1].cpus.to_string() == "0-7");
  CHECK(plan.workers[7].cpus.to_string() == "24-31");
  CHECK(plan.workers[7].numa_node == 3);
}

TEST_CASE("bind package: a worker gets its whole package", "[affinity][planner]") {
  PlacementRequest request = processes(2);
  request.bind = Bind::package;
  request.threads_per_process = 2;
  const Plan plan = plan_for(two_sockets, request);
  CHECK(plan.workers[0].cpus.to_string() == "0-15");
  CHECK(plan.workers[1].cpus.to_string() == "16-31");
  CHECK(plan.workers[0].threads == 2);
  CHECK(plan.unused_cpus.empty());
}

TEST_CASE("bind none: every worker may use every usable CPU", "[affinity][planner]") {
  PlacementRequest request = processes(2);
  request.bind = Bind::none;
  const Plan plan = plan_for(two_sockets, request);
  CHECK(plan.workers[0].cpus.to_string() == "0-31");
  CHECK(plan.workers[0].package == -1);
  CHECK(plan.unused_cpus.empty());
}

TEST_CASE("an L3 cache is not split when the workers fit in one each", "[affinity][planner]") {
  PlacementRequest request = processes(2);
  request.threads_per_process = 3;
  const Plan plan = plan_for("package:1 l3:2 core:4 pu:1", request);
  CHECK(plan.workers[0].cpus.to_string() == "0-2");
  CHECK(plan.workers[1].cpus.to_string() == "4-6");
  CHECK(plan.unused_cpus.to_string() == "3,7");
}

TEST_CASE("an uneven cpuset keeps workers where the CPUs are", "[affinity][planner]") {
  PlacementRequest request;
  request.cpus = *parse_cpu_selection("0-5,9");
  const Plan plan = plan_for("package:2 core:8 pu:1", request);
  CHECK(plan.usable_cpus == 7);
  CHECK(plan.num_processes == 2);
  CHECK(plan.threads_per_process == 3);
  CHECK(plan.workers[0].cpus.to_string() == "0-2");
  CHECK(plan.workers[1].cpus.to_string() == "3-5");
  CHECK(plan.unused_cpus.to_string() == "9");
}

TEST_CASE("M x T > N is refused with an explanation and a suggestion", "[affinity][planner]") {
  PlacementRequest request = processes(4);
  request.threads_per_process = 9;
  const std::string message = refusal(two_sockets, request);
  CHECK(message.find("36 threads") != std::string::npos);
  CHECK(message.find("-t 8") != std::string::npos);
  CHECK(message.find("--allow-oversubscribe") != std::string::npos);
}

TEST_CASE("M x T > N is planned when oversubscription is allowed", "[affinity][planner]") {
  PlacementRequest request = processes(4);
  request.threads_per_process = 9;
  request.oversubscribe = Oversubscribe::allow;
  const Plan plan = plan_for(two_sockets, request);
  CHECK(plan.oversubscribed);
  CHECK(plan.threads_per_process == 9);
  CHECK(plan.cpus_per_process == 8);  // 32 PUs shared out: 8 each, not the 9 asked for
  CHECK(plan.workers.size() == 4);
  for (const auto& worker : plan.workers) CHECK(worker.cpus.size() == 8);
  CHECK(pairwise_disjoint(plan));
}

TEST_CASE("more workers than CPUs share CPUs round robin when allowed", "[affinity][planner]") {
  PlacementRequest request = processes(4);
  CHECK(refusal("package:1 core:2 pu:1", request).find("-n 2") != std::string::npos);
  request.oversubscribe = Oversubscribe::allow;
  const Plan plan = plan_for("package:1 core:2 pu:1", request);
  CHECK(plan.oversubscribed);
  CHECK(plan.threads_per_process == 1);
  CHECK(plan.workers[2].cpus.to_string() == "0");
  CHECK(plan.workers[3].cpus.to_string() == "1");
}

TEST_CASE("a reserve leaves PUs of each worker for helper threads", "[affinity][planner]") {
  PlacementRequest request = processes(2);
  request.reserve = 1;
  const Plan plan = plan_for("package:2 core:8 pu:1", request);
  CHECK(plan.cpus_per_process == 8);
  CHECK(plan.threads_per_process == 7);
  CHECK(plan.workers[0].cpus.size() == 8);
  CHECK(plan.workers[0].threads == 7);
}

TEST_CASE("a reserve of T or more is refused", "[affinity][planner]") {
  PlacementRequest request = processes(2);
  request.reserve = 8;
  CHECK(refusal("package:2 core:8 pu:1", request).find("--reserve 7") != std::string::npos);
}

TEST_CASE("a CPU list with no usable CPU is refused", "[affinity][planner]") {
  PlacementRequest request;
  request.cpus = *parse_cpu_selection("100-101");
  CHECK(refusal("package:1 core:4 pu:1", request).find("no usable CPU") != std::string::npos);
}

TEST_CASE("a location restricts the plan to that object's PUs", "[affinity][planner]") {
  PlacementRequest request = processes(2);
  request.cpus = *parse_cpu_selection("package:1");
  const Plan plan = plan_for(two_sockets, request);
  CHECK(plan.usable_cpus == 16);
  CHECK(plan.usable_cpu_list.to_string() == "16-31");
  CHECK(plan.workers[0].cpus.to_string() == "16-23");
  CHECK(plan.workers[1].cpus.to_string() == "24-31");
  CHECK(plan.workers[1].package == 1);
}

TEST_CASE("a location naming an object the topology lacks is refused, naming what exists", "[affinity][planner]") {
  PlacementRequest request;
  request.cpus = *parse_cpu_selection("numa:2");
  CHECK(refusal(two_sockets, request) ==
        "--cpus: numa:2: the topology (synthetic: " + std::string(two_sockets) + ") has NUMA nodes 0-1");
}

TEST_CASE("a location whose PUs are not usable is refused, with the PUs it names", "[affinity][planner]") {
  const Topology topology = topology_of("package:2 core:2 pu:1");
  auto usable = combine_usable_cpus(CpuSet::range(0, 3), CpuSet::range(0, 1), CgroupCpuLimits{});
  REQUIRE(usable.ok());
  PlacementRequest request;
  request.cpus = *parse_cpu_selection("package:1");
  auto plan = make_plan(topology, *usable, request);
  REQUIRE_FALSE(plan.ok());
  CHECK(plan.error().message == "--cpus package:1 (CPUs 2-3) contains no usable CPU; the usable CPUs are 0-1");
  request.cpus = *parse_cpu_selection("core:1-2");
  plan = make_plan(topology, *usable, request);
  REQUIRE(plan.ok());
  CHECK(plan->usable_cpu_list.to_string() == "1");
  CHECK(has_note(*plan, "--cpus: CPUs 2 are not usable and were ignored"));
}

TEST_CASE("a quota that limits N makes the default binding none", "[affinity][planner]") {
  const Topology topology = topology_of("package:1 core:2 pu:1");
  CgroupCpuLimits cgroup;
  cgroup.version = CgroupVersion::v1;
  cgroup.quota_cpus = 1.5;
  auto usable = combine_usable_cpus(CpuSet::range(0, 1), CpuSet::range(0, 1), cgroup);
  REQUIRE(usable.ok());
  auto plan = make_plan(topology, *usable, processes(1));
  REQUIRE(plan.ok());
  CHECK(plan->usable_cpus == 1);
  CHECK(plan->threads_per_process == 1);
  CHECK(plan->bind == Bind::none);
  CHECK(plan->bind_reason.find("quota") != std::string::npos);
  CHECK(plan->workers[0].cpus.to_string() == "0-1");
}

TEST_CASE("an explicit core binding is kept under a quota", "[affinity][planner]") {
  const Topology topology = topology_of("package:1 core:4 pu:1");
  CgroupCpuLimits cgroup;
  cgroup.quota_cpus = 2.0;
  auto usable = combine_usable_cpus(CpuSet::range(0, 3), CpuSet::range(0, 3), cgroup);
  REQUIRE(usable.ok());
  PlacementRequest request = processes(2);
  request.bind = Bind::core;
  auto plan = make_plan(topology, *usable, request);
  REQUIRE(plan.ok());
  CHECK(plan->usable_cpus == 2);
  CHECK(plan->bind == Bind::core);
  CHECK(plan->workers[0].cpus.size() == 1);
  CHECK(plan->unused_cpus.size() == 2);
}

TEST_CASE("two workers on one CPU are told to use -n 1, not '-n 1 or fewer'", "[affinity][planner]") {
  const std::string message = refusal("package:1 core:1 pu:1", processes(2));
  CHECK(message.find("2 workers on 1 usable CPU would") != std::string::npos);
  CHECK(message.find("use -n 1,") != std::string::npos);
  CHECK(message.find("or fewer") == std::string::npos);
}

TEST_CASE("a reserve on one thread per worker says to leave --reserve out", "[affinity][planner]") {
  PlacementRequest request = processes(2);
  request.threads_per_process = 1;
  request.reserve = 1;
  const std::string message = refusal("package:1 core:2 pu:1", request);
  CHECK(message.find("of each worker's 1 PU") != std::string::npos);
  CHECK(message.find("use -n 1 (2 PUs per worker), or leave out --reserve") != std::string::npos);
  CHECK(message.find("--reserve 0") == std::string::npos);
  CHECK(message.find("-t") == std::string::npos);  // a higher -t would be oversubscription
}

TEST_CASE("a reserve that a higher -t has room for says so", "[affinity][planner]") {
  PlacementRequest request = processes(2);
  request.threads_per_process = 1;
  request.reserve = 1;
  const std::string message = refusal("package:1 core:4 pu:1", request);
  CHECK(message.find("use -t 2, or leave out --reserve") != std::string::npos);
}

TEST_CASE("notes count in the singular where there is one", "[affinity][planner]") {
  PlacementRequest request = processes(1);
  request.threads_per_process = 3;
  request.oversubscribe = Oversubscribe::allow;
  CHECK(has_note(plan_for("package:1 core:2 pu:1", request),
                 "oversubscribed: 1 worker x 3 threads = 3 threads on 2 usable CPUs"));
  request.threads_per_process = 2;
  request.oversubscribe = Oversubscribe::refuse;
  request.reserve = 1;
  CHECK(has_note(plan_for("package:1 core:2 pu:1", request), "--reserve 1: 1 compute thread per worker"));
}

TEST_CASE("a quota of one CPU is named in the singular", "[affinity][planner]") {
  const Topology topology = topology_of("package:1 core:2 pu:1");
  CgroupCpuLimits cgroup;
  cgroup.quota_cpus = 1.0;
  auto usable = combine_usable_cpus(CpuSet::range(0, 1), CpuSet::range(0, 1), cgroup);
  REQUIRE(usable.ok());
  const auto choice = default_binding(*usable);
  CHECK(choice.reason.find("a CPU quota of 1 CPU limits N to 1 of the 2 CPUs") != std::string::npos);
}
