// A run plans on what the other live runs leave free, runs started together
// divide the free CPUs, and a run that finds too few shares fairly; each says so.
#include "launch/sharing.hpp"

#include <catch2/catch.hpp>

using namespace mptrain;
using namespace mptrain::launch;
using namespace std::chrono_literals;

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
  run.workers = 1;
  run.threads = static_cast<int>(run.cpus.size());
  run.arrived = 1'000'000'000LL * pid;  // long before the runs below
  return run;
}

// A run arriving at `arrived_ms` that needs `need` CPUs, elastic unless `fixed`.
RunRecord arriving(pid_t pid, std::int64_t arrived_ms, int need = 1, bool fixed = false,
                   RunState state = RunState::planning) {
  RunRecord run;
  run.pid = pid;
  run.arrived = 1'000'000'000'000LL + arrived_ms * 1'000'000;
  run.need = need;
  run.elastic = !fixed;
  run.state = state;
  return run;
}

std::string cpus_of(const Portion& portion) { return portion.machine.usable.cpus.to_short_string(); }

}  // namespace

TEST_CASE("alone, a run gets the machine as it is, and no note") {
  const auto placed = portion(usable("0-7"), {holding(11, "8-9")}, arriving(1, 0), 250ms);
  CHECK(cpus_of(placed) == "0-7");
  CHECK(!placed.busy);
  CHECK(!placed.shares_cpus);
  CHECK(placed.notes.empty());
}

TEST_CASE("the CPUs other runs hold are taken out of the usable ones, and the note names the runs") {
  const auto placed = portion(usable("0-7"), {holding(11, "0-1"), holding(12, "2-3,9")}, arriving(1, 0), 250ms);
  CHECK(cpus_of(placed) == "4-7");
  CHECK(placed.machine.usable.count == 4);
  REQUIRE(placed.notes.size() == 1);
  CHECK(placed.notes[0] ==
        "other mptrain runs hold CPUs 0-3 (pid 11 on 0-1: python3 train.py; pid 12 on 2-3: python3 "
        "train.py); planned on CPUs 4-7");
}

TEST_CASE("runs started together divide the free CPUs, whichever plans first") {
  // Four elastic runs arrive 10 ms apart on 8 CPUs: the first to plan takes a quarter, the next a third of the rest.
  const auto self = arriving(1, 0);
  auto first = portion(usable("0-7"), {arriving(2, 10), arriving(3, 20), arriving(4, 30)}, self, 250ms);
  CHECK(cpus_of(first) == "0-1");
  CHECK(!first.busy);
  CHECK_THAT(first.notes.at(0), Catch::Contains("4 runs started together share the free CPUs 0-7"));
  auto one_done = arriving(2, 10, 1, false, RunState::running);
  one_done.cpus = CpuSet::parse("0-1").value();
  auto second = portion(usable("0-7"), {one_done, arriving(3, 20), arriving(4, 30)}, arriving(1, 0), 250ms);
  CHECK(cpus_of(second) == "2-3");
  // A run that arrived after the window closed is not one of them: the first takes its half of two.
  CHECK(cpus_of(portion(usable("0-7"), {arriving(2, 10), arriving(3, 900)}, self, 250ms)) == "0-3");
  // Without a window each run plans as if the others had not come.
  CHECK(cpus_of(portion(usable("0-7"), {arriving(2, 10)}, self, 0ms)) == "0-7");
}

TEST_CASE("a run of a fixed size takes its need, and more runs than CPUs wait passively") {
  CHECK(cpus_of(portion(usable("0-7"), {arriving(2, 5)}, arriving(1, 0, 3, true), 250ms)) == "0-2");
  // Four runs started together on two CPUs: the first two each take a CPU, and know that runs will share.
  const auto placed = portion(usable("0-1"), {arriving(2, 1), arriving(3, 2), arriving(4, 3)}, arriving(1, 0), 250ms);
  CHECK(placed.machine.usable.count == 1);
  CHECK(!placed.busy);
  CHECK(placed.shares_cpus);
}

TEST_CASE("a run that finds too few free CPUs is busy: its fair part, on the CPUs the fewest runs hold") {
  // One run holds both CPUs; another holds CPU 1 too: the newcomer's part is 1 CPU of 2, on CPU 0.
  const auto placed = portion(usable("0-1"), {holding(11, "0-1"), holding(12, "1")}, arriving(1, 0), 250ms);
  CHECK(placed.busy);
  CHECK(placed.shares_cpus);
  CHECK(cpus_of(placed) == "0");
  CHECK(placed.machine.usable.count == 1);
  CHECK_THAT(placed.notes.at(0), Catch::Contains("this run needs 1 CPU and 0 are free: it shares CPUs 0") &&
                                     Catch::Contains("its part of 2 CPUs among 3 runs") &&
                                     Catch::Contains("passively"));
  // On 16 CPUs all held by one run, an elastic newcomer's fair part is half of them, the later half first.
  CHECK(cpus_of(portion(usable("0-15"), {holding(11, "0-15")}, arriving(1, 0), 250ms)) == "8-15");
  // A fixed size is its size, fair or not.
  CHECK(portion(usable("0-15"), {holding(11, "0-15")}, arriving(1, 0, 12, true), 250ms).machine.usable.count == 12);
}

TEST_CASE("runs queued before this one keep the CPUs they need: first come, first served") {
  auto queued = arriving(2, -5000, 2, true, RunState::waiting);
  const auto placed = portion(usable("0-3"), {holding(11, "0-1"), queued}, arriving(1, 0), 250ms);
  CHECK(placed.busy);  // CPUs 2-3 are free, but the run queued first needs both
  auto later = arriving(2, 5000, 2, true, RunState::waiting);
  CHECK(!portion(usable("0-3"), {holding(11, "0-1"), later}, arriving(1, 0), 250ms).busy);
}

TEST_CASE("a quota below the free CPUs stays the count, and a long command is cut") {
  auto machine = usable("0-7");
  machine.usable.count = 2;  // a 2-CPU quota: unpinned on every CPU
  const auto placed = portion(machine, {holding(11, "0-1", std::string(100, 'x'))}, arriving(1, 0), 250ms);
  CHECK(placed.machine.usable.count == 2);
  CHECK(cpus_of(placed) == "2-7");
  REQUIRE(placed.notes.size() == 1);
  CHECK_THAT(placed.notes[0], Catch::Contains(std::string(57, 'x') + "...)"));
}

TEST_CASE("the live runs are described one per line, those on other CPUs left out") {
  auto queued = arriving(13, 0, 2, true, RunState::waiting);
  queued.command = "python3 b.py";
  auto lines = describe_runs({holding(11, "0-1"), holding(12, "8-9"), queued}, CpuSet::parse("0-3").value());
  REQUIRE(lines.size() == 2);
  CHECK(lines[0] == "pid 11 (uid 0, CPUs 0-1, 1x2): python3 train.py");
  CHECK(lines[1] == "pid 13 (uid 0, waiting, needs 2 CPUs): python3 b.py");
}
