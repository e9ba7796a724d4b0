#include "affinity/share_plan.hpp"

#include <catch2/catch.hpp>
#include <string>

#include "tests/affinity/helpers.hpp"

using namespace mptrain;
using namespace mptrain::affinity;
using namespace mptrain::affinity::testing;

namespace {

// Two packages of 4 cores of 2 PUs: CPUs 0-7 and 8-15, all usable.
PlacementRequest workers(int m) {
  PlacementRequest request;
  request.num_processes = m;
  return request;
}

PlacementRequest with_cpus(PlacementRequest request, const std::string& text) {
  auto cpus = parse_cpu_selection(text);
  REQUIRE(cpus.ok());
  request.cpus = std::move(cpus).value();
  return request;
}

SharePlan planned(const Machine& machine, const PlacementRequest& request, int local_rank, int local_size) {
  auto plan = plan_share(machine, request, local_rank, local_size);
  INFO((plan.ok() ? std::string() : plan.error().message));
  REQUIRE(plan.ok());
  return std::move(plan).value();
}

}  // namespace

TEST_CASE("a single mptrain plans on the whole host", "[affinity][share_plan]") {
  const auto result = planned(machine_of("package:2 core:4 pu:2"), workers(2), 0, 1);
  CHECK(result.share.kind == ShareKind::whole_host);
  CHECK(result.plan.usable_cpus == 16);
  CHECK(result.plan.workers.at(1).cpus.to_string() == "8-15");
}

TEST_CASE("the second of two mptrain plans its workers on its package", "[affinity][share_plan]") {
  const auto result = planned(machine_of("package:2 core:4 pu:2"), workers(2), 1, 2);
  CHECK(result.share.cpus.to_string() == "8-15");
  CHECK(result.plan.usable_cpu_list.to_string() == "8-15");
  CHECK(result.plan.workers.at(0).cpus.to_string() == "8-11");
}

TEST_CASE("the share's notes come before the plan's", "[affinity][share_plan]") {
  const auto result = planned(machine_of("package:2 core:4 pu:2"), workers(2), 1, 2);
  REQUIRE_FALSE(result.share.notes.empty());
  REQUIRE(result.plan.notes.size() >= result.share.notes.size());
  CHECK(result.plan.notes.front() == result.share.notes.front());
}

TEST_CASE("several mptrain on a host split the CPUs --cpus selects", "[affinity][share_plan]") {
  const auto result = planned(machine_of("package:2 core:4 pu:2"), with_cpus(workers(1), "0-3"), 1, 2);
  CHECK(result.share.cpus.to_string() == "2-3");
  CHECK(result.plan.workers.at(0).cpus.to_string() == "2-3");
}

TEST_CASE("a lone mptrain hands --cpus to the planner", "[affinity][share_plan]") {
  const auto result = planned(machine_of("package:2 core:4 pu:2"), with_cpus(workers(1), "0-3"), 0, 1);
  CHECK(result.share.cpus.to_string() == "0-15");
  CHECK(result.plan.workers.at(0).cpus.to_string() == "0-3");
}

TEST_CASE("a share refused for the selection names --cpus as typed", "[affinity][share_plan]") {
  const auto result = plan_share(machine_of("package:2 core:4 pu:2"), with_cpus(workers(1), "0"), 1, 2);
  REQUIRE_FALSE(result.ok());
  CHECK(result.error().message.starts_with("--cpus 0: "));
}

TEST_CASE("a selection naming nothing of the machine is refused before the split", "[affinity][share_plan]") {
  const auto result = plan_share(machine_of("package:2 core:4 pu:2"), with_cpus(workers(1), "numa:7"), 1, 2);
  REQUIRE_FALSE(result.ok());
  CHECK(result.error().message.starts_with("--cpus: "));
}

TEST_CASE("a request the share cannot hold is refused with the planner's words", "[affinity][share_plan]") {
  const auto result = plan_share(machine_of("package:2 core:4 pu:2"), workers(9), 0, 2);
  REQUIRE_FALSE(result.ok());
  CHECK(result.error().message.find("9 workers on 8 usable CPUs") != std::string::npos);
}
