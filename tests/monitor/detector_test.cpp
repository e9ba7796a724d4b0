// The detector on synthetic sample series: plain structs, no processes.
#include "monitor/detector.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>

#include "monitor/report.hpp"

using namespace mptrain;
using namespace mptrain::monitor;

namespace {

// A thread that, every second, spends `on` s on CPU `cpu` and `wait` s on its run queue.
struct ThreadSpec {
  pid_t pid;
  pid_t tid;
  int cpu;
  double on;
  double wait;
  std::string allowed = "0-1";
};

// What the synthetic machine looks like.
struct Machine {
  std::vector<ThreadSpec> threads;
  std::vector<double> cpu_busy = {0, 0};  // busy fraction of each CPU (all load)
  std::map<pid_t, ThreadEnv> env;
  std::optional<double> throttled_fraction;  // of 10 periods per second, in cgroup v1:/job
  double quota_cpus = 0.5;
  int intervals = 4;
  double dt = 0.5;
};

constexpr double history_s = 10;  // counters before the first snapshot

Snapshot snapshot_at(const Machine& m, int k) {
  const double t = history_s + k * m.dt;
  Snapshot s;
  s.time_s = t;
  std::map<pid_t, ProcessSample> processes;
  for (const auto& spec : m.threads) {
    auto& p = processes[spec.pid];
    p.pid = spec.pid;
    p.comm = "worker" + std::to_string(spec.pid);
    p.cgroup = "v1:/job";
    if (auto it = m.env.find(spec.pid); it != m.env.end()) p.env = it->second;
    ThreadSample thread;
    thread.tid = spec.tid;
    thread.state = 'R';
    thread.last_cpu = spec.cpu;
    thread.on_cpu_ns = static_cast<std::uint64_t>(spec.on * t * 1e9);
    thread.wait_ns = static_cast<std::uint64_t>(spec.wait * t * 1e9);
    thread.nonvoluntary_switches = static_cast<std::uint64_t>(100 * t * spec.wait);
    thread.cpus_allowed = spec.allowed;
    p.threads.push_back(thread);
  }
  for (auto& [pid, p] : processes) s.processes.push_back(p);
  for (int cpu = 0; cpu < static_cast<int>(m.cpu_busy.size()); ++cpu) {
    s.machine.cpus.push_back(CpuTimes{cpu, m.cpu_busy[cpu] * t, t});
  }
  if (m.throttled_fraction) {
    CgroupSample group{"v1:/job", CgroupVersion::v1, "/job", "/sys/fs/cgroup/cpu/job", {}, {}};
    group.stat.nr_periods = static_cast<std::uint64_t>(10 * t);
    group.stat.nr_throttled = static_cast<std::uint64_t>(10 * t * *m.throttled_fraction);
    group.stat.throttled_ns = static_cast<std::uint64_t>(t * *m.throttled_fraction * 0.05 * 1e9);
    group.quota = CpuQuota{m.quota_cpus, static_cast<std::uint64_t>(m.quota_cpus * 100000), 100000};
    s.machine.cgroups.push_back(group);
  }
  return s;
}

std::vector<Snapshot> series(const Machine& m) {
  std::vector<Snapshot> out;
  for (int k = 0; k <= m.intervals; ++k) out.push_back(snapshot_at(m, k));
  return out;
}

Diagnosis run(const Machine& m, const Thresholds& t = {}) {
  return diagnose(accumulate(series(m)), Capacity{2, CpuSet::range(0, 1)}, t);
}

const Finding* find(const Diagnosis& d, std::string_view kind) {
  auto it = std::find_if(d.findings.begin(), d.findings.end(), [&](const Finding& f) { return f.kind == kind; });
  return it == d.findings.end() ? nullptr : &*it;
}

}  // namespace

TEST_CASE("one busy thread per CPU is healthy", "[monitor]") {
  Machine m;
  m.threads = {{1, 1, 0, 0.99, 0.01}, {2, 2, 1, 0.99, 0.01}};
  m.cpu_busy = {0.99, 0.99};
  const auto d = run(m);
  CHECK(d.verdict == Verdict::healthy);
  CHECK(d.findings.empty());
  CHECK(d.runnable_threads_avg == Approx(2.0).epsilon(0.01));
  CHECK(d.run_delay_ratio == Approx(0.0101).epsilon(0.05));
  CHECK(d.cpu_utilization == Approx(0.99).epsilon(0.01));
  CHECK(d.duration_s == Approx(2.0));
  CHECK(d.intervals == 4);
}

TEST_CASE("2x oversubscribed: 2 processes x 2 threads on 2 CPUs", "[monitor]") {
  Machine m;
  m.threads = {{1, 1, 0, 0.5, 0.5}, {1, 2, 1, 0.5, 0.5}, {2, 3, 0, 0.5, 0.5}, {2, 4, 1, 0.5, 0.5}};
  m.cpu_busy = {1, 1};
  m.env[1].counts[0] = 2;  // OMP_NUM_THREADS
  const auto d = run(m);
  CHECK(d.verdict == Verdict::oversubscribed);
  CHECK(d.runnable_threads_avg == Approx(4.0).epsilon(0.01));
  CHECK(d.run_delay_ratio == Approx(1.0).epsilon(0.01));
  const auto* demand = find(d, "demand_above_capacity");
  REQUIRE(demand != nullptr);
  CHECK(demand->numbers.at("demand_ratio") == Approx(2.0).epsilon(0.01));
  const auto* pool = find(d, "thread_pool_too_large");
  REQUIRE(pool != nullptr);
  CHECK(pool->message.find("2 processes × 2 busy threads = 4 threads on 2 usable CPUs") != std::string::npos);
  CHECK(pool->message.find("OMP_NUM_THREADS=2") != std::string::npos);
  CHECK(pool->fix.find("OMP_NUM_THREADS=1") != std::string::npos);
  CHECK(pool->fix.find("mptrain run -n 2") != std::string::npos);
  CHECK(find(d, "overlapping_affinity") == nullptr);
  CHECK(find(d, "outside_load") == nullptr);
}

TEST_CASE("4x oversubscribed: 4 processes x 2 threads on 2 CPUs", "[monitor]") {
  Machine m;
  for (pid_t p = 1; p <= 4; ++p) {
    m.threads.push_back({p, p * 10, 0, 0.25, 0.75});
    m.threads.push_back({p, p * 10 + 1, 1, 0.25, 0.75});
  }
  m.cpu_busy = {1, 1};
  const auto d = run(m);
  CHECK(d.verdict == Verdict::oversubscribed);
  CHECK(d.run_delay_ratio == Approx(3.0).epsilon(0.01));
  CHECK(d.runnable_threads_avg == Approx(8.0).epsilon(0.01));
  const auto* pool = find(d, "thread_pool_too_large");
  REQUIRE(pool != nullptr);
  CHECK(pool->message.find("4 processes × 2 busy threads = 8 threads on 2 usable CPUs") != std::string::npos);
  CHECK(pool->fix.find("set OMP_NUM_THREADS=1 and run at most 2 processes (`mptrain run -n 2`)") != std::string::npos);
  CHECK(d.nonvoluntary_switches_per_second == Approx(600).epsilon(0.02));
  REQUIRE(d.processes.size() == 4);
  CHECK(d.processes[0].busy_threads == 2);
  CHECK(d.processes[0].run_delay_ratio == Approx(3.0).epsilon(0.01));
}

TEST_CASE("a throttled cgroup is reported with its quota and a fix", "[monitor]") {
  Machine m;
  m.threads = {{1, 1, 0, 0.25, 0.75}, {1, 2, 1, 0.25, 0.75}};
  m.cpu_busy = {0.25, 0.25};
  m.throttled_fraction = 0.9;
  const auto d = run(m);
  CHECK(d.verdict == Verdict::oversubscribed);
  const auto* throttled = find(d, "cgroup_throttling");
  REQUIRE(throttled != nullptr);
  CHECK(throttled->severity == Verdict::oversubscribed);
  CHECK(throttled->numbers.at("throttled_ratio") == Approx(0.9).epsilon(0.02));
  CHECK(throttled->numbers.at("quota_cpus") == Approx(0.5));
  CHECK(throttled->message.find("0.50 CPU") != std::string::npos);
  CHECK(throttled->fix.find("OMP_NUM_THREADS=1") != std::string::npos);
  CHECK(throttled->fix.find("raise the quota to 2 CPUs") != std::string::npos);
  CHECK(find(d, "demand_above_capacity") == nullptr);
}

TEST_CASE("light throttling is only a warning", "[monitor]") {
  Machine m;
  m.threads = {{1, 1, 0, 0.9, 0.0}};
  m.cpu_busy = {0.9, 0};
  m.throttled_fraction = 0.1;
  const auto d = run(m);
  const auto* throttled = find(d, "cgroup_throttling");
  REQUIRE(throttled != nullptr);
  CHECK(throttled->severity == Verdict::warning);
  CHECK(d.verdict == Verdict::warning);
}

TEST_CASE("two busy threads pinned to one CPU while the other is left: overlapping affinity", "[monitor]") {
  Machine m;
  m.threads = {{1, 1, 1, 0.5, 0.5, "1"}, {2, 2, 1, 0.5, 0.5, "1"}};
  m.cpu_busy = {0.02, 1};
  const auto d = run(m);
  CHECK(d.verdict == Verdict::oversubscribed);
  CHECK(find(d, "demand_above_capacity") == nullptr);
  const auto* overlap = find(d, "overlapping_affinity");
  REQUIRE(overlap != nullptr);
  CHECK(overlap->numbers.at("cpu") == 1);
  CHECK(overlap->numbers.at("busy_threads") == 2);
  CHECK(overlap->message.find("CPU 0 is left (98% idle)") != std::string::npos);
  CHECK(overlap->fix.find("Cpus_allowed_list 1") != std::string::npos);
  CHECK(overlap->fix.find("taskset -c 0") != std::string::npos);
}

TEST_CASE("outside load alone makes a warning, never oversubscribed", "[monitor]") {
  Machine m;
  m.threads = {{1, 1, 1, 0.5, 0.5, "1"}};
  m.cpu_busy = {0.1, 1};
  const auto d = run(m);
  CHECK(d.verdict == Verdict::warning);
  const auto* outside = find(d, "outside_load");
  REQUIRE(outside != nullptr);
  CHECK(outside->numbers.at("outside_load_cpus") == Approx(0.5).epsilon(0.02));
  CHECK(outside->fix.find("idle CPUs 0") != std::string::npos);
  const auto* delay = find(d, "run_delay");
  REQUIRE(delay != nullptr);
  CHECK(delay->severity == Verdict::warning);
}

TEST_CASE("thresholds are overridable", "[monitor]") {
  Machine m;
  m.threads = {{1, 1, 0, 0.8, 0.2}, {2, 2, 1, 0.8, 0.2}};
  m.cpu_busy = {0.8, 0.8};
  CHECK(run(m).verdict == Verdict::warning);  // ratio 0.25: above the 0.10 warning
  Thresholds lenient;
  lenient.warn_run_delay_ratio = 0.3;
  lenient.max_run_delay_ratio = 0.6;
  CHECK(run(m, lenient).verdict == Verdict::healthy);
  Thresholds strict;
  strict.max_run_delay_ratio = 0.2;
  CHECK(run(m, strict).verdict == Verdict::oversubscribed);
}

TEST_CASE("a thread born during an interval counts from birth but an old one discovered late does not", "[monitor]") {
  Snapshot before;
  before.time_s = 100;
  before.processes.push_back(ProcessSample{});
  before.processes[0].pid = 1;
  Snapshot after = before;
  after.time_s = 100.5;
  ThreadSample born;
  born.tid = 2;
  born.on_cpu_ns = 300'000'000;
  ThreadSample old;
  old.tid = 3;
  old.on_cpu_ns = 50'000'000'000;
  after.processes[0].threads = {born, old};
  const Evidence e = between(before, after);
  CHECK(e.on_cpu_s == Approx(0.3));
  CHECK(e.threads.count(2) == 1);
  CHECK(e.threads.count(3) == 0);
}

TEST_CASE("fewer than two snapshots give an empty, healthy diagnosis", "[monitor]") {
  const auto d = diagnose(accumulate({}), Capacity{2, CpuSet::range(0, 1)});
  CHECK(d.verdict == Verdict::healthy);
  CHECK(d.run_delay_ratio == 0);
  CHECK_FALSE(d.cpu_pressure.has_value());
}

TEST_CASE("the JSON report has the contract's keys", "[monitor]") {
  Machine m;
  m.threads = {{1, 1, 0, 0.5, 0.5}, {1, 2, 0, 0.5, 0.5}, {1, 3, 1, 0.5, 0.5}, {1, 4, 1, 0.5, 0.5}};
  m.cpu_busy = {1, 1};
  const auto json = to_json(run(m));
  for (const char* key : {"verdict", "usable_cpus", "runnable_threads_avg", "run_delay_ratio",
                          "nonvoluntary_switches_per_second", "cpu_utilization", "findings", "processes"}) {
    CHECK(json.contains(key));
  }
  CHECK(json["verdict"] == "oversubscribed");
  CHECK(json["cpu_pressure"].is_null());
  CHECK(json["findings"][0].contains("kind"));
  CHECK(json["findings"][0].contains("message"));
  CHECK(json["processes"][0]["threads"] == 4);
  CHECK(to_text(run(m)).find("verdict: oversubscribed") == 0);
}

TEST_CASE("verdict names round-trip", "[monitor]") {
  CHECK(to_string(Verdict::warning) == "warning");
  CHECK(parse_verdict("oversubscribed").value_or(Verdict::healthy) == Verdict::oversubscribed);
  CHECK_FALSE(parse_verdict("sick").ok());
}

TEST_CASE("the text report counts one interval in the singular", "[monitor]") {
  Machine m;
  m.threads = {{1, 1, 0, 0.5, 0}};
  m.intervals = 1;
  CHECK(to_text(run(m)).find("(1 interval)\n") != std::string::npos);
  m.intervals = 2;
  CHECK(to_text(run(m)).find("(2 intervals)\n") != std::string::npos);
}
