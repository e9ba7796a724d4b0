// Merging evidence windows: every counter adds up, the latest identity
// wins, and entries only one window has are kept. (That merge forgets no
// member is checked when it compiles: it binds them all.)
#include "monitor/evidence.hpp"

#include <catch2/catch.hpp>

using namespace mptrain;
using namespace mptrain::monitor;

namespace {

// A window of `seconds` with one thread of process 10 and CPU 0 and one cgroup, each counter `x`.
Evidence window(double seconds, double x, const std::string& comm) {
  Evidence e;
  e.duration_s = seconds;
  e.intervals = 1;
  e.on_cpu_s = e.wait_s = e.queued_s = e.working_s = x;
  e.peak_working = x;
  e.work = {x, x, x, x};
  e.timeslices = 1;
  e.voluntary_switches = e.nonvoluntary_switches = 2;
  ThreadEvidence thread;
  thread.pid = 10;
  thread.tid = 11;
  thread.comm = comm;
  thread.on_cpu_s = thread.wait_s = thread.queued_s = thread.working_s = thread.observed_s = x;
  thread.timeslices = 3;
  thread.last_cpu = static_cast<int>(x);
  thread.cpus_allowed = comm;
  e.threads[11] = thread;
  ProcessEvidence process;
  process.pid = 10;
  process.comm = comm;
  process.max_threads = static_cast<int>(x);
  process.on_cpu_s = process.wait_s = process.queued_s = x;
  process.work = {x, x, x, x};
  e.processes[10] = process;
  e.cpus[0] = {x, x, x, x, x};
  CgroupEvidence group;
  group.path = comm;
  group.periods = group.throttled_periods = 4;
  group.throttled_s = x;
  e.cgroups["cpu:/" + comm.substr(0, 1)] = group;
  e.pressure_some_s = x;
  return e;
}

}  // namespace

TEST_CASE("merged windows add their counters and keep the latest identity", "[monitor]") {
  Evidence total = window(1, 1, "alpha");
  merge(total, window(2, 3, "fresh"));
  CHECK(total.duration_s == 3);
  CHECK(total.intervals == 2);
  CHECK(total.on_cpu_s == 4);
  CHECK(total.peak_working == 3);
  CHECK(total.work.progress_s == 4);
  CHECK(total.timeslices == 2);
  CHECK(total.nonvoluntary_switches == 4);
  CHECK(total.pressure_some_s == 4);
  const auto& thread = total.threads.at(11);
  CHECK(thread.comm == "fresh");
  CHECK(thread.observed_s == 4);
  CHECK(thread.timeslices == 6);
  CHECK(thread.last_cpu == 3);
  CHECK(thread.cpus_allowed == "fresh");
  const auto& process = total.processes.at(10);
  CHECK(process.comm == "fresh");
  CHECK(process.max_threads == 3);
  CHECK(process.work.useful_s == 4);
  CHECK(total.cpus.at(0).job_queued_s == 4);
  CHECK(total.cgroups.size() == 2);  // two keys, each kept
  CHECK(total.cgroups.at("cpu:/f").throttled_periods == 4);
}

TEST_CASE("merging into an empty window copies the window", "[monitor]") {
  Evidence total;
  merge(total, window(2, 3, "only"));
  CHECK(total.duration_s == 2);
  CHECK(total.threads.at(11).on_cpu_s == 3);
  CHECK(total.cpus.at(0).busy_s == 3);
  CHECK(total.cgroups.at("cpu:/o").throttled_s == 3);
  CHECK(total.pressure_some_s == 3);
}
