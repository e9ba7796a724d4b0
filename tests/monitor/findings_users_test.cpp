// The findings for what users run into (findings_users.hpp), on a recorded
// /proc tree (tests/data/monitor/findings: the maps, environ, names and
// Cpus_allowed_list the findings read) sampled once, its threads' counters
// then advanced at given rates over four intervals of half a second.
#include "monitor/findings_users.hpp"

#include <catch2/catch.hpp>
#include <map>

#include "monitor/report.hpp"
#include "monitor/sampler.hpp"
#include "tests/monitor/synthetic_machine.hpp"

using namespace mptrain;
using namespace mptrain::monitor;
using mptrain::monitor::synthetic::contains;
using mptrain::monitor::synthetic::find;

namespace {

const FsRoot tree(MPTRAIN_TEST_DATA "/monitor/findings");

// What thread `tid` does each second: on CPU, waiting, slices, switches, and the CPU it runs on.
struct Rate {
  double on = 0;
  double wait = 0;
  int cpu = 0;
  double voluntary = 10;
  double involuntary = 10;
};

constexpr double dt = 0.5;

// `snapshot` advanced by `dt` with each thread of `rates` (others idle) and the CPUs of 0..n-1 busy with them.
Snapshot advanced(Snapshot snapshot, const std::map<pid_t, Rate>& rates, int n) {
  snapshot.time_s += dt;
  std::vector<double> busy(snapshot.machine.cpus.size(), 0);
  for (auto& process : snapshot.processes) {
    for (auto& thread : process.threads) {
      const auto rate = rates.find(thread.tid);
      if (rate == rates.end()) continue;
      const Rate& r = rate->second;
      thread.on_cpu_ns += static_cast<std::uint64_t>(r.on * dt * 1e9);
      thread.wait_ns += static_cast<std::uint64_t>(r.wait * dt * 1e9);
      thread.timeslices += static_cast<std::uint64_t>(100 * dt);
      thread.voluntary_switches += static_cast<std::uint64_t>(r.voluntary * dt);
      thread.nonvoluntary_switches += static_cast<std::uint64_t>(r.involuntary * dt);
      thread.last_cpu = r.cpu;
      if (r.cpu < static_cast<int>(busy.size())) busy[static_cast<std::size_t>(r.cpu)] += r.on * dt;
    }
  }
  for (std::size_t cpu = 0; cpu < snapshot.machine.cpus.size(); ++cpu) {
    snapshot.machine.cpus[cpu].busy_s += std::min(dt, busy[cpu]);
    snapshot.machine.cpus[cpu].total_s += dt;
  }
  (void)n;
  return snapshot;
}

// The diagnosis of processes `pids` of the recorded tree on `n` usable CPUs, their threads at `rates`;
// `adjust` may change what the sampler read (an environment) before the counters move.
template <class Adjust>
Diagnosis judge(std::vector<pid_t> pids, const std::map<pid_t, Rate>& rates, int n, Adjust adjust) {
  Sampler sampler(tree, Scope::processes, std::move(pids));
  Snapshot first = sampler.sample();
  first.time_s = 10;
  adjust(first);
  std::vector<Snapshot> series{first};
  for (int k = 0; k < 4; ++k) series.push_back(advanced(series.back(), rates, n));
  return diagnose(accumulate(series, queue_rule({})), Capacity{n, CpuSet::range(0, n - 1), {}});
}

Diagnosis judge(std::vector<pid_t> pids, const std::map<pid_t, Rate>& rates, int n) {
  return judge(std::move(pids), rates, n, [](Snapshot&) {});
}

// Sets thread-count variable `name` of every process in `snapshot` to `value`.
auto with_variable(std::string_view name, int value) {
  return [name, value](Snapshot& snapshot) {
    for (auto& process : snapshot.processes) {
      for (std::size_t i = 0; i < thread_count_variables.size(); ++i) {
        if (thread_count_variables[i] == name) process.env.counts[i] = value;
      }
    }
  };
}

// 4 threads of the two-runtime program, each wanting a CPU throughout on 2 CPUs.
std::map<pid_t, Rate> two_runtimes_busy() {
  return {{400, {0.45, 0.5, 0}}, {401, {0.45, 0.5, 1}}, {402, {0.45, 0.5, 0}}, {403, {0.45, 0.5, 1}}};
}

// The Python pool: 5 threads (4 of its own, 1 OpenBLAS worker) wanting a CPU throughout on 2 CPUs.
std::map<pid_t, Rate> nested_busy() {
  std::map<pid_t, Rate> rates;
  for (pid_t tid = 501; tid <= 505; ++tid) rates[tid] = Rate{0.38, 0.6, tid % 2};
  return rates;
}

// The trainer's main thread (running `trainer_on` of each second) and its two CPU-bound loader workers.
std::map<pid_t, Rate> trainer(double trainer_on, double voluntary) {
  return {{800, {trainer_on, 0.01, 0, voluntary, 2}}, {801, {0.98, 0.01, 1, 5, 20}}, {802, {0.98, 0.01, 2, 5, 20}}};
}

}  // namespace

TEST_CASE("a process mapping GNU and LLVM OpenMP names both libraries and what sizes each", "[findings-users]") {
  const auto d = judge({400}, two_runtimes_busy(), 2);
  const auto f = find(d, FindingKind::two_openmp_runtimes);
  REQUIRE(f.has_value());
  CHECK(contains(f->message, "GNU OpenMP (libgomp.so.1.0.0) sizes its own from OMP_NUM_THREADS=2"));
  CHECK(contains(f->message, "LLVM OpenMP (libomp.so.5) sizes its own from OMP_NUM_THREADS=2"));
  CHECK(contains(f->fix, "`LD_PRELOAD=libomp.so.5 ./two_rt 3`"));
  CHECK(contains(f->fix, "`OMP_WAIT_POLICY=passive ./two_rt 3`"));
  CHECK(contains(f->fix, "`OMP_NUM_THREADS=1 ./two_rt 3`"));
  REQUIRE(f->severity != Verdict::healthy);
  CHECK(f->severity == d.verdict);
  // One pool of 4 threads it is not: the sizing advice points at the two runtimes.
  CHECK_FALSE(find(d, FindingKind::thread_pool_too_large).has_value());
  const auto demand = find(d, FindingKind::demand_above_capacity);
  REQUIRE(demand.has_value());
  CHECK(demand->fix == "see two_openmp_runtimes below");
  CHECK(to_json(d)["findings"].dump().find("\"kind\":\"two_openmp_runtimes\"") != std::string::npos);
  CHECK_FALSE(find(d, FindingKind::nested_pools).has_value());  // two runtimes say why it runs two pools
}

TEST_CASE("two OpenMP runtimes that cost nothing are an info finding under a healthy verdict", "[findings-users]") {
  const auto d = judge({400}, {{400, {0.9, 0.0, 0}}, {401, {0.9, 0.0, 1}}}, 2);
  const auto f = find(d, FindingKind::two_openmp_runtimes);
  REQUIRE(f.has_value());
  CHECK(f->severity == Verdict::healthy);
  CHECK(severity_name(*f) == "info");
  CHECK(d.verdict == Verdict::healthy);
}

TEST_CASE("Python threads each calling the pthreads OpenBLAS are nested pools, with the knob at 1",
          "[findings-users]") {
  const auto d = judge({500}, nested_busy(), 2);
  const auto f = find(d, FindingKind::nested_pools);
  REQUIRE(f.has_value());
  CHECK(f->severity != Verdict::healthy);
  CHECK(
      contains(f->message, "5 threads worked where the pool of OpenBLAS (pthreads) (libopenblasp-r0.3.21.so) holds 2"));
  CHECK(contains(f->message, "OPENBLAS_NUM_THREADS, unset: the 2 CPUs it may use"));
  CHECK(contains(f->message, "python3 × 5"));
  CHECK(contains(f->fix, "`OPENBLAS_NUM_THREADS=1 python3 pool.py`"));
  CHECK(contains(f->fix, "threadpoolctl"));
  // A pool sized to ⌊N/M⌋ would still be nested: that advice gives way.
  CHECK_FALSE(find(d, FindingKind::thread_pool_too_large).has_value());
  const auto demand = find(d, FindingKind::demand_above_capacity);
  REQUIRE(demand.has_value());
  CHECK(demand->fix == "see nested_pools below");
}

TEST_CASE("with the runtime's knob at 1 the program's own threads are no nested pools", "[findings-users]") {
  const auto d = judge({500}, nested_busy(), 2, with_variable("OPENBLAS_NUM_THREADS", 1));
  CHECK_FALSE(find(d, FindingKind::nested_pools).has_value());
  CHECK(d.verdict != Verdict::healthy);  // 5 threads on 2 CPUs still queue: the program's own count
}

TEST_CASE("a Slurm step allowed fewer CPUs than SLURM_CPUS_PER_TASK is an allocation mismatch", "[findings-users]") {
  const std::map<pid_t, Rate> rates{
      {600, {0.25, 0.75, 0}}, {601, {0.25, 0.75, 0}}, {602, {0.25, 0.75, 0}}, {603, {0.25, 0.75, 0}}};
  const auto d = judge({600}, rates, 8);
  const auto f = find(d, FindingKind::allocation_mismatch);
  REQUIRE(f.has_value());
  CHECK(contains(f->message, "may use 1 CPU (Cpus_allowed_list 0)"));
  CHECK(contains(f->message, "SLURM_CPUS_PER_TASK=4"));
  CHECK(contains(f->message, "Slurm 22.05"));
  CHECK(contains(f->fix, "srun --cpus-per-task=4"));
  CHECK(contains(f->fix, "SRUN_CPUS_PER_TASK=$SLURM_CPUS_PER_TASK"));
  CHECK(f->numbers.at("launcher_cpus") == 4);
  // srun told to give one CPU per task: what was asked is what it got.
  const auto asked_one = judge({600}, rates, 8, [](Snapshot& s) { s.processes[0].env.srun_cpus_per_task = 1; });
  CHECK_FALSE(find(asked_one, FindingKind::allocation_mismatch).has_value());
}

TEST_CASE("an Open MPI rank of two bound to one core of its four is an allocation mismatch, not idle capacity",
          "[findings-users]") {
  const std::map<pid_t, Rate> rates{{700, {0.99, 0.0, 0}}};
  const auto d = judge({700}, rates, 8);
  const auto f = find(d, FindingKind::allocation_mismatch);
  REQUIRE(f.has_value());
  CHECK(f->severity == Verdict::healthy);  // it lost nothing: it runs one thread on the core it got
  CHECK(contains(f->message, "may use 1 CPU (Cpus_allowed_list 0) of the 4 its node's 8 usable CPUs"));
  CHECK(contains(f->message, "OMPI_COMM_WORLD_LOCAL_SIZE=2"));
  CHECK(contains(f->fix, "--map-by slot:PE=4 --bind-to core"));
  CHECK(contains(f->fix, "--bind-to none"));
  CHECK_FALSE(find(d, FindingKind::idle_capacity).has_value());  // the binding keeps the CPUs idle
  // A rank mpirun did not bind (--bind-to none, or more than two ranks): none.
  const auto unbound = judge({700}, rates, 8, [](Snapshot& s) { s.processes[0].env.ompi_bound_at_launch = false; });
  CHECK_FALSE(find(unbound, FindingKind::allocation_mismatch).has_value());
}

TEST_CASE("idle capacity beside a trainer that slept waiting on its loaders advises no thread count",
          "[findings-users]") {
  const auto d = judge({800, 801, 802}, trainer(0.35, 400), 8);
  const auto f = find(d, FindingKind::idle_capacity);
  REQUIRE(f.has_value());
  CHECK(contains(f->message, "pid 800 (python3) slept 64%"));
  CHECK(contains(f->message, "more threads would not use the idle CPUs"));
  CHECK(f->fix.starts_with("not a thread count: "));
  CHECK(contains(f->fix, "py-spy dump --pid 800"));
  CHECK_FALSE(contains(f->fix, "OMP_NUM_THREADS="));
  CHECK(f->numbers.at("sleep_share") == Approx(0.64).margin(0.01));
}

TEST_CASE("idle capacity of threads that wanted CPU is advised as a thread count", "[findings-users]") {
  const auto d = judge({800, 801, 802}, trainer(0.95, 400), 8);
  const auto f = find(d, FindingKind::idle_capacity);
  REQUIRE(f.has_value());
  CHECK_FALSE(contains(f->message, "slept"));
  CHECK(contains(f->fix, "OMP_NUM_THREADS=2"));
  // Sleeping without giving up the CPU itself (preempted more than it yields) is not waiting on input.
  const auto preempted = judge({800, 801, 802}, trainer(0.35, 1), 8);
  const auto g = find(preempted, FindingKind::idle_capacity);
  REQUIRE(g.has_value());
  CHECK_FALSE(contains(g->message, "slept"));
}

TEST_CASE("the new finding kinds have names", "[findings-users]") {
  for (const auto* name : {"two_openmp_runtimes", "nested_pools", "allocation_mismatch"}) {
    const auto kind = parse_finding_kind(name);
    REQUIRE(kind.ok());
    CHECK(to_string(*kind) == name);
  }
}
