// A run plans on what the other live runs leave free, and says so.
#include "launch/sharing.hpp"

#include <catch2/catch.hpp>

using namespace mptrain;
using namespace mptrain::launch;

namespace {

affinity::Machine usable(const char* cpus) {
  affinity::Machine machine;
  machine.usable.cpus = CpuSet::parse(cpus).value();
  machine.usable.count = machine.usable.cpus.size();
  return machine;
}

RunRecord holding(pid_t pid, const char* cpus, std::string command = "python3 train.py") {
  RunRecord run;
  run.pid = pid;
  run.cpus = CpuSet::parse(cpus).value();
  run.command = std::move(command);
  return run;
}

}  // namespace

TEST_CASE("the CPUs other runs hold are taken out of the usable ones, and the note names the runs") {
  std::vector<std::string> notes;
  const auto machine = free_part(usable("0-7"), {holding(11, "0-1"), holding(12, "2-3,9")}, notes);
  CHECK(machine.usable.cpus.to_short_string() == "4-7");
  CHECK(machine.usable.count == 4);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0] ==
        "other mptrain runs hold CPUs 0-3 (pid 11 on 0-1: python3 train.py; pid 12 on 2-3: python3 "
        "train.py); planned on the free CPUs 4-7");
}

TEST_CASE("runs on other CPUs change nothing, and runs on every usable CPU are shared and said") {
  std::vector<std::string> notes;
  CHECK(free_part(usable("0-3"), {holding(11, "8-9")}, notes).usable.cpus.to_short_string() == "0-3");
  CHECK(notes.empty());
  const auto machine = free_part(usable("0-1"), {holding(11, "0"), holding(12, "1")}, notes);
  CHECK(machine.usable.cpus.to_short_string() == "0-1");
  REQUIRE(notes.size() == 1);
  CHECK_THAT(notes[0], Catch::StartsWith("other mptrain runs hold every usable CPU (pid 11 on 0") &&
                           Catch::EndsWith("this run shares them"));
}

TEST_CASE("a quota below the free CPUs stays the count, and a long command is cut") {
  std::vector<std::string> notes;
  auto machine = usable("0-7");
  machine.usable.count = 2;  // a 2-CPU quota
  CHECK(free_part(machine, {holding(11, "0-1", std::string(100, 'x'))}, notes).usable.count == 2);
  REQUIRE(notes.size() == 1);
  CHECK_THAT(notes[0], Catch::Contains(std::string(57, 'x') + "...)"));
}
