// The throughput estimate (THROUGHPUT LOSS in monitor/loss_model.hpp) on
// recorded intervals: synthetic sample series, plain structs, no processes.
#include <catch2/catch.hpp>

#include "monitor/detector.hpp"
#include "monitor/gate.hpp"
#include "monitor/report.hpp"
#include "tests/monitor/synthetic_machine.hpp"

using namespace mptrain;
using namespace mptrain::monitor;
using namespace mptrain::monitor::synthetic;

namespace {

const Runtime gomp{RuntimeKind::gnu_openmp, "libgomp.so.1"};
const Runtime torch{RuntimeKind::pytorch, "libtorch_cpu.so"};
const Runtime openblas{RuntimeKind::openblas_pthreads, "libopenblasp-r0.3.21.so"};

// M processes × 2 threads on 2 CPUs, each thread `on` s on CPU and `wait` s
// queued per second in `slices` slices, switching `voluntary` and
// `nonvoluntary` times per second; every process maps `runtimes`.
Machine two_thread_processes(int m, double on, double wait, double slices, double voluntary, double nonvoluntary,
                             const std::vector<Runtime>& runtimes) {
  Machine machine;
  for (pid_t p = 1; p <= m; ++p) {
    for (int i = 0; i < 2; ++i) {
      machine.threads.push_back({p, p * 10 + i, i, on, wait, "0-1", slices, voluntary, nonvoluntary});
    }
    machine.runtimes[p] = runtimes;
  }
  machine.cpu_busy = {1, 1};
  return machine;
}

const ProcessSummary& loss_process(const Diagnosis& d, pid_t pid) {
  for (const auto& p : d.processes) {
    if (p.pid == pid) return p;
  }
  FAIL("no process " << pid);
  return d.processes.front();
}

}  // namespace

TEST_CASE("a barrier-synchronised pool with one queued member loses more than its queued share", "[monitor]") {
  // One OpenMP team of 2 on 2 CPUs: one member runs free, the other is queued
  // 40% of the time behind an outside hog (4 ms per slice, preempted, spinning).
  Machine m;
  m.threads = {{1, 10, 0, 1.0, 0.0, "0-1", 100, 0, 100}, {1, 11, 1, 0.6, 0.4, "0-1", 100, 0, 100}};
  m.cpu_busy = {1, 1};
  m.runtimes[1] = {gomp};
  const auto team = run(m);
  REQUIRE(team.loss.has_value());
  // Queued share: 0.4 of 2 threads' wanted time = 20%; the team moves only while both run: 60% of the time.
  CHECK(team.loss->processes == Approx(0.4).epsilon(0.01));
  // Of 1.6 CPUs it ran, only 0.6 × 1.6 = 0.96 did work, against the 1.6 CPUs the hog left it.
  CHECK(team.loss->job == Approx(1 - 0.96 / 1.6).epsilon(0.01));
  CHECK(loss_process(team, 1).estimated_throughput_loss == Approx(0.4).epsilon(0.01));
  CHECK(loss_process(team, 1).team);

  // The same threads in a program without a barrier runtime work alone: each
  // loses only its own queued time, and the job all of it to the hog, none to itself.
  m.runtimes.clear();
  const auto alone = run(m);
  CHECK(alone.loss->processes == Approx(0.2).epsilon(0.01));
  CHECK(alone.loss->job == Approx(0).margin(0.01));
  CHECK_FALSE(loss_process(alone, 1).team);
  CHECK(team.loss->job > alone.loss->job + 0.3);
}

TEST_CASE("2 torch processes x 2 spinning threads on 2 CPUs: the team's loss decides oversubscribed", "[monitor]") {
  // What the corpus's torch case records: each thread runs ~half the time, queued the rest in 4.5 ms slices.
  const auto d = run(two_thread_processes(2, 0.5, 0.45, 100, 1, 100, {gomp, torch}));
  // Each team runs together (0.5 / 0.95)² of the time it wants.
  const double together = (0.5 / 0.95) * (0.5 / 0.95);
  CHECK(d.loss->processes == Approx(1 - together).epsilon(0.01));
  CHECK(d.loss->job == Approx(1 - 2 * 1.0 * together / 2).epsilon(0.01));
  CHECK(d.loss->decides == Approx(std::max(d.loss->job, d.loss->processes)));
  CHECK(d.verdict == Verdict::oversubscribed);
  CHECK(d.loss->margin > 0.25);  // far above the threshold, not decided by noise
  const auto json = to_json(d);
  // One estimate, the one the verdict followed, and one range; the decomposition under the detail key.
  CHECK(json["estimated_throughput_loss"].get<double>() == Approx(d.loss->decides).margin(1e-4));
  CHECK(json["throughput_loss"]["low"].get<double>() == Approx(d.loss->decides_range.low).margin(1e-4));
  CHECK(json["throughput_loss"]["high"].get<double>() == Approx(d.loss->decides_range.high).margin(1e-4));
  CHECK(json["throughput_loss"].size() == 2);
  CHECK(json["throughput_loss_detail"]["job"].get<double>() == Approx(d.loss->job).margin(1e-4));
  CHECK(json["throughput_loss_detail"]["processes"].get<double>() == Approx(d.loss->processes).margin(1e-4));
  CHECK(json["processes"][0]["estimated_throughput_loss"].get<double>() == Approx(1 - together).margin(1e-3));
  CHECK(json["processes"][0]["team"] == true);
  CHECK(contains(to_text(d), "throughput lost (est.): 72%, range "));
}

TEST_CASE("yielding BLAS workers keep the CPUs working: the job loses little, each process half", "[monitor]") {
  // 2 numpy processes × 2 OpenBLAS (pthreads) threads on 2 CPUs: CPU-bound,
  // queued half the time in 0.25 ms slices (they sched_yield), all switches involuntary.
  const auto d = run(two_thread_processes(2, 0.5, 0.5, 2000, 0, 2000, {openblas}));
  CHECK(d.queued_threads_avg == Approx(2.0).epsilon(0.01));
  CHECK(d.loss->job == Approx(0).margin(0.01));           // both CPUs do useful work throughout
  CHECK(d.loss->processes == Approx(0.5).epsilon(0.01));  // each process runs at half its speed
  CHECK(d.verdict == Verdict::oversubscribed);
  CHECK(find(d, FindingKind::thread_pool_too_large).has_value());
  CHECK_FALSE(loss_process(d, 1).team);

  // The same figures under a spinning OpenMP runtime: three quarters of the CPU is spent waiting.
  const auto spinning = run(two_thread_processes(2, 0.5, 0.5, 2000, 0, 2000, {gomp}));
  CHECK(spinning.loss->job == Approx(0.75).epsilon(0.01));
}

TEST_CASE("a team whose waiters sleep loses its speed but not the CPU", "[monitor]") {
  // Passive OpenMP waiters: more voluntary switches (they sleep at barriers) than preemptions.
  const auto d = run(two_thread_processes(2, 0.5, 0.45, 100, 300, 50, {gomp}));
  const double together = (0.5 / 0.95) * (0.5 / 0.95);
  CHECK(d.loss->processes == Approx(1 - together).epsilon(0.01));
  CHECK(d.loss->job == Approx(0).margin(0.01));  // the sleepers' CPU went to the other team, which worked
}

TEST_CASE("sleepers waking up lose nothing: no estimate above zero, healthy", "[monitor]") {
  // 64 threads each run 2 ms and wait 20 ms per second over 100 wake-ups: 0.2 ms per slice.
  const auto d = run(pool(1, 64, 0.002, 0.02, 100));
  REQUIRE(d.evidence.sufficient);
  CHECK(d.loss->job == 0);
  CHECK(d.loss->processes == 0);
  CHECK(d.verdict == Verdict::healthy);
  CHECK(to_json(d)["estimated_throughput_loss"].get<double>() == 0);
}

TEST_CASE("a large share of a tiny demand queued is no finding: below min-queued-threads, info", "[monitor]") {
  // 64 sleepers, and one thread that works 6% of the time and waits 4 ms to
  // wake up 10 times a second (a loaded host's wake-up latency): 0.04 threads
  // queued, 40% of what the job's working threads wanted.
  Machine m = pool(1, 64, 0.002, 0.02, 100);
  m.threads.push_back({1, 199, 0, 0.06, 0.04, "0-1", 10});
  const auto d = run(m);
  REQUIRE(d.loss.has_value());
  CHECK(d.queued_threads_avg == Approx(0.04).epsilon(0.01));
  CHECK(d.loss->decides == Approx(0.4).epsilon(0.02));
  CHECK(d.verdict == Verdict::healthy);
  const auto info = find(d, FindingKind::queueing);
  REQUIRE(info.has_value());
  CHECK(info->severity == Verdict::healthy);
  CHECK(contains(info->message, "below --min-queued-threads 0.1"));

  // The same shape five times over queues 0.2 threads: the same share is a warning.
  m.threads.back() = {1, 199, 0, 0.3, 0.2, "0-1", 50};
  const auto larger = run(m);
  CHECK(larger.queued_threads_avg == Approx(0.2).epsilon(0.01));
  CHECK(larger.verdict == Verdict::warning);
  // And the threshold is the option's: at 0.01 the small one is a warning too.
  Thresholds t;
  t.min_queued_threads = 0.01;
  m.threads.back() = {1, 199, 0, 0.06, 0.04, "0-1", 10};
  CHECK(run(m, t).verdict == Verdict::warning);
}

TEST_CASE("too little evidence: no estimate, null in the JSON", "[monitor]") {
  Machine m = pool(1, 8, 0.001, 0.005, 1);
  m.intervals = 2;  // 1 s: too short a watch to call a sleeping job healthy
  const auto d = run(m);
  REQUIRE_FALSE(d.evidence.sufficient);
  CHECK_FALSE(d.loss.has_value());
  const auto json = to_json(d);
  CHECK(json["estimated_throughput_loss"].is_null());
  CHECK(json["throughput_loss"].is_null());
  CHECK(json["processes"][0]["estimated_throughput_loss"].is_null());
  CHECK(contains(to_text(d), "throughput lost (est.): not measured"));
}

TEST_CASE("independent processes beyond capacity: the job keeps its throughput, the verdict its processes' loss",
          "[monitor]") {
  // 16 one-thread compiles on 2 CPUs (make -j16): each runs an eighth of the time.
  Machine m;
  for (pid_t p = 1; p <= 16; ++p) m.threads.push_back({p, p * 10, p % 2, 0.125, 0.875, "0-1", 40});
  m.cpu_busy = {1, 1};
  const auto d = run(m);
  CHECK(d.loss->job == Approx(0).margin(0.01));
  CHECK(d.loss->processes == Approx(0.875).epsilon(0.01));
  CHECK(d.verdict == Verdict::oversubscribed);
}

TEST_CASE("CPU others take is no loss of the job's own: its processes show it, the verdict stays a warning",
          "[monitor]") {
  // 2 burners on 2 CPUs; an outside hog takes a fifth of the CPU time, so each thread is queued a fifth of it.
  Machine m;
  m.threads = {{1, 10, 0, 0.8, 0.2, "0-1", 50}, {1, 11, 1, 0.8, 0.2, "0-1", 50}};
  m.cpu_busy = {1, 1};
  const auto d = run(m);
  CHECK(d.loss->job == Approx(0).margin(0.01));
  CHECK(d.loss->processes == Approx(0.2).epsilon(0.01));
  CHECK(d.verdict == Verdict::warning);
  CHECK(find(d, FindingKind::outside_load).has_value());
}

TEST_CASE("the CPUs a cgroup quota allows bound the job's loss, not the machine's", "[monitor]") {
  // 2 busy threads in a 1-CPU quota on 2 CPUs, each held back half the time, a quarter of it throttled.
  Machine m;
  m.threads = {{1, 10, 0, 0.5, 0.5, "0-1", 20}, {1, 11, 1, 0.5, 0.5, "0-1", 20}};
  m.cpu_busy = {0.5, 0.5};
  m.throttled_fraction = 0.5;  // 0.25 s a second over both CPUs: 0.125 s on each
  m.quota_cpus = 1.0;
  const auto d = run(m);
  CHECK(d.loss->job == Approx(0).margin(0.01));  // one CPU's worth of work is all the quota gives
  // Apart, each is denied what it queued beyond the throttling: 0.75 of the 1.75 CPU-s it wanted.
  CHECK(d.loss->processes == Approx(0.75 / 1.75).epsilon(0.01));
  m.quota_cpus = 2.0;  // a quota of 2 CPUs, not throttled: the same waits lose half of what the job may use
  m.throttled_fraction.reset();
  CHECK(run(m).loss->job == Approx(0.5).epsilon(0.01));
}

TEST_CASE("throttling: threads apart lose nothing to a quota they fill and a team keeps its point", "[monitor]") {
  // 2 threads in a 1-CPU quota on 2 CPUs: both run 50 ms of each 100 ms period, then the cgroup is
  // throttled and both wait 50 ms (1 s of throttled time a second, summed over the 2 CPUs).
  Machine m;
  m.threads = {{1, 10, 0, 0.5, 0.5, "0-1", 20, 10, 10}, {1, 11, 1, 0.5, 0.5, "0-1", 20, 10, 10}};
  m.cpu_busy = {0.5, 0.5};
  m.quota_cpus = 1.0;
  m.throttled_fraction = 1.0;
  m.throttled_per_period = 0.1;
  // Busy threads that never wait for each other do one CPU's work, as one thread would: no loss.
  const auto apart = run(m);
  CHECK(apart.loss->processes == Approx(0).margin(0.02));
  CHECK(find(apart, FindingKind::cgroup_throttling).has_value());  // the quota is still the finding
  // A BLIS team: what the quota costs it depends on how it scales (measured: BLIS dgemm 11%, GNU OpenMP
  // short regions 55-72% against one thread), so the low end is the apart figure, the point its own.
  m.runtimes[1] = {Runtime{RuntimeKind::blis, "libblis.so.4"}};
  const auto team = run(m);
  CHECK(team.loss->processes_range.low == Approx(0).margin(0.02));
  CHECK(team.loss->processes == Approx(0.75).epsilon(0.02));
}

TEST_CASE("the estimate's spread over intervals and its margin say how close a verdict was", "[monitor]") {
  // Two seconds of a torch-like team queued half the time, then two of it running free.
  const Machine busy = two_thread_processes(2, 0.5, 0.45, 100, 1, 100, {gomp});
  const Machine calm = two_thread_processes(2, 0.5, 0.0, 100, 1, 0, {gomp});
  Evidence e = accumulate(series(busy), queue_rule({}));
  merge(e, accumulate(series(calm), queue_rule({})));
  const auto d = diagnose(e, Capacity{2, CpuSet::range(0, 1), {}});
  REQUIRE(d.loss.has_value());
  CHECK(d.loss->low == Approx(0).margin(0.01));
  CHECK(d.loss->high == Approx(0.72).epsilon(0.02));
  CHECK(d.loss->low <= d.loss->decides);
  CHECK(d.loss->decides <= d.loss->high);
  // The margin is measured from the nearer threshold: warn_throughput_loss or max_throughput_loss.
  const Thresholds t;
  const double to_warn = d.loss->decides - t.warn_throughput_loss;
  const double to_max = d.loss->decides - t.max_throughput_loss;
  CHECK(d.loss->margin == Approx(std::abs(to_warn) < std::abs(to_max) ? to_warn : to_max));
}

TEST_CASE("the spread takes in the window's own figure when a few busy intervals lie among calm ones", "[monitor]") {
  // One busy second among nine calm ones: the 90th percentile of the
  // intervals is a calm one, the window's ratio of sums is not.
  Machine calm = two_thread_processes(2, 0.5, 0.0, 100, 1, 0, {gomp});
  calm.intervals = 9;
  Machine busy = two_thread_processes(2, 0.5, 0.45, 100, 1, 100, {gomp});
  busy.intervals = 1;
  Evidence e = accumulate(series(calm), queue_rule({}));
  merge(e, accumulate(series(busy), queue_rule({})));
  const auto d = diagnose(e, Capacity{2, CpuSet::range(0, 1), {}});
  REQUIRE(d.loss.has_value());
  CHECK(d.loss->decides > 0.01);
  CHECK(d.loss->low == Approx(0).margin(0.01));
  CHECK(d.loss->low <= d.loss->decides);
  CHECK(d.loss->decides <= d.loss->high);
}

TEST_CASE("warn- and max-throughput-loss set the severity at their edges", "[monitor]") {
  // 3 one-thread spinners on 2 CPUs: each loses a third, and lone threads pin the range to the point.
  Machine m;
  for (pid_t p = 1; p <= 3; ++p) m.threads.push_back({p, p * 10, p % 2, 2.0 / 3, 1.0 / 3, "0-1", 100});
  m.cpu_busy = {1, 1};
  REQUIRE(run(m).loss->decides_range.low == Approx(run(m).loss->decides_range.high));
  Thresholds t;
  t.max_throughput_loss = 0.32;
  CHECK(run(m, t).verdict == Verdict::oversubscribed);
  t.max_throughput_loss = 0.35;
  CHECK(run(m, t).verdict == Verdict::warning);
  t.warn_throughput_loss = 0.34;
  CHECK(run(m, t).verdict == Verdict::healthy);
  CHECK(run(m, t).findings.empty());
}

TEST_CASE("the range: threads working apart bound the loss from below, moving together from above", "[monitor]") {
  // 2 torch processes × 2 spinning threads on 2 CPUs, each thread on CPU half the time and queued 0.45 of it.
  const auto d = run(two_thread_processes(2, 0.5, 0.45, 100, 1, 100, {gomp, torch}));
  REQUIRE(d.loss.has_value());
  const double together = (0.5 / 0.95) * (0.5 / 0.95);  // queued independently: the team's point
  const double worst = 1 - 2 * (0.45 / 0.95);           // each queued while the other runs: the bound
  // Apart, each process wanted 1.9 CPUs (within N = 2) and ran 1.0: it lost 0.9 of 1.9.
  CHECK(d.loss->processes_range.low == Approx(0.9 / 1.9).epsilon(0.01));
  CHECK(d.loss->processes_range.high == Approx(1 - worst).epsilon(0.01));
  // The job: apart, both CPUs did work; together, the spinners' CPU while a teammate queued did none.
  CHECK(d.loss->job_range.low == Approx(0).margin(0.01));
  CHECK(d.loss->job_range.high == Approx(1 - worst).epsilon(0.01));
  CHECK(d.loss->decides_range.low == Approx(0.9 / 1.9).epsilon(0.01));
  // A barrier runtime makes the team's estimate the point: inside the range, below its worst case.
  CHECK(d.loss->decides == Approx(1 - together).epsilon(0.01));
  CHECK(d.loss->decides < d.loss->decides_range.high - 0.2);
  CHECK(d.verdict == Verdict::oversubscribed);  // sure: even the low end is past max-throughput-loss
  CHECK(d.loss->unpinned.empty());              // both ends decide the same
  const auto json = to_json(d);
  CHECK(json["estimated_throughput_loss_range"][0].get<double>() == Approx(d.loss->decides_range.low).margin(1e-4));
  CHECK(json["estimated_throughput_loss_range"][1].get<double>() == Approx(d.loss->decides_range.high).margin(1e-4));
  CHECK(json["throughput_loss"]["low"].get<double>() == Approx(0.9 / 1.9).epsilon(0.01));
  CHECK(json["throughput_loss_detail"]["job_range"][0].get<double>() == Approx(d.loss->job_range.low).margin(1e-4));
  CHECK(json["throughput_loss_detail"]["unpinned"].is_null());
  CHECK(json["processes"][0]["estimated_throughput_loss_range"][0].get<double>() == Approx(0.9 / 1.9).epsilon(0.01));
  CHECK(json["processes"][0]["estimated_throughput_loss_range"][1].get<double>() == Approx(1 - worst).epsilon(0.01));
  CHECK(json["processes"][0]["estimated_throughput_loss"].get<double>() == Approx(1 - together).epsilon(0.01));
}

TEST_CASE("two OpenMP runtimes' threads in one process on 2 CPUs: a wide range is a warning, not exit 3", "[monitor]") {
  // One process, 4 spinning threads (a GNU and an LLVM team of 2) each on CPU half the time, queued the rest.
  Machine m = pool(7, 4, 0.5, 0.5, 100);
  m.runtimes[7] = {gomp, {RuntimeKind::llvm_openmp, "libomp.so.5"}};
  m.cmdline[7] = "./two_runtimes 3";
  const auto d = run(m);
  REQUIRE(d.loss.has_value());
  // Together, all 4 run at once 1/16 of the time if queued independently: the 94% the point says; at worst
  // never (4 halves queued add up to 2); apart, the process may use only 2 CPUs and used them: nothing lost.
  CHECK(d.loss->decides == Approx(1 - 1.0 / 16).epsilon(0.01));
  CHECK(d.loss->decides_range.low == Approx(0).margin(0.01));
  CHECK(d.loss->decides_range.high == Approx(1.0));
  CHECK(d.verdict == Verdict::warning);
  CHECK_FALSE(reaches(d, FailOn::oversubscribed));
  // The report says what the accounting does not show and what would narrow it.
  CHECK(contains(d.loss->unpinned, "pid 7"));
  CHECK(contains(d.loss->unpinned, "measured with fewer threads"));
  CHECK(d.loss->unpinned_cmdline == "./two_runtimes 3");
  const auto json = to_json(d);
  CHECK(json["throughput_loss_detail"]["unpinned"].get<std::string>() == d.loss->unpinned);
  CHECK(contains(to_text(d), "range 0%–100%"));
  CHECK(contains(to_text(d), "not pinned:"));
}

TEST_CASE("the decision at the range's ends: oversubscribed from its low end, a warning from its high end",
          "[monitor]") {
  // 2 numpy-like processes × 2 yielding threads on 2 CPUs, no barrier runtime, each thread on CPU half the
  // time and queued 0.3 of it: each process got 1.0 of the 1.6 CPUs it wanted (low end 0.375); had its
  // threads met at barriers, each queued while the other ran, they would have moved together a quarter
  // of the time (high end 0.75).
  const Machine m = two_thread_processes(2, 0.5, 0.3, 2000, 0, 2000, {openblas});
  const LossRange range = run(m).loss->decides_range;
  REQUIRE(range.low == Approx(0.375).epsilon(0.01));
  REQUIRE(range.high == Approx(0.75).epsilon(0.01));
  Thresholds t;
  t.max_throughput_loss = range.low;  // low end at the threshold: oversubscribed
  CHECK(run(m, t).verdict == Verdict::oversubscribed);
  t.max_throughput_loss = range.low + 0.001;  // just below it: not sure, a warning
  CHECK(run(m, t).verdict == Verdict::warning);
  CHECK_FALSE(run(m, t).loss->unpinned.empty());  // the ends decide differently: the report says why
  t.max_throughput_loss = 0.99;
  t.warn_throughput_loss = range.high;  // high end at the warning threshold: a warning
  CHECK(run(m, t).verdict == Verdict::warning);
  t.warn_throughput_loss = range.high + 0.001;  // just above the high end: no cost at either end
  CHECK(run(m, t).verdict == Verdict::healthy);
  CHECK(run(m, t).findings.empty());
  CHECK(run(m, t).loss->unpinned.empty());
}

TEST_CASE("lone threads pin the range: 16 one-thread compiles on 2 CPUs", "[monitor]") {
  Machine m;
  for (pid_t p = 1; p <= 16; ++p) m.threads.push_back({p, p * 10, p % 2, 0.125, 0.875, "0-1", 40});
  m.cpu_busy = {1, 1};
  const auto d = run(m);
  CHECK(d.loss->decides_range.low == Approx(d.loss->decides_range.high));
  CHECK(d.loss->decides_range.low == Approx(0.875).epsilon(0.01));
  CHECK(d.loss->unpinned.empty());
}

TEST_CASE("a long watch keeps its whole span in a bounded series", "[monitor]") {
  WorkSeries series;
  double working = 0;
  for (int i = 0; i < 10000; ++i) {
    series.add({0.1, Work{1.0 * i, 0.75, 0.5, 0.25}, 0.05});
    working += 1.0 * i;
  }
  CHECK(series.entries().size() <= WorkSeries::capacity);
  CHECK(series.entries().size() >= WorkSeries::capacity / 2);
  double duration = 0, summed = 0, others = 0;
  for (const auto& entry : series.entries()) {
    duration += entry.duration_s;
    summed += entry.work.working_s;
    others += entry.others_s;
  }
  CHECK(duration == Approx(1000.0));
  CHECK(others == Approx(500.0));
  CHECK(summed == Approx(working));
}

TEST_CASE("apart, a process loses the share of the CPUs it could have had that it was denied", "[monitor]") {
  // One process of 6 spinners pinned to CPU 0 of 2: it could have had 2 CPUs and ran on 1.
  Machine pinned;
  for (pid_t t = 0; t < 6; ++t) pinned.threads.push_back({1, 10 + t, 0, 1.0 / 6, 5.0 / 6, "0", 100});
  pinned.cpu_busy = {1, 0};
  const auto d = run(pinned);
  CHECK(d.loss->processes_range.low == Approx(0.5).epsilon(0.01));
  CHECK(d.verdict == Verdict::oversubscribed);
  // The same 6 spinners free on both CPUs use all the process could have: nothing lost apart, a warning.
  Machine free = pool(1, 6, 1.0 / 3, 2.0 / 3, 100);
  const auto spread = run(free);
  CHECK(spread.loss->processes_range.low == Approx(0).margin(0.01));
  CHECK(spread.loss->processes_range.high > 0.9);
  CHECK(spread.verdict == Verdict::warning);
}
