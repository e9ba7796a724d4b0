// The idle_capacity finding (rules.hpp, IDLE CAPACITY) on synthetic
// sample series: when it fires, what it names, and when it must not.
#include <catch2/catch.hpp>

#include "monitor/detector.hpp"
#include "monitor/gate.hpp"
#include "monitor/report.hpp"
#include "tests/monitor/synthetic_machine.hpp"

using namespace mptrain;
using namespace mptrain::monitor;
using namespace mptrain::monitor::synthetic;

namespace {

// `m` on `n` CPUs, `busy` being the share of each CPU's time that all load took (/proc/stat) unless given.
Machine on_cpus(Machine m, int n, double idle_cpu_busy = 0.01) {
  std::vector<double> busy(static_cast<std::size_t>(n), idle_cpu_busy);
  for (const auto& thread : m.threads) busy[static_cast<std::size_t>(thread.cpu)] += thread.on;
  for (auto& b : busy) b = std::min(1.0, b);
  m.cpu_busy = busy;
  return m;
}

// `threads` CPU-bound threads in each of `processes` processes, on CPUs 0, 1, …, with OMP_NUM_THREADS=`threads`.
Machine openmp_job(int processes, int threads, int n) {
  Machine m;
  int cpu = 0;
  for (pid_t p = 1; p <= processes; ++p) {
    for (int i = 0; i < threads; ++i) m.threads.push_back({p, p * 100 + i, cpu++, 0.99, 0.005, "0-15", 100});
    m.env[p].counts[0] = threads;
    m.runtimes[p] = {{RuntimeKind::gnu_openmp, "libgomp.so.1"}};
    m.cmdline[p] = "python3 train.py";
  }
  return on_cpus(m, n);
}

ThreadEnv omp_threads(int count) {
  ThreadEnv env;
  env.counts[0] = count;
  return env;
}

}  // namespace

TEST_CASE("one rank with OMP_NUM_THREADS=1 on 16 usable CPUs gets idle_capacity naming the knob and the plan",
          "[monitor]") {
  const auto d = run(openmp_job(1, 1, 16));
  CHECK(d.verdict == Verdict::healthy);
  const auto idle = find(d, FindingKind::idle_capacity);
  REQUIRE(idle.has_value());
  CHECK(idle->severity == Verdict::healthy);
  CHECK(contains(idle->message, "1 process × 1 busy thread on 16 usable CPUs"));
  CHECK(contains(idle->message, "OMP_NUM_THREADS=1 (GNU OpenMP, libgomp.so.1) keeps 15.0 CPUs idle"));
  CHECK(contains(idle->message, "the plan for 16 usable CPUs is 1 process × 16 threads"));
  CHECK(contains(idle->fix, "`OMP_NUM_THREADS=16 python3 train.py`"));
  CHECK(contains(idle->fix, "`mptrain run -n 16 -- python3 train.py`"));
  CHECK(idle->numbers.at("idle_cpus") == Approx(15).epsilon(0.01));
  // Advice, not a verdict: "info" in the JSON and the text.
  const auto json = to_json(d);
  CHECK(json["verdict"] == "healthy");
  CHECK(json["findings"][0]["kind"] == "idle_capacity");
  CHECK(json["findings"][0]["severity"] == "info");
  CHECK(contains(to_text(d), "[info] idle_capacity: "));
  CHECK(has_idle_capacity(d));
}

TEST_CASE("a one-thread CPU-bound program on 2 usable CPUs gets idle_capacity with the ranks that use them",
          "[monitor]") {
  Machine m;
  m.threads = {{1, 1, 0, 0.99, 0.01}, {1, 2, 1, 0.0005, 0.0001, "0-1", 1}};  // a spinner and a main thread that waits
  m.cmdline[1] = "./spin";
  const auto d = run(on_cpus(m, 2));
  const auto idle = find(d, FindingKind::idle_capacity);
  REQUIRE(idle.has_value());
  CHECK(d.verdict == Verdict::healthy);
  CHECK(contains(idle->message, "1 process × 1 busy thread on 2 usable CPUs: its program"));
  CHECK(contains(idle->fix, "no threading runtime or thread-count variable"));
  CHECK(contains(idle->fix, "`mptrain run -n 2 -- ./spin` (2 ranks of 1 thread"));
}

TEST_CASE("pools sized below the plan: 2 ranks x 2 threads on 16 CPUs get idle_capacity", "[monitor]") {
  const auto idle = find(run(openmp_job(2, 2, 16)), FindingKind::idle_capacity);
  REQUIRE(idle.has_value());
  CHECK(contains(idle->message, "2 processes × 2 busy threads on 16 usable CPUs"));
  CHECK(contains(idle->message, "OMP_NUM_THREADS=2 (GNU OpenMP, libgomp.so.1) keeps 12.0 CPUs idle"));
  CHECK(contains(idle->message, "the plan for 16 usable CPUs is 2 processes × 8 threads"));
  CHECK(contains(idle->fix, "set OMP_NUM_THREADS=8 in each of the 2 processes"));
  CHECK(contains(idle->fix, "`mptrain run -n 2 -- python3 train.py`, which gives each 8 threads"));
  CHECK(idle->numbers.at("threads_per_process_fit") == 8);
}

TEST_CASE("a runtime that reads no variable is named with its own knob", "[monitor]") {
  Machine m = openmp_job(1, 2, 16);
  m.env[1] = {};
  m.runtimes[1] = {{RuntimeKind::pytorch, "libtorch_cpu.so"}};
  const auto idle = find(run(m), FindingKind::idle_capacity);
  REQUIRE(idle.has_value());
  CHECK(contains(idle->message, "PyTorch (libtorch_cpu.so), sized by torch.set_num_threads keeps 14.0 CPUs idle"));
  CHECK(contains(idle->fix, "torch.set_num_threads(16)"));
}

TEST_CASE("jobs that use their CPUs get no idle_capacity", "[monitor]") {
  CHECK_FALSE(find(run(openmp_job(1, 2, 2)), FindingKind::idle_capacity));    // 2 threads on 2 CPUs
  CHECK_FALSE(find(run(openmp_job(2, 1, 2)), FindingKind::idle_capacity));    // 2 ranks x 1 thread
  CHECK_FALSE(find(run(openmp_job(1, 16, 16)), FindingKind::idle_capacity));  // the plan itself
  CHECK_FALSE(find(run(openmp_job(1, 3, 4)), FindingKind::idle_capacity));    // 3 of 4: more than about half
  CHECK(find(run(openmp_job(1, 2, 4)), FindingKind::idle_capacity));          // 2 of 4: half left
}

TEST_CASE("sleepers and a job waiting on I/O get no idle_capacity", "[monitor]") {
  // A service: 64 threads that wake up now and then, on 16 CPUs.
  CHECK_FALSE(find(run(on_cpus(pool(1, 64, 0.002, 0.02, 100), 16)), FindingKind::idle_capacity));
  // One thread working 40% of the time (waiting on I/O the rest): more threads would not use more CPUs.
  Machine io;
  io.threads = {{1, 1, 0, 0.4, 0.001, "0-15", 50}};
  io.env[1] = omp_threads(1);
  const auto d = run(on_cpus(io, 16));
  REQUIRE(d.evidence.sufficient);
  CHECK_FALSE(find(d, FindingKind::idle_capacity));
}

TEST_CASE("a pool of the plan's size whose threads mostly wait is sized right, not idle capacity", "[monitor]") {
  Machine m = openmp_job(1, 1, 4);
  for (int i = 1; i < 4; ++i) m.threads.push_back({1, 200 + i, i, 0.1, 0.001, "0-3", 100});  // pool workers
  CHECK_FALSE(find(run(on_cpus(m, 4)), FindingKind::idle_capacity));
}

TEST_CASE("too little evidence: idle_capacity needs idle-min-cpu-seconds of CPU-bound work", "[monitor]") {
  Machine m = openmp_job(1, 1, 16);
  m.intervals = 1;  // 0.5 s of one busy thread: measured, but too short to call the job narrow
  const auto d = run(m);
  CHECK(d.evidence.sufficient);
  CHECK_FALSE(find(d, FindingKind::idle_capacity));
  Thresholds t;
  t.idle_min_cpu_seconds = 0.45;
  CHECK(find(run(m, t), FindingKind::idle_capacity));
}

TEST_CASE("an oversubscribed job is never idle capacity, though it leaves CPUs", "[monitor]") {
  // 2 CPU-bound threads pinned to CPU 0 of 16: they queue; the finding is the overlap.
  Machine m;
  m.threads = {{1, 1, 0, 0.5, 0.5, "0", 100}, {1, 2, 0, 0.5, 0.5, "0", 100}};
  m.env[1] = omp_threads(2);
  const auto d = run(on_cpus(m, 16));
  CHECK(d.verdict == Verdict::oversubscribed);
  CHECK_FALSE(find(d, FindingKind::idle_capacity));
}

TEST_CASE("other load on the CPUs the job leaves suppresses idle_capacity", "[monitor]") {
  Machine m = openmp_job(1, 1, 2);
  m.cpu_busy = {1.0, 0.9};  // CPU 1, the one the job leaves, is 90% busy with others' work
  CHECK_FALSE(find(run(m), FindingKind::idle_capacity));
  m.cpu_busy = {1.0, 0.3};  // 30%: most of it is still free
  CHECK(find(run(m), FindingKind::idle_capacity));
}

TEST_CASE("a job that ran wide in one interval is not called narrow for the whole window", "[monitor]") {
  const Machine m = openmp_job(1, 2, 16);
  Evidence e = accumulate(series(m), queue_rule({}));
  const Capacity sixteen{16, CpuSet::range(0, 15), {}};
  CHECK(find(diagnose(e, sixteen), FindingKind::idle_capacity));
  e.peak_working = 14;  // one interval wanted 14 of the 16 CPUs
  CHECK_FALSE(find(diagnose(e, sixteen), FindingKind::idle_capacity));
}

TEST_CASE("the whole machine is no job: no idle_capacity without --pid or a command", "[monitor]") {
  const Machine m = openmp_job(1, 1, 16);
  const Evidence e = accumulate(series(m), queue_rule({}));
  const Capacity sixteen{16, CpuSet::range(0, 15), {}};
  CHECK(find(diagnose(e, sixteen, {}, Subject::job), FindingKind::idle_capacity));
  CHECK_FALSE(find(diagnose(e, sixteen, {}, Subject::machine), FindingKind::idle_capacity));
}

TEST_CASE("idle-max-demand-share and idle-min-spare-cpus bound the finding at their edges", "[monitor]") {
  const Machine m = openmp_job(1, 4, 8);  // 4 busy threads on 8 CPUs: wants ~4.0
  CHECK(find(run(m), FindingKind::idle_capacity));
  Thresholds t;
  t.idle_max_demand_share = 0.45;
  CHECK_FALSE(find(run(m, t), FindingKind::idle_capacity));
  t = {};
  t.idle_min_spare_cpus = 4.5;
  CHECK_FALSE(find(run(m, t), FindingKind::idle_capacity));
  t = {};
  t.idle_min_busy_share = 1.01;
  CHECK_FALSE(find(run(m, t), FindingKind::idle_capacity));
  CHECK(to_string(FindingKind::idle_capacity) == "idle_capacity");
}

TEST_CASE("a thread-count variable set above the pool is not what limits it", "[monitor]") {
  // `mptrain run -n 1` set OMP_NUM_THREADS=2, but the program maps no runtime and runs one thread by itself.
  Machine m;
  m.threads = {{1, 1, 0, 0.99, 0.01}};
  m.env[1] = omp_threads(2);
  m.cmdline[1] = "./spin";
  const auto idle = find(run(on_cpus(m, 2)), FindingKind::idle_capacity);
  REQUIRE(idle.has_value());
  CHECK_FALSE(contains(idle->message, "OMP_NUM_THREADS"));
  CHECK_FALSE(contains(idle->fix, "OMP_NUM_THREADS"));
  CHECK(contains(idle->fix, "`mptrain run -n 2 -- ./spin`"));
  m.env[1] = omp_threads(1);  // set to the pool's size: named, with the value that would use the CPUs
  const auto named = find(run(on_cpus(m, 2)), FindingKind::idle_capacity);
  REQUIRE(named.has_value());
  CHECK(contains(named->message, "OMP_NUM_THREADS=1 in its environment (no threading runtime mapped)"));
  CHECK(contains(named->fix, "`OMP_NUM_THREADS=2 ./spin`"));
}

TEST_CASE("one thread in a cgroup held to 1 CPU uses what it may: no idle_capacity", "[monitor]") {
  // The corpus's cgroup_quota fixed case: N is 2 for the doctor, but the job's cgroup has a quota of 1 CPU.
  Machine m = openmp_job(1, 1, 2);
  m.throttled_fraction = 0.0;  // the cgroup and its quota are seen; it is never throttled
  m.quota_cpus = 1.0;
  CHECK_FALSE(find(run(m), FindingKind::idle_capacity));
  m.quota_cpus = 8.0;  // a quota above N leaves N as it is
  m = on_cpus(m, 16);
  CHECK(find(run(m), FindingKind::idle_capacity));
}
