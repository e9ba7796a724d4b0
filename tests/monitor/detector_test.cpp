// The detector on synthetic sample series: plain structs, no processes.
#include "monitor/detector.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <optional>

#include "monitor/report.hpp"
#include "tests/monitor/synthetic_machine.hpp"

using namespace mptrain;
using namespace mptrain::monitor;

namespace {

using namespace mptrain::monitor::synthetic;

// 3 CPU-bound threads on 2 CPUs: each runs 2/3 and queues 1/3 of the time, 3.3 ms per slice.
// 3 one-thread spinning processes on 2 CPUs, each queued a third of the time.
Machine three_spinners() {
  Machine m;
  for (pid_t p = 1; p <= 3; ++p) m.threads.push_back({p, p * 100, p % 2, 2.0 / 3, 1.0 / 3, "0-1", 100});
  m.cpu_busy = {1, 1};
  return m;
}

}  // namespace

TEST_CASE("one busy thread per CPU is healthy, and measured", "[monitor]") {
  Machine m;
  m.threads = {{1, 1, 0, 0.99, 0.01}, {2, 2, 1, 0.99, 0.01}};
  m.cpu_busy = {0.99, 0.99};
  const auto d = run(m);
  CHECK(d.verdict == Verdict::healthy);
  CHECK(d.evidence.sufficient);
  CHECK(d.findings.empty());
  CHECK(d.runnable_threads_avg == Approx(2.0).epsilon(0.01));
  CHECK(d.waiting_threads_avg == Approx(0.02).epsilon(0.05));
  CHECK(d.wait_per_slice_ms_mean == Approx(0.1).epsilon(0.05));
  CHECK(d.queued_threads_avg == Approx(0.02).epsilon(0.05));  // CPU-bound: its little wait counts
  CHECK(d.cpu_utilization == Approx(0.99).epsilon(0.01));
  CHECK(d.duration_s == Approx(2.0));
  CHECK(d.intervals == 4);
}

TEST_CASE("wake-up latency only: many sleeping threads with a huge run-delay ratio are healthy", "[monitor]") {
  // 64 threads each run 2 ms and wait 20 ms per second over 100 wake-ups: 0.2 ms per slice.
  const Machine m = pool(1, 64, 0.002, 0.02, 100);
  const auto d = run(m);
  REQUIRE(d.evidence.sufficient);
  CHECK(d.run_delay_ratio == Approx(10).epsilon(0.02));
  CHECK(d.waiting_threads_avg == Approx(1.28).epsilon(0.02));
  CHECK(d.wait_per_slice_ms_mean == Approx(0.2).epsilon(0.02));
  CHECK(d.queued_threads_avg == 0);
  CHECK(d.verdict == Verdict::healthy);
  CHECK(d.findings.empty());
  REQUIRE(d.processes.size() == 1);
  CHECK(d.processes[0].threads_ran == 64);
  CHECK(d.processes[0].pool_threads == 0);
}

TEST_CASE("queueing behind CPU hogs: 3 spinners on 2 CPUs are oversubscribed", "[monitor]") {
  const auto d = run(three_spinners());
  CHECK(d.verdict == Verdict::oversubscribed);
  CHECK(d.runnable_threads_avg == Approx(3.0).epsilon(0.01));
  CHECK(d.queued_threads_avg == Approx(1.0).epsilon(0.01));
  CHECK(d.wait_per_slice_ms_mean == Approx(3.33).epsilon(0.01));
  CHECK(d.wait_per_slice_ms_p95 == Approx(3.33).epsilon(0.13));
  const auto demand = find(d, FindingKind::demand_above_capacity);
  REQUIRE(demand.has_value());
  CHECK(demand->severity == Verdict::oversubscribed);
  CHECK(demand->numbers.at("demand_ratio") == Approx(1.5).epsilon(0.01));
  const auto queueing = find(d, FindingKind::queueing);
  REQUIRE(queueing.has_value());
  CHECK(queueing->severity == Verdict::oversubscribed);
  CHECK(contains(queueing->message, "about 50% longer"));
}

TEST_CASE("too little evidence: a job that barely ran is inconclusive with a note, whatever its ratios", "[monitor]") {
  // 8 threads, 1 ms on CPU and 5 ms queued (5 ms per slice) per second: 0.008 CPU-seconds in 1 s.
  Machine m = pool(1, 8, 0.001, 0.005, 1);
  m.intervals = 2;
  const auto d = run(m);
  CHECK_FALSE(d.evidence.sufficient);
  CHECK(contains(d.evidence.note, "0.008 CPU-seconds"));
  CHECK(d.run_delay_ratio == Approx(5).epsilon(0.02));
  CHECK(d.verdict == Verdict::inconclusive);
  CHECK(d.findings.empty());
  const auto json = to_json(d);
  CHECK(json["verdict"] == "inconclusive");
  CHECK(json["measured"] == false);
  CHECK(json["evidence"].get<std::string>() == d.evidence.note);
  CHECK(contains(to_text(d), "evidence:               too little:"));
  CHECK(to_text(d).find("verdict: inconclusive (too little evidence, see \"evidence\" below)\n") == 0);
}

TEST_CASE("barrier-synchronised pools: 2 processes x 2 threads that sleep at barriers are found", "[monitor]") {
  // Each OpenMP worker wants a CPU 45% of the time (below the old 0.5 'busy' mark) and queues 2 ms per slice.
  Machine m;
  for (pid_t p = 1; p <= 2; ++p) {
    m.threads.push_back({p, p * 10, 0, 0.3, 0.15, "0-1", 75});
    m.threads.push_back({p, p * 10 + 1, 1, 0.3, 0.15, "0-1", 75});
  }
  m.cpu_busy = {0.6, 0.6};
  m.env[1].counts[0] = 2;  // OMP_NUM_THREADS
  const auto d = run(m);
  CHECK(d.runnable_threads_avg == Approx(1.8).epsilon(0.01));  // below N: no demand finding
  CHECK(!find(d, FindingKind::demand_above_capacity).has_value());
  const auto pool_finding = find(d, FindingKind::thread_pool_too_large);
  REQUIRE(pool_finding.has_value());
  CHECK(pool_finding->severity == Verdict::oversubscribed);
  CHECK(contains(pool_finding->message, "2 processes × 2 pool threads = 4 threads on 2 usable CPUs"));
  CHECK(contains(pool_finding->message, "OMP_NUM_THREADS=2"));
  CHECK(contains(pool_finding->fix, "OMP_NUM_THREADS=1"));
  CHECK(contains(pool_finding->fix, "mptrain run -n 2"));
  CHECK(d.verdict == Verdict::oversubscribed);
}

TEST_CASE("a parent that worked before forking its workers is not one of the pools side by side", "[monitor]") {
  Machine m;
  m.threads.push_back({1, 1, 0, 0.2, 0.0});  // the parent: loaded data, then waits (a fifth of a CPU)
  for (pid_t p = 2; p <= 3; ++p) {
    m.threads.push_back({p, p * 10, 0, 0.4, 0.6});
    m.threads.push_back({p, p * 10 + 1, 1, 0.4, 0.6});
  }
  m.cpu_busy = {1, 1};
  const auto d = run(m);
  const auto pool_finding = find(d, FindingKind::thread_pool_too_large);
  REQUIRE(pool_finding.has_value());
  CHECK(contains(pool_finding->message, "2 processes × 2 pool threads = 4 threads on 2 usable CPUs"));
  CHECK(contains(pool_finding->fix, "run each with 1 thread: `OMP_NUM_THREADS=1 CMD`"));
  CHECK(contains(pool_finding->fix, "mptrain run -n 2"));
  CHECK(contains(pool_finding->fix, "pins each process to its own CPU"));
  // Workers forked by one program (multiprocessing): the fix names the program that started them,
  // as one worker of mptrain's with 2 working children.
  m.cmdline = {{1, "python3 train.py --workers 2"}, {2, "python3 -c spawn_main(7)"}, {3, "python3 -c spawn_main(9)"}};
  m.ppid = {{2, 1}, {3, 1}};
  const auto forked = find(run(m), FindingKind::thread_pool_too_large);
  CHECK(contains(forked->fix, "`OMP_NUM_THREADS=1 python3 train.py --workers 2`"));
  CHECK(contains(forked->fix, "`mptrain run -n 1 --children 2 -- python3 train.py --workers 2`"));
  CHECK_FALSE(contains(forked->fix, "mptrain run -n 2"));
  // Copies forked without an exec show their parent's command line: still one program's children.
  m.cmdline = {{1, "python3 train.py"}, {2, "python3 train.py"}, {3, "python3 train.py"}};
  CHECK(contains(find(run(m), FindingKind::thread_pool_too_large)->fix,
                 "`mptrain run -n 1 --children 2 -- python3 train.py`"));
  // Copies of another command, started by a script: N programs, each its own worker of mptrain's.
  m.cmdline = {{1, "sh run_all.sh"}, {2, "python3 train.py"}, {3, "python3 train.py"}};
  const auto copies = find(run(m), FindingKind::thread_pool_too_large);
  CHECK(contains(copies->fix, "`mptrain run -n 2 -- python3 train.py`"));
  CHECK_FALSE(contains(copies->fix, "--children"));
  m.cmdline.clear();
  m.ppid.clear();
  CHECK(d.processes.back().pool_threads == 1);  // still reported as the parent's own pool
  Thresholds t;                                 // the edge of busy-process-demand: the parent wants 0.2 CPUs
  t.busy_process_demand = 0.19;
  CHECK(contains(find(run(m, t), FindingKind::thread_pool_too_large)->message, "3 processes × 1–2 pool threads"));
}

TEST_CASE("a pool finding names the runtimes that own the threads and the exact command that fits", "[monitor]") {
  Machine m;
  for (pid_t p = 1; p <= 2; ++p) {
    m.threads.push_back({p, p * 10, 0, 0.5, 0.5});
    m.threads.push_back({p, p * 10 + 1, 1, 0.5, 0.5});
    m.cmdline[p] = "python3 main.py";
    m.runtimes[p] = {{RuntimeKind::pytorch, "libtorch_cpu.so.1.13"}, {RuntimeKind::gnu_openmp, "libgomp.so.1.0.0"}};
  }
  m.cpu_busy = {1, 1};
  const auto pool_finding = find(run(m), FindingKind::thread_pool_too_large);
  REQUIRE(pool_finding.has_value());
  CHECK(contains(pool_finding->message, "GNU OpenMP (libgomp.so.1.0.0, sized by OMP_NUM_THREADS)"));
  CHECK(contains(pool_finding->message, "PyTorch (libtorch_cpu.so.1.13, sized by torch.set_num_threads)"));
  CHECK(contains(pool_finding->fix, "`OMP_NUM_THREADS=1 python3 main.py`"));
  CHECK(contains(pool_finding->fix, "torch.set_num_threads(1)"));
  CHECK(contains(pool_finding->fix, "`mptrain run -n 2 -- python3 main.py`"));
  m.cmdline[2] = "python3 other.py";  // different programs: no shared command to name
  CHECK(contains(find(run(m), FindingKind::thread_pool_too_large)->fix, "`OMP_NUM_THREADS=1 CMD`"));
}

TEST_CASE("4 processes x 2 threads on 2 CPUs: pools, demand and exact switch rates", "[monitor]") {
  Machine m;
  for (pid_t p = 1; p <= 4; ++p) {
    m.threads.push_back({p, p * 10, 0, 0.25, 0.75});
    m.threads.push_back({p, p * 10 + 1, 1, 0.25, 0.75});
  }
  m.cpu_busy = {1, 1};
  const auto d = run(m);
  CHECK(d.verdict == Verdict::oversubscribed);
  CHECK(d.runnable_threads_avg == Approx(8.0).epsilon(0.01));
  const auto pool_finding = find(d, FindingKind::thread_pool_too_large);
  REQUIRE(pool_finding.has_value());
  CHECK(contains(pool_finding->message, "4 processes × 2 pool threads = 8 threads on 2 usable CPUs"));
  CHECK(contains(pool_finding->fix, "run at most 2 CPU-bound processes at once, one thread each"));
  CHECK(d.nonvoluntary_switches_per_second == Approx(600).epsilon(0.02));
  CHECK(d.voluntary_switches_per_second == Approx(80).epsilon(0.02));
  REQUIRE(d.processes.size() == 4);
  CHECK(d.processes[0].pool_threads == 2);
  CHECK(d.processes[0].run_delay_ratio == Approx(3.0).epsilon(0.01));
  CHECK(d.threads.size() == 8);
  CHECK(d.threads[0].wait_per_slice_ms == Approx(7.5).epsilon(0.01));
}

TEST_CASE("a throttled cgroup is reported with its quota and a fix", "[monitor]") {
  Machine m;
  m.threads = {{1, 1, 0, 0.25, 0.75}, {1, 2, 1, 0.25, 0.75}};
  m.cpu_busy = {0.25, 0.25};
  m.throttled_fraction = 0.9;
  const auto d = run(m);
  CHECK(d.verdict == Verdict::oversubscribed);
  const auto throttled = find(d, FindingKind::cgroup_throttling);
  REQUIRE(throttled.has_value());
  CHECK(throttled->severity == Verdict::oversubscribed);
  CHECK(throttled->numbers.at("throttled_ratio") == Approx(0.9).epsilon(0.02));
  CHECK(throttled->numbers.at("quota_cpus") == Approx(0.5));
  CHECK(contains(throttled->message, "0.50 CPU"));
  CHECK(contains(throttled->fix, "OMP_NUM_THREADS=1"));
  CHECK(contains(throttled->fix, "raise the quota to 2 CPUs"));
  CHECK(!find(d, FindingKind::demand_above_capacity).has_value());
}

TEST_CASE("processes of one thread each over a quota: fewer processes, a quota of the CPUs they wanted", "[monitor]") {
  // A program's 3 processes of one thread each in a 1-CPU quota, wanting 1.85 CPUs in all (issue 55: the fix
  // was "run at most 1 thread (OMP_NUM_THREADS=1 …), or raise the quota to 3 CPUs", under a run whose
  // variables said 1 already).
  Machine m;
  m.threads = {{1, 1, 0, 0.45, 0.2}, {2, 2, 1, 0.3, 0.3}, {3, 3, 0, 0.3, 0.3}};
  m.cpu_busy = {0.6, 0.45};
  m.quota_cpus = 1.0;
  m.throttled_fraction = 0.6;
  m.throttled_per_period = 0.04;
  const auto throttled = find(run(m), FindingKind::cgroup_throttling);
  REQUIRE(throttled.has_value());
  CHECK(contains(throttled->fix, "3 processes want more than the quota allows, one thread each already"));
  CHECK(contains(throttled->fix, "run at most 1 at once"));
  CHECK(contains(throttled->fix, "raise the quota to 2 CPUs (200000 µs per 100000 µs period)"));
  CHECK(!contains(throttled->fix, "OMP_NUM_THREADS"));
}

TEST_CASE("inside mptrain run, the throttling fix names no launch: the running one is it", "[monitor]") {
  Machine m;
  m.threads = {{1, 1, 0, 0.25, 0.75}, {1, 2, 1, 0.25, 0.75}};
  m.cpu_busy = {0.25, 0.25};
  m.throttled_fraction = 0.9;
  const auto bare = find(run(m), FindingKind::cgroup_throttling);
  REQUIRE(bare.has_value());
  CHECK(contains(bare->fix, "`mptrain run -n 1 -t 1`"));
  const auto inside = diagnose(accumulate(series(m), queue_rule({}, 2)),
                               Capacity{2, CpuSet::range(0, 1), Launch{true, 1, 0, false}}, {});
  const auto throttled = find(inside, FindingKind::cgroup_throttling);
  REQUIRE(throttled.has_value());
  CHECK(contains(throttled->fix, "OMP_NUM_THREADS=1"));
  CHECK(!contains(throttled->fix, "mptrain run"));
}

TEST_CASE("a job held to a tiny quota ran little but wanted CPU: measured, throttled, not asleep", "[monitor]") {
  // One busy loop under a 1% quota: on a CPU 1% of the time, waiting the rest, throttled every period.
  Machine m;
  m.threads = {{1, 1, 0, 0.01, 0.99, "0-1", 10}};
  m.cpu_busy = {0.01, 0};
  m.throttled_fraction = 1.0;
  m.throttled_per_period = 0.099;
  m.quota_cpus = 0.01;
  const auto d = run(m);
  CHECK(d.evidence.sufficient);
  const auto throttled = find(d, FindingKind::cgroup_throttling);
  REQUIRE(throttled.has_value());
  CHECK(throttled->severity == Verdict::oversubscribed);
  CHECK(d.verdict == Verdict::oversubscribed);
  // The same thread without the cgroup, left waiting behind other load: still measured (it wanted CPU).
  m.throttled_fraction.reset();
  CHECK(run(m).evidence.sufficient);
}

TEST_CASE("sleepers that ran little and wanted little: no ratio, healthy only after a long enough watch", "[monitor]") {
  Machine m;
  m.threads = {{1, 1, 0, 0.005, 0.001, "0-1", 50}, {1, 2, 1, 0.005, 0.001, "0-1", 50}};
  const auto watched = run(m);  // 4 intervals, 2 s
  CHECK(watched.evidence.quiet);
  CHECK(watched.verdict == Verdict::healthy);
  CHECK(watched.findings.empty());
  m.intervals = 1;
  CHECK(!run(m).evidence.sufficient);
}

TEST_CASE("light throttling is only a warning", "[monitor]") {
  Machine m;
  m.threads = {{1, 1, 0, 0.9, 0.0}};
  m.cpu_busy = {0.9, 0};
  m.throttled_fraction = 0.1;
  const auto d = run(m);
  const auto throttled = find(d, FindingKind::cgroup_throttling);
  REQUIRE(throttled.has_value());
  CHECK(throttled->severity == Verdict::warning);
  CHECK(d.verdict == Verdict::warning);
}

TEST_CASE("a quota used exactly, throttled for microseconds now and then, is no finding", "[monitor]") {
  Machine m;
  m.threads = {{1, 1, 0, 0.99, 0.0}};
  m.cpu_busy = {0.99, 0};
  m.throttled_fraction = 0.07;       // 7% of the periods, as one busy thread under a 1-CPU quota showed
  m.throttled_per_period = 0.00005;  // 50 µs each: 0.0035% of the time held back
  const auto d = run(m);
  CHECK(!find(d, FindingKind::cgroup_throttling).has_value());
  CHECK(d.verdict == Verdict::healthy);
  Thresholds t;  // the edge of min-throttled-share: 0.0035% of the window
  t.min_throttled_share = 0.00003;
  CHECK(find(run(m, t), FindingKind::cgroup_throttling).has_value());
  t.min_throttled_share = 0.00004;
  CHECK(!find(run(m, t), FindingKind::cgroup_throttling).has_value());
}

TEST_CASE("pools that fit the quota: light throttling is no finding, heavy throttling blames the rest", "[monitor]") {
  // One busy thread under a 1-CPU quota, with the job's own helpers tipping the cgroup over in two periods
  // of three (a BLIS program capped to 1 thread under `mptrain run`: 0.03 s throttled in 1.8 s).
  Machine m;
  m.threads = {{1, 1, 0, 0.95, 0.0}};
  m.cpu_busy = {0.95, 0};
  m.quota_cpus = 1.0;
  m.throttled_fraction = 0.67;
  m.throttled_per_period = 0.0025;  // 1.7% of the time held back
  const auto light = run(m);
  CHECK(!find(light, FindingKind::cgroup_throttling).has_value());
  CHECK(light.verdict == Verdict::healthy);
  // Held back a third of the time: a finding, whose fix does not ask for fewer threads than the one running.
  m.throttled_per_period = 0.05;
  const auto heavy = find(run(m), FindingKind::cgroup_throttling);
  REQUIRE(heavy.has_value());
  CHECK(contains(heavy->fix, "the pools fit the quota (1 thread for 1.00 CPU)"));
  CHECK(!contains(heavy->fix, "run at most"));
  // The edge is warn-throughput-loss: 1.7% is over it when it is 1%.
  m.throttled_per_period = 0.0025;
  Thresholds t;
  t.warn_throughput_loss = 0.01;
  CHECK(find(run(m, t), FindingKind::cgroup_throttling).has_value());
  // Two threads in the same quota do not fit it: the light throttling is a finding, with the thread fix.
  m.threads = {{1, 1, 0, 0.5, 0.4}, {1, 2, 1, 0.5, 0.4}};
  m.cpu_busy = {0.5, 0.5};
  const auto two = find(run(m), FindingKind::cgroup_throttling);
  REQUIRE(two.has_value());
  CHECK(contains(two->fix, "run at most 1 thread"));
}

TEST_CASE("threads that come and go between samples count as the job's CPU and its pool", "[monitor]") {
  // A BLIS-style program under a 1-CPU quota: its main thread on CPU half the time, a helper started inside
  // each call for the other half and joined before the next sample; the cgroup held back most of the time.
  Machine m;
  m.threads = {{1, 1, 0, 0.5, 0.4}};
  m.cpu_busy = {0.5, 0.45};
  m.short_lived = {{1, 0.45}};
  m.quota_cpus = 1.0;
  m.throttled_fraction = 1.0;
  m.throttled_per_period = 0.05;
  m.runtimes = {{1, {Runtime{RuntimeKind::blis, "libblis.so.4"}}}};
  const auto d = run(m);
  CHECK(d.short_lived_cpu_utilization == Approx(0.45 / 2).epsilon(0.01));
  CHECK(d.cpu_utilization == Approx(0.95 / 2).epsilon(0.01));
  REQUIRE(d.processes.size() == 1);
  CHECK(d.processes[0].pool_threads == 2);  // the main thread and, at a time, one that came and went
  CHECK(d.processes[0].cpu_seconds == Approx(0.95 * 2).epsilon(0.01));
  // Its CPU is the job's, not other load's; the quota's fix names the runtime's variable.
  CHECK(!find(d, FindingKind::outside_load).has_value());
  const auto throttled = find(d, FindingKind::cgroup_throttling);
  REQUIRE(throttled.has_value());
  CHECK(contains(throttled->fix, "BLIS_NUM_THREADS=1"));
  // A process whose CPU time is all its sampled threads': nothing counted.
  m.short_lived.clear();
  CHECK(run(m).short_lived_cpu_utilization == 0);
  CHECK(run(m).processes[0].pool_threads == 1);
  // The rounding of the readings (ticks) is no thread: 10 ms a second over 0.5 s intervals counts nothing.
  m.short_lived = {{1, 0.01}};
  CHECK(run(m).short_lived_cpu_utilization == 0);
}

TEST_CASE("two CPU-bound threads pinned to one CPU while the other is left: overlapping affinity", "[monitor]") {
  Machine m;
  m.threads = {{1, 1, 1, 0.5, 0.5, "1"}, {2, 2, 1, 0.5, 0.5, "1"}};
  m.cpu_busy = {0.02, 1};
  const auto d = run(m);
  CHECK(d.verdict == Verdict::oversubscribed);
  CHECK(!find(d, FindingKind::demand_above_capacity).has_value());
  const auto overlap = find(d, FindingKind::overlapping_affinity);
  REQUIRE(overlap.has_value());
  CHECK(overlap->numbers.at("cpu") == 1);
  CHECK(overlap->numbers.at("pool_threads") == 2);
  CHECK(contains(overlap->message, "CPU 0 is left (98% idle)"));
  CHECK(contains(overlap->fix, "Cpus_allowed_list 1"));
  CHECK(contains(overlap->fix, "taskset -c 0"));
}

TEST_CASE("two threads on one CPU while other load fills the other: the outside load's warning, no overlap",
          "[monitor]") {
  Machine m;  // the scheduler's group fairness gave the job one CPU: its threads met there, others kept CPU 0
  m.threads = {{1, 1, 1, 0.5, 0.5, "0-1"}, {2, 2, 1, 0.5, 0.5, "0-1"}};
  m.cpu_busy = {1, 1};
  const auto d = run(m);
  CHECK(!find(d, FindingKind::overlapping_affinity).has_value());
  const auto outside = find(d, FindingKind::outside_load);  // on CPU 0, which the job may use and could not
  REQUIRE(outside.has_value());
  CHECK(outside->numbers.at("outside_load_cpus") == Approx(1).epsilon(0.02));
  CHECK(d.verdict == Verdict::warning);
  Thresholds t;  // the edge of idle-cpu-busy: others keep CPU 0 busy all the window
  t.idle_cpu_busy = 1.01;
  CHECK(find(run(m, t), FindingKind::overlapping_affinity).has_value());
  m.cpu_busy = {0.6, 1};
  t.idle_cpu_busy = 0.61;
  CHECK(find(run(m, t), FindingKind::overlapping_affinity).has_value());
  t.idle_cpu_busy = 0.59;
  CHECK(!find(run(m, t), FindingKind::overlapping_affinity).has_value());
}

TEST_CASE("two threads pinned to one CPU while other load fills the other: still their affinity's doing", "[monitor]") {
  Machine m;
  m.threads = {{1, 1, 1, 0.5, 0.5, "1"}, {2, 2, 1, 0.5, 0.5, "1"}};
  m.cpu_busy = {1, 1};
  const auto d = run(m);
  const auto overlap = find(d, FindingKind::overlapping_affinity);
  REQUIRE(overlap.has_value());
  CHECK(contains(overlap->fix, "Cpus_allowed_list 1"));
  CHECK(d.verdict == Verdict::oversubscribed);
}

TEST_CASE("outside load alone makes a warning, never oversubscribed", "[monitor]") {
  Machine m;
  m.threads = {{1, 1, 1, 0.5, 0.5, "1"}};
  m.cpu_busy = {0.1, 1};
  const auto d = run(m);
  CHECK(d.verdict == Verdict::warning);
  const auto outside = find(d, FindingKind::outside_load);
  REQUIRE(outside.has_value());
  CHECK(outside->numbers.at("outside_load_cpus") == Approx(0.5).epsilon(0.02));
  CHECK(contains(outside->fix, "idle CPUs 0"));
  const auto queueing = find(d, FindingKind::queueing);
  REQUIRE(queueing.has_value());
  CHECK(queueing->severity == Verdict::warning);
  Thresholds strict;
  strict.warn_throughput_loss = 0.01;
  strict.max_throughput_loss = 0.01;
  CHECK(run(m, strict).verdict == Verdict::warning);
}

// Each threshold's edge: the same scenario on both sides of a threshold set just around its measured value.
TEST_CASE("min-cpu-seconds gates every judgement at its edge", "[monitor]") {
  const Machine m = three_spinners();  // 4 CPU-seconds run and 6 wanted (run or queued) in 2 s
  Thresholds t;
  t.min_cpu_seconds = 5.9;
  CHECK(run(m, t).verdict == Verdict::oversubscribed);
  t.min_cpu_seconds = 6.1;
  CHECK(run(m, t).verdict == Verdict::inconclusive);
  CHECK_FALSE(run(m, t).evidence.sufficient);
}

TEST_CASE("a lone CPU-bound thread that is never switched out is evidence enough", "[monitor]") {
  Machine m;
  m.threads = {{1, 1, 0, 1.0, 0, "0-1", 0.5}};  // one slice every 2 s: nothing preempts it
  m.cpu_busy = {1, 0};
  const auto d = run(m);
  CHECK(d.evidence.sufficient);
  CHECK(d.verdict == Verdict::healthy);
}

TEST_CASE("a burst of colliding wake-ups queues sleepers for milliseconds but they are not working threads",
          "[monitor]") {
  // 64 threads, each on a CPU 0.3% of the time, waiting 50 ms per second over 25 wake-ups: 2 ms per slice.
  const Machine m = pool(1, 64, 0.003, 0.05, 25);
  const auto d = run(m);
  REQUIRE(d.evidence.sufficient);
  CHECK(d.wait_per_slice_ms_mean == Approx(2.0).epsilon(0.02));
  CHECK(d.runnable_threads_avg == Approx(3.39).epsilon(0.02));  // above N: all of it wake-ups
  CHECK(d.working_threads_avg == 0);
  CHECK(d.queued_threads_avg == 0);
  CHECK(d.verdict == Verdict::healthy);
  CHECK(d.processes[0].pool_threads == 0);
}

TEST_CASE("queue-wait-per-slice-ms separates wake-ups from queueing at its edge", "[monitor]") {
  Machine m = three_spinners();                      // 3.33 ms per slice
  for (auto& thread : m.threads) thread.wait = 0.2;  // runnable 87% of the time: also CPU-bound
  Thresholds t;
  t.cpu_bound_demand = 0.9;
  t.queue_wait_per_slice_ms = 1.8;
  CHECK(run(m, t).queued_threads_avg == Approx(0.6).epsilon(0.01));
  t.queue_wait_per_slice_ms = 2.2;  // 2 ms per slice now
  CHECK(run(m, t).queued_threads_avg == 0);
  CHECK(run(m, t).verdict == Verdict::healthy);
}

TEST_CASE("warn- and max-demand-ratio set the demand finding at their edges", "[monitor]") {
  const Machine m = three_spinners();  // demand ratio 1.5
  Thresholds t;
  t.max_demand_ratio = 1.49;
  CHECK(find(run(m, t), FindingKind::demand_above_capacity)->severity == Verdict::oversubscribed);
  t.max_demand_ratio = 1.51;
  CHECK(find(run(m, t), FindingKind::demand_above_capacity)->severity == Verdict::warning);
  t.warn_demand_ratio = 1.51;
  CHECK(!find(run(m, t), FindingKind::demand_above_capacity).has_value());
}

TEST_CASE("working-cpu-share decides which threads work and form a pool at its edge", "[monitor]") {
  const Machine m = pool(1, 4, 0.3, 0.3, 150);  // each thread runs 30% of the time, queues 2 ms per slice
  Thresholds t;
  t.working_cpu_share = 0.29;
  CHECK(run(m, t).processes[0].pool_threads == 4);
  CHECK(run(m, t).working_threads_avg == Approx(2.4).epsilon(0.01));
  CHECK(find(run(m, t), FindingKind::thread_pool_too_large).has_value());
  t.working_cpu_share = 0.31;
  CHECK(run(m, t).processes[0].pool_threads == 0);
  CHECK(run(m, t).working_threads_avg == 0);
  CHECK(!find(run(m, t), FindingKind::thread_pool_too_large).has_value());
}

TEST_CASE("warn- and max-throttle-ratio set the throttling finding at their edges", "[monitor]") {
  Machine m;
  m.threads = {{1, 1, 0, 0.9, 0.0}};
  m.cpu_busy = {0.9, 0};
  m.throttled_fraction = 0.5;
  Thresholds t;
  t.max_throttle_ratio = 0.49;
  CHECK(find(run(m, t), FindingKind::cgroup_throttling)->severity == Verdict::oversubscribed);
  t.max_throttle_ratio = 0.51;
  CHECK(find(run(m, t), FindingKind::cgroup_throttling)->severity == Verdict::warning);
  t.warn_throttle_ratio = 0.51;
  CHECK(!find(run(m, t), FindingKind::cgroup_throttling).has_value());
}

TEST_CASE("outside-load-cpus, contended- and spare-cpu-demand at their edges", "[monitor]") {
  Machine outside;
  outside.threads = {{1, 1, 1, 0.5, 0.5, "1"}};
  outside.cpu_busy = {0.1, 1};  // others use 0.5 CPU on CPU 1
  Thresholds t;
  t.outside_load_cpus = 0.49;
  CHECK(find(run(outside, t), FindingKind::outside_load).has_value());
  t.outside_load_cpus = 0.51;
  CHECK(!find(run(outside, t), FindingKind::outside_load).has_value());
  Machine pinned;
  pinned.threads = {{1, 1, 1, 0.5, 0.5, "1"}, {2, 2, 1, 0.5, 0.5, "1"}};  // demand 2.0 on CPU 1, 0 on CPU 0
  pinned.cpu_busy = {0.02, 1};
  t = {};
  t.contended_cpu_demand = 1.99;
  CHECK(find(run(pinned, t), FindingKind::overlapping_affinity).has_value());
  t.contended_cpu_demand = 2.01;
  CHECK(!find(run(pinned, t), FindingKind::overlapping_affinity).has_value());
  pinned.threads.push_back({3, 3, 0, 0.3, 0, "0"});  // the job uses 0.3 of CPU 0
  t = {};
  t.spare_cpu_demand = 0.31;
  CHECK(find(run(pinned, t), FindingKind::overlapping_affinity).has_value());
  t.spare_cpu_demand = 0.29;
  CHECK(!find(run(pinned, t), FindingKind::overlapping_affinity).has_value());
}

TEST_CASE("the wait-per-slice histogram gives quantiles within 12%", "[monitor]") {
  SliceWaitHistogram h;
  for (int i = 0; i < 95; ++i) h.add(50e-6);  // wake-ups: 50 µs
  for (int i = 0; i < 5; ++i) h.add(4e-3);    // queued: 4 ms per slice
  CHECK(h.count() == 100);
  CHECK(h.quantile(0.5) == Approx(50e-6).epsilon(0.12));
  CHECK(h.quantile(0.95) == Approx(50e-6).epsilon(0.12));
  CHECK(h.quantile(0.96) == Approx(4e-3).epsilon(0.12));
  SliceWaitHistogram other;
  other.add(20);  // above the last edge: counted in the top bucket
  h.merge(other);
  CHECK(h.count() == 101);
  CHECK(h.quantile(1.0) > 5);
  CHECK(SliceWaitHistogram{}.quantile(0.95) == 0);
}

TEST_CASE("CPU-bound threads that yield in short slices queue all the same (OpenBLAS spinning)", "[monitor]") {
  // 2 processes × 2 threads runnable all the time on 2 CPUs, yielding every 5 µs.
  Machine m;
  for (pid_t p = 1; p <= 2; ++p) {
    m.threads.push_back({p, p * 10, 0, 0.5, 0.5, "0-1", 100000});
    m.threads.push_back({p, p * 10 + 1, 1, 0.5, 0.5, "0-1", 100000});
  }
  m.cpu_busy = {1, 1};
  const auto d = run(m);
  CHECK(d.wait_per_slice_ms_mean == Approx(0.005).epsilon(0.02));
  CHECK(d.queued_threads_avg == Approx(2.0).epsilon(0.01));
  CHECK(d.verdict == Verdict::oversubscribed);
  CHECK(find(d, FindingKind::thread_pool_too_large).has_value());
  Thresholds t;  // the edge of cpu-bound-demand: each thread wants a CPU 100% of the time
  t.cpu_bound_demand = 0.99;
  CHECK(run(m, t).queued_threads_avg == Approx(2.0).epsilon(0.01));
  t.cpu_bound_demand = 1.01;
  CHECK(run(m, t).queued_threads_avg == 0);
  CHECK(run(m, t).verdict == Verdict::healthy);
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
  born.timeslices = 30;
  ThreadSample old;
  old.tid = 3;
  old.on_cpu_ns = 50'000'000'000;
  after.processes[0].threads = {born, old};
  const Evidence e = between(before, after, queue_rule({}));
  CHECK(e.on_cpu_s == Approx(0.3));
  CHECK(e.timeslices == 30);
  CHECK(e.threads.count(2) == 1);
  CHECK(e.threads.count(3) == 0);
}

TEST_CASE("fewer than two snapshots give an empty, inconclusive diagnosis with no evidence", "[monitor]") {
  const auto d = diagnose(accumulate({}, queue_rule({})), Capacity{2, CpuSet::range(0, 1), {}});
  CHECK(d.verdict == Verdict::inconclusive);
  CHECK_FALSE(d.evidence.sufficient);
  CHECK(d.run_delay_ratio == 0);
  CHECK_FALSE(d.cpu_pressure.has_value());
}

TEST_CASE("the JSON report has the contract's keys", "[monitor]") {
  const auto d = run(pool(1, 4, 0.5, 0.5, 100));
  const auto json = to_json(d);
  for (const char* key : {"verdict", "usable_cpus", "runnable_threads_avg", "waiting_threads_avg", "run_delay_ratio",
                          "wait_per_slice_ms", "voluntary_switches_per_second", "nonvoluntary_switches_per_second",
                          "cpu_utilization", "measured", "evidence", "findings", "processes"}) {
    CHECK(json.contains(key));
  }
  // One process of 4 threads on 2 CPUs, no runtime known: apart, its threads lose nothing (it may not have
  // more than 2 CPUs); together, most of their time. The range's low end is no oversubscription: a warning.
  CHECK(json["verdict"] == "warning");
  CHECK(json["estimated_throughput_loss_range"].size() == 2);
  CHECK(json["throughput_loss"]["low"] == json["estimated_throughput_loss_range"][0]);
  CHECK(json["throughput_loss_detail"]["decides_range"].size() == 2);
  CHECK(json["processes"][0]["estimated_throughput_loss_range"].size() == 2);
  CHECK(json["measured"] == true);
  CHECK(json["evidence"].is_null());
  CHECK(json["wait_per_slice_ms"]["mean"] == Approx(5.0));
  CHECK(json["wait_per_slice_ms"].contains("p95"));
  CHECK(json["cpu_pressure"].is_null());
  CHECK(json["findings"][0]["kind"] == "demand_above_capacity");
  CHECK(json["findings"][0].contains("message"));
  CHECK(json["processes"][0]["threads"] == 4);
  CHECK(json["processes"][0]["pool_threads"] == 4);
  CHECK(threads_json(d).size() == 4);
  CHECK(contains(threads_table(d), "WAIT/SLICE"));
  CHECK(to_text(d).find("verdict: warning") == 0);
}

TEST_CASE("verdict and finding kind names round-trip", "[monitor]") {
  CHECK(to_string(Verdict::warning) == "warning");
  CHECK(parse_verdict("oversubscribed").value_or(Verdict::healthy) == Verdict::oversubscribed);
  CHECK_FALSE(parse_verdict("sick").ok());
  CHECK(to_string(FindingKind::thread_pool_too_large) == "thread_pool_too_large");
  CHECK(to_string(FindingKind::queueing) == "queueing");
}

TEST_CASE("the text report counts one interval in the singular", "[monitor]") {
  Machine m;
  m.threads = {{1, 1, 0, 0.5, 0}};
  m.intervals = 1;
  CHECK(contains(to_text(run(m)), "(1 interval)\n"));
  m.intervals = 2;
  CHECK(contains(to_text(run(m)), "(2 intervals)\n"));
}

TEST_CASE("the findings name CPU lists as people read them", "[monitor]") {
  Machine m;
  const std::string even = "0,2,4,6";
  m.threads = {
      {1, 1, 0, 0.5, 0.5, even}, {1, 2, 2, 0.5, 0.5, even}, {1, 3, 4, 0.5, 0.5, even}, {1, 4, 6, 0.5, 0.5, even}};
  m.cpu_busy = {1, 0.02, 1, 0.02, 1, 0.02, 1, 0.02};
  const auto d = run(m);
  const auto outside = find(d, FindingKind::outside_load);
  REQUIRE(outside.has_value());
  CHECK(contains(outside->message, "on the job's CPUs 0,2,4,6 "));
  CHECK(contains(outside->fix, "idle CPUs 1,3,5,7 "));
}
