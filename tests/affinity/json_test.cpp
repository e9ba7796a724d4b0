#include "affinity/json.hpp"

#include <catch2/catch.hpp>
#include <string>

#include "affinity/share_plan.hpp"
#include "tests/affinity/helpers.hpp"

using namespace mptrain;
using namespace mptrain::affinity;
using namespace mptrain::affinity::testing;

namespace {

Plan plan_of(const std::string& description, int m) {
  PlacementRequest request;
  request.num_processes = m;
  const auto machine = machine_of(description);
  auto plan = make_plan(machine.topology, machine.usable, request);
  REQUIRE(plan.ok());
  return std::move(plan).value();
}

}  // namespace

TEST_CASE("a plan's keys are its shape: M, T and the binding", "[affinity][json]") {
  nlohmann::json object = {{"other", 1}};
  add_plan_keys(object, plan_of("package:2 core:4 pu:2", 4));
  CHECK(object == nlohmann::json{{"other", 1}, {"num_processes", 4}, {"threads_per_process", 4}, {"bind", "core"}});
}

TEST_CASE("a worker's keys are its rank and CPUs", "[affinity][json]") {
  nlohmann::json object;
  add_worker_keys(object, plan_of("package:2 core:4 pu:2", 2).workers.at(1));
  CHECK(object == nlohmann::json{{"rank", 1}, {"cpus", "8-15"}});
}

TEST_CASE("a plan's document holds its keys, its workers and its notes and choices", "[affinity][json]") {
  const auto plan = plan_of("package:2 core:4 pu:2", 2);
  const auto document = plan_json(plan);
  CHECK(document["num_processes"] == 2);
  CHECK(document["usable_cpus"] == 16);
  CHECK(document["usable_cpu_list"] == "0-15");
  CHECK(document["unused_cpus"] == "");
  CHECK(document["oversubscribed"] == false);
  CHECK(document["workers"].size() == 2);
  CHECK(document["workers"][0] == nlohmann::json{{"rank", 0},
                                                 {"cpus", "0-7"},
                                                 {"package", 0},
                                                 {"numa_node", 0},
                                                 {"threads", 8},
                                                 {"l3", nullptr},
                                                 {"kind", nullptr},
                                                 {"reserved_cpus", ""}});
  CHECK(document["notes"] == nlohmann::json(notes_and_choices(plan)));
}

TEST_CASE("a worker spanning packages has a null package and NUMA node", "[affinity][json]") {
  const auto document = plan_json(plan_of("package:2 numa:1 core:1 pu:1", 1));
  CHECK(document["workers"][0]["package"].is_null());
  CHECK(document["workers"][0]["numa_node"].is_null());
}

TEST_CASE("a share's keys say which CPUs it took and how", "[affinity][json]") {
  PlacementRequest request;
  auto result = plan_share(machine_of("package:2 core:2 pu:1"), request, 1, 2);
  REQUIRE(result.ok());
  nlohmann::json object;
  add_share_keys(object, result->share);
  CHECK(object == nlohmann::json{{"cpus", "2-3"}, {"host_cpus", "0-3"}, {"split", "package"}, {"unused_cpus", ""}});
}

TEST_CASE("a machine's document holds its counts, layout and usable CPUs", "[affinity][json]") {
  const auto machine = machine_of("package:2 core:2 pu:2");
  const auto document = machine_json(machine, default_binding(machine.usable));
  CHECK(document["packages"] == 2);
  CHECK(document["pus"] == 8);
  CHECK(document["usable_cpus"] == 8);
  CHECK(document["limited_by"] == "topology");
  CHECK(document["default_bind"] == "core");
  CHECK(document["cgroup"]["version"].is_null());
  CHECK(document["package_cpus"][1] == nlohmann::json{{"package", 1}, {"cpus", "4-7"}});
  CHECK(document["numa_node_cpus"][0] == nlohmann::json{{"numa_node", 0}, {"cpus", "0-3"}});
}
