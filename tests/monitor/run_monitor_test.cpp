// The monitor inside `mptrain run` on snapshots written by hand: what it
// says when the verdict changes, its text for the final report, and the
// threads it spreads. No processes: the threads' ids lie above the kernel's
// PID_MAX_LIMIT, so a move the spreader applies can reach no real thread.
#include "monitor/run_monitor.hpp"

#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "tests/monitor/synthetic_machine.hpp"
#include "util/text.hpp"

using namespace mptrain;
using namespace mptrain::monitor;
using synthetic::contains;
using synthetic::Machine;
using synthetic::ThreadSpec;

namespace {

constexpr pid_t no_such_pid = 1 << 23;  // above PID_MAX_LIMIT (2^22): no thread has this id
constexpr double interval_s = 0.25;     // the run monitor's sampling interval

// A run's workers whose counters advance, interval by interval, at the rates
// of whichever Machine the step is given (synthetic_machine.hpp), so that a
// run can change from one load to another.
class Workers {
 public:
  // The snapshot `interval_s` after the last one, the threads of `m` having run at its rates meanwhile.
  Snapshot step(const Machine& m) {
    time_s_ += interval_s;
    for (const auto& spec : m.threads) advance(threads_[spec.tid], synthetic::thread_at(spec, interval_s));
    for (std::size_t cpu = 0; cpu < m.cpu_busy.size(); ++cpu) {
      busy_s_[static_cast<int>(cpu)] += m.cpu_busy[cpu] * interval_s;
    }
    Snapshot s = synthetic::snapshot_at(m, 0);  // its processes, with the counters replaced by the run's
    s.time_s = time_s_;
    for (auto& process : s.processes) {
      for (auto& thread : process.threads) thread = threads_[thread.tid];
    }
    s.machine.cpus.clear();
    for (const auto& [cpu, busy] : busy_s_) s.machine.cpus.push_back(CpuTimes{cpu, busy, time_s_});
    return s;
  }

 private:
  // Adds the counters of `more` (one interval's worth) to `into`; its CPU, mask and name are the latest.
  static void advance(ThreadSample& into, const ThreadSample& more) {
    into.tid = more.tid;
    into.comm = more.comm;
    into.state = more.state;
    into.last_cpu = more.last_cpu;
    into.cpus_allowed = more.cpus_allowed;
    into.on_cpu_ns += more.on_cpu_ns;
    into.wait_ns += more.wait_ns;
    into.timeslices += more.timeslices;
    into.voluntary_switches += more.voluntary_switches;
    into.nonvoluntary_switches += more.nonvoluntary_switches;
  }

  double time_s_ = 10;
  std::map<pid_t, ThreadSample> threads_;
  std::map<int, double> busy_s_;
};

// 3 one-thread processes spinning on 2 CPUs, each queued a third of the time: oversubscribed.
Machine three_spinners() {
  Machine m;
  for (pid_t p = 1; p <= 3; ++p) m.threads.push_back({p, no_such_pid + p, p % 2, 2.0 / 3, 1.0 / 3, "0-1", 100});
  m.cpu_busy = {1, 1};
  return m;
}

// One process whose 2 threads float over CPUs 0-1, each nearly always on its CPU: healthy.
Machine two_busy_threads() {
  Machine m;
  m.threads = {ThreadSpec{1, no_such_pid + 1, 0, 0.99, 0.01}, ThreadSpec{1, no_such_pid + 2, 1, 0.99, 0.01}};
  m.cpu_busy = {0.99, 0.99};
  return m;
}

// Threads that barely run: too little evidence to judge.
Machine sleepers() {
  Machine m;
  m.threads = {ThreadSpec{1, no_such_pid + 1, 0, 0.001, 0, "0-1", 1}};
  return m;
}

Capacity two_cpus() { return Capacity{2, CpuSet::range(0, 1), {}}; }

// Feeds `intervals` intervals of `m` (and the first snapshot when `monitor` has none yet).
void feed(RunMonitor& monitor, Workers& workers, const Machine& m, int intervals) {
  for (int i = 0; i < intervals; ++i) monitor.add(workers.step(m));
}

}  // namespace

TEST_CASE("run monitor: a run that ends within one interval has no verdict", "[monitor]") {
  RunMonitor monitor(two_cpus());
  Workers workers;
  CHECK(monitor.text() == "monitor no verdict: the run ended within one sampling interval\n");
  monitor.add(workers.step(three_spinners()));  // one snapshot starts the first interval, and ends none
  CHECK(monitor.text() == "monitor no verdict: the run ended within one sampling interval\n");
  CHECK(monitor.live_verdict() == "inconclusive");
  CHECK(monitor.verdict_change().message.empty());
}

TEST_CASE("run monitor: its diagnosis is made inside mptrain, with the run's own launch", "[monitor]") {
  Capacity capacity = two_cpus();
  capacity.launch.workers = 3;
  RunMonitor monitor(capacity);
  Workers workers;
  feed(monitor, workers, three_spinners(), 5);
  const auto d = monitor.diagnosis();
  CHECK(d.capacity.launch.inside_mptrain);
  CHECK(d.capacity.launch.workers == 3);
  CHECK(d.capacity.usable_cpus == 2);
  CHECK(d.intervals == 4);
}

TEST_CASE("run monitor: a worse verdict is said once, with its worst finding", "[monitor]") {
  RunMonitor monitor(two_cpus());
  Workers workers;
  feed(monitor, workers, three_spinners(), 5);
  CHECK(monitor.live_verdict() == "oversubscribed");
  const auto change = monitor.verdict_change();
  CHECK_FALSE(change.recovered);
  CHECK(change.message.rfind("monitor: oversubscribed: ", 0) == 0);
  const auto recent = monitor.diagnosis();
  REQUIRE_FALSE(recent.findings.empty());
  CHECK(contains(change.message, recent.findings.front().message));
  CHECK(monitor.verdict_change().message.empty());  // unchanged since: nothing to say
}

TEST_CASE("run monitor: a return to healthy is said as good news", "[monitor]") {
  RunMonitor monitor(two_cpus());
  Workers workers;
  feed(monitor, workers, three_spinners(), 5);
  REQUIRE(monitor.verdict_change().message.rfind("monitor: oversubscribed", 0) == 0);
  feed(monitor, workers, two_busy_threads(), 12);  // 3 s: the 2 s recent window holds healthy intervals only
  CHECK(monitor.live_verdict() == "healthy");
  const auto change = monitor.verdict_change();
  CHECK(change.recovered);
  CHECK(change.message == "monitor: the workers are healthy again");
  CHECK(monitor.verdict_change().message.empty());
}

TEST_CASE("run monitor: a healthy start says nothing", "[monitor]") {
  RunMonitor monitor(two_cpus());
  Workers workers;
  feed(monitor, workers, two_busy_threads(), 5);
  CHECK(monitor.live_verdict() == "healthy");
  CHECK(monitor.verdict_change().message.empty());
}

TEST_CASE("run monitor: a quiet spell leaves the last verdict standing", "[monitor]") {
  RunMonitor monitor(two_cpus());
  Workers workers;
  feed(monitor, workers, three_spinners(), 5);
  REQUIRE_FALSE(monitor.verdict_change().message.empty());
  feed(monitor, workers, sleepers(), 12);
  CHECK(monitor.live_verdict() == "healthy");       // the window slept: nothing waited
  CHECK(monitor.verdict_change().message.empty());  // not "healthy again": a spell of sleep is no news
  feed(monitor, workers, three_spinners(), 12);
  CHECK(monitor.verdict_change().message.empty());  // still the oversubscription already said
}

TEST_CASE("run monitor: its text is the doctor's report after 'monitor ', the rest indented", "[monitor]") {
  RunMonitor monitor(two_cpus());
  Workers workers;
  feed(monitor, workers, three_spinners(), 5);
  const std::string text = monitor.text();
  CHECK(text.rfind("monitor verdict: oversubscribed\n", 0) == 0);
  const auto lines = split(text, '\n');
  REQUIRE(lines.size() > 3);
  for (std::size_t i = 1; i < lines.size(); ++i) {
    if (i + 1 == lines.size()) {
      CHECK(lines[i].empty());  // the text ends with a newline
    } else {
      CHECK(lines[i].substr(0, 2) == "  ");
    }
  }
  CHECK(contains(text, "\n  findings:\n"));
}

TEST_CASE("run monitor: quiet, its text says the verdict and the fixes only", "[monitor]") {
  RunMonitor monitor(two_cpus());
  Workers workers;
  feed(monitor, workers, three_spinners(), 5);
  monitor.set_detail(RunMonitor::Detail::quiet);
  const std::string text = monitor.text();
  CHECK(text.rfind("monitor verdict: oversubscribed\n", 0) == 0);
  CHECK_FALSE(contains(text, "findings"));
  const auto lines = split(text, '\n');
  REQUIRE(lines.size() > 2);
  for (std::size_t i = 1; i + 1 < lines.size(); ++i) CHECK(lines[i].substr(0, 7) == "    fix");
}

TEST_CASE("run monitor: a healthy run's text is two lines of 80 columns and --verbose the whole report", "[monitor]") {
  RunMonitor monitor(two_cpus());
  Workers workers;
  feed(monitor, workers, two_busy_threads(), 5);
  REQUIRE(monitor.diagnosis().verdict == Verdict::healthy);
  const std::string text = monitor.text();
  INFO(text);
  CHECK(text.rfind("monitor verdict: healthy (watched 1.0 s; --verbose or --json for the figures)\n", 0) == 0);
  const auto lines = split(text, '\n');
  REQUIRE(lines.size() == 3);  // two lines and the newline that ends them
  CHECK(lines[1].rfind("    2.00 working threads on 2 usable CPUs, ", 0) == 0);
  CHECK(lines[1].find(" queued, throughput lost ") != std::string_view::npos);
  for (const auto& line : lines) CHECK(line.size() <= 80);
  monitor.set_detail(RunMonitor::Detail::full);
  CHECK(contains(monitor.text(), "runnable threads (avg)"));
  // Not healthy: the whole report by default (the oversubscribed case above).
}

TEST_CASE("run monitor: its report is the whole run's diagnosis as JSON", "[monitor]") {
  RunMonitor monitor(two_cpus());
  Workers workers;
  feed(monitor, workers, three_spinners(), 5);
  const auto report = monitor.report();
  CHECK(report.at("verdict") == "oversubscribed");
  CHECK(report.at("intervals") == 4);
}

TEST_CASE("run monitor: without --spread-threads it spreads nothing", "[monitor]") {
  RunMonitor monitor(two_cpus());
  Workers workers;
  feed(monitor, workers, two_busy_threads(), 5);
  CHECK_FALSE(monitor.spread_threads().has_value());
}

TEST_CASE("run monitor: with --spread-threads it pins a process's floating busy threads a CPU each", "[monitor]") {
  RunMonitor monitor(two_cpus(), SpreadThreads::on);
  Workers workers;
  CHECK(monitor.spread_threads() == 0);
  feed(monitor, workers, two_busy_threads(), 2);
  CHECK(monitor.spread_threads() == 2);
}
