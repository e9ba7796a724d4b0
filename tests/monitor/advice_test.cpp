// The advice a launch's diagnosis calls for, on hand-written diagnoses: no processes.
#include "monitor/advice.hpp"

#include <catch2/catch.hpp>

using namespace mptrain;
using namespace mptrain::monitor;

namespace {

CpuSet cpus(const char* text) { return CpuSet::parse(text).value(); }

ProcessSummary process(pid_t pid, const char* comm, const char* allowed, int pool_threads) {
  ProcessSummary summary;
  summary.pid = pid;
  summary.comm = comm;
  summary.cpus_allowed = allowed;
  summary.pool_threads = pool_threads;
  return summary;
}

// Two workers (pids 10 and 20) on CPUs 0-1 and 2-3.
const std::vector<LaunchedWorker> workers = {{0, 10, cpus("0-1")}, {1, 20, cpus("2-3")}};

}  // namespace

TEST_CASE("a child that inherited one CPU of its worker's several is named with the fix", "[monitor]") {
  Diagnosis diagnosis;
  diagnosis.processes = {process(10, "python3", "0", 1), process(21, "python3", "2", 1),
                         process(22, "python3", "2-3", 1)};
  const auto warnings = inherited_binding_warnings(workers, diagnosis, Unplaced::left);
  REQUIRE(warnings.size() == 1);  // the worker itself and a child on all of its worker's CPUs are fine
  CHECK(warnings[0].starts_with("pid 21 (python3), started by rank 1, ran on CPU 2 only though rank 1 has CPUs 2-3"));
  CHECK(warnings[0].ends_with("--children K gives each working child CPUs of its own"));
  CHECK(inherited_binding_warnings(workers, diagnosis, Unplaced::library_missing)[0].ends_with("reinstall mptrain"));
}

TEST_CASE("workers whose programs start pools get the --children command that gives each its CPUs", "[monitor]") {
  Diagnosis diagnosis;
  diagnosis.processes = {process(10, "python3", "0-1", 4), process(11, "python3", "0-1", 2),
                         process(12, "python3", "0-1", 2), process(21, "python3", "2-3", 2),
                         process(22, "python3", "2-3", 1)};
  const std::vector<std::string> argv = {"/usr/bin/mptrain", "run", "-n", "2", "--", "python3", "a b.py", ""};
  const auto advice = children_advice(workers, diagnosis, 0, argv);
  REQUIRE(advice);
  CHECK(advice->children == 2);  // three pools over two workers, rounded up
  CHECK(advice->command == "mptrain run -n 2 --children 2 -- python3 'a b.py'");
  CHECK(children_note(*advice).ends_with(":\n  mptrain run -n 2 --children 2 -- python3 'a b.py'"));
  CHECK_FALSE(children_advice(workers, diagnosis, 2, argv));                           // --children already given
  CHECK_FALSE(children_advice(workers, diagnosis, 0, {"mptrain", "run", "python3"}));  // no "--" to insert before
  diagnosis.processes.resize(3);
  CHECK_FALSE(children_advice(workers, diagnosis, 0, argv));  // one pool per worker: nothing to split
}

TEST_CASE("the gate's message names the verdict and the level it reached", "[monitor]") {
  Diagnosis diagnosis;
  diagnosis.verdict = Verdict::oversubscribed;
  CHECK(gate_message(diagnosis, FailOn::warning, false) ==
        "the monitor's verdict reaches --fail-on warning (it is oversubscribed); see its findings above");
  CHECK(gate_message(diagnosis, FailOn::oversubscribed, true)
            .starts_with("the monitor's verdict with its --ignore'd findings left out reaches"));
}

TEST_CASE("this process's command line is read word by word", "[monitor]") {
  const auto argv = own_command_line();
  REQUIRE_FALSE(argv.empty());
  CHECK(argv.front().find("test_monitor") != std::string::npos);
}

TEST_CASE("a gate fails a diagnosis that reaches its level, its ignored kinds left out", "[monitor]") {
  Diagnosis diagnosis;
  diagnosis.verdict = Verdict::oversubscribed;
  CHECK(fails(diagnosis, Gate{FailOn::warning, {}}));
  CHECK_FALSE(fails(diagnosis, Gate{FailOn::never, {}}));
  CHECK(failed_gate_message(diagnosis, Gate{FailOn::warning, {}}) == gate_message(diagnosis, FailOn::warning, false));
  CHECK(failed_gate_message(diagnosis, Gate{FailOn::warning, {FindingKind::outside_load}})
            .starts_with("the monitor's verdict with its --ignore'd findings left out"));
}

TEST_CASE("the children note counts the processes in words that fit the count", "[monitor]") {
  CHECK(children_note({1, "mptrain run --children 1 -- x"})
            .starts_with("mptrain: each worker's program started 1 process that each ran a thread pool"));
  CHECK(children_note({3, "mptrain run --children 3 -- x"})
            .starts_with("mptrain: each worker's program started 3 "
                         "processes that"));
}
