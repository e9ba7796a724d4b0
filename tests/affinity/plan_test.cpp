#include "affinity/plan.hpp"

#include <catch2/catch.hpp>
#include <string>

#include "affinity/planner.hpp"

using namespace mptrain;
using namespace mptrain::affinity;

TEST_CASE("torchrun's auto and cpu ask for one worker per usable CPU", "[affinity][plan]") {
  CHECK(*process_count_word("auto") == ProcessCountWord::one_per_cpu);
  CHECK(*process_count_word("cpu") == ProcessCountWord::one_per_cpu);
}

TEST_CASE("any other worker count is a number for the caller to check", "[affinity][plan]") {
  CHECK(*process_count_word("4") == ProcessCountWord::number);
  CHECK(*process_count_word("four") == ProcessCountWord::number);
  CHECK(*process_count_word("Auto") == ProcessCountWord::number);
}

TEST_CASE("torchrun's gpu and xpu are refused: mptrain runs CPU workers", "[affinity][plan]") {
  const auto gpu = process_count_word("gpu");
  REQUIRE_FALSE(gpu.ok());
  CHECK(gpu.error().message.starts_with("gpu counts GPUs, and mptrain runs CPU workers"));
  const auto xpu = process_count_word("xpu");
  REQUIRE_FALSE(xpu.ok());
  CHECK(xpu.error().message.starts_with("xpu counts XPUs"));
}

TEST_CASE("what plan shows is the notes, then the choices", "[affinity][plan]") {
  Plan plan;
  plan.notes = {"a", "b"};
  plan.choices = {"c"};
  CHECK(notes_and_choices(plan) == std::vector<std::string>{"a", "b", "c"});
}

TEST_CASE("a synthetic machine has every PU usable", "[affinity][plan]") {
  const auto machine = synthetic_machine("package:1 core:2 pu:2");
  REQUIRE(machine.ok());
  CHECK(machine->usable.count == 4);
  CHECK(machine->usable.limited_by == LimitedBy::topology);
  CHECK_FALSE(synthetic_machine("bogus:3").ok());
}

TEST_CASE("an XML machine is read from its file, every PU usable", "[affinity][plan]") {
  const auto machine = xml_machine(std::string(MPTRAIN_TEST_DATA) + "/affinity/two-sockets.xml");
  REQUIRE(machine.ok());
  CHECK(machine->topology.packages == 2);
  CHECK(machine->usable.count == static_cast<int>(machine->topology.pus.size()));
}

TEST_CASE("an XML machine that cannot be read or parsed is an error naming the file", "[affinity][plan]") {
  const auto missing = xml_machine("/nonexistent/machine.xml");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message.find("/nonexistent/machine.xml") != std::string::npos);
  CHECK_FALSE(xml_machine(std::string(MPTRAIN_TEST_DATA) + "/affinity/broken.xml").ok());
  CHECK_FALSE(xml_machine("/dev/zero").ok());
}

TEST_CASE("a plan's shape and table read as `mptrain plan` shows them", "[affinity][plan]") {
  Plan plan;
  plan.num_processes = 1;
  plan.threads_per_process = 2;
  plan.usable_cpus = 2;
  plan.usable_cpu_list = CpuSet::parse("0-1").value();
  plan.bind = Bind::core;
  plan.bind_reason = "the default";
  WorkerPlacement worker;
  worker.cpus = CpuSet::parse("0-1").value();
  worker.package = 0;
  worker.threads = 2;
  plan.workers.push_back(worker);
  CHECK(workers_by_threads(plan) == "1 worker x 2 threads");
  const auto table = plan_table(plan);
  CHECK(table.starts_with("1 worker x 2 threads on N = 2 usable CPUs (0-1), bind core\n  bind: the default\n\n"));
  CHECK(table.find("   0  0-1                             0          -        2\n") != std::string::npos);
  CHECK(table.ends_with("\nunused CPUs: -\n"));
}
