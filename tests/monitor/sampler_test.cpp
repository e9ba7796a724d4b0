#include "monitor/sampler.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <thread>

#include "recorded_trees.hpp"

using namespace mptrain;
using namespace mptrain::monitor;
using namespace mptrain::monitor::testing;

namespace {

const ProcessSample* find(const Snapshot& snapshot, pid_t pid) {
  for (const auto& process : snapshot.processes) {
    if (process.pid == pid) return &process;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("a sampled process skips a thread that vanished mid-read", "[monitor]") {
  Sampler sampler(v1_tree, Scope::processes, {100});
  const Snapshot snapshot = sampler.sample();
  REQUIRE(snapshot.processes.size() == 1);
  const auto& process = snapshot.processes[0];
  CHECK(process.comm == "py (worker) 1");
  CHECK(count_of(process.env, "OMP_NUM_THREADS") == 4);
  CHECK(process.cgroup == "v1:/jobs/train");
  REQUIRE(process.threads.size() == 2);
  const auto busy = std::find_if(process.threads.begin(), process.threads.end(), [](auto& t) { return t.tid == 102; });
  REQUIRE(busy != process.threads.end());
  CHECK(busy->wait_ns == 2450000000ULL);
  CHECK(busy->nonvoluntary_switches == 400);
  CHECK(busy->cpus_allowed == "1");
  CHECK(busy->last_cpu == 1);
}

TEST_CASE("the sampler reads machine counters, PSI and the job's cgroups", "[monitor]") {
  Sampler sampler(v1_tree, Scope::processes, {100});
  const Snapshot snapshot = sampler.sample();
  CHECK(snapshot.machine.cpus.size() == 2);
  CHECK(snapshot.machine.pressure.has_value());
  REQUIRE(snapshot.machine.load.has_value());
  CHECK(snapshot.machine.load->tasks == 87);
  REQUIRE(snapshot.machine.cgroups.size() == 2);  // /jobs/train and its parent /jobs, not the root
  const auto& train =
      snapshot.machine.cgroups[1].key == "v1:/jobs/train" ? snapshot.machine.cgroups[1] : snapshot.machine.cgroups[0];
  CHECK(train.dir == "/sys/fs/cgroup/cpu,cpuacct/jobs/train");
  CHECK(train.version == CgroupVersion::v1);
  CHECK(train.stat.nr_periods == 120);
  CHECK(train.stat.nr_throttled == 90);
  CHECK(train.stat.throttled_ns == 4500000000ULL);
  CHECK(*train.quota.cpus == Approx(0.5));
}

TEST_CASE("the sampler finds a container's cgroup under its real mount point", "[monitor]") {
  Sampler sampler(FsRoot(MPTRAIN_TEST_DATA "/cgroup-v1-odd-mounts"), Scope::processes, {1});
  const Snapshot snapshot = sampler.sample();
  REQUIRE(snapshot.processes.size() == 1);
  CHECK(snapshot.processes[0].cgroup == "v1:/kubepods/pod9/ctr1/train");
  REQUIRE(snapshot.machine.cgroups.size() == 2);
  CHECK(snapshot.machine.cgroups[1].key == "v1:/kubepods/pod9/ctr1/train");
  CHECK(snapshot.machine.cgroups[1].dir == "/run/cg/cpu/train");
  CHECK(snapshot.machine.cgroups[1].stat.nr_throttled == 10);
  CHECK(*snapshot.machine.cgroups[0].quota.cpus == Approx(1.5));
}

TEST_CASE("a tree scope follows children through their parent pid", "[monitor]") {
  Sampler sampler(v1_tree, Scope::trees, {100});
  const Snapshot snapshot = sampler.sample();
  CHECK(find(snapshot, 100) != nullptr);
  CHECK(find(snapshot, 300) != nullptr);
  CHECK(find(snapshot, 7) == nullptr);
}

TEST_CASE("a machine scope watches every process", "[monitor]") {
  Sampler sampler(v1_tree, Scope::machine, {});
  CHECK(sampler.sample().processes.size() == 3);
}

TEST_CASE("a missing PSI file leaves pressure empty", "[monitor]") {
  Sampler sampler(v2_tree, Scope::processes, {200});
  const Snapshot snapshot = sampler.sample();
  CHECK_FALSE(snapshot.machine.pressure.has_value());
  REQUIRE(snapshot.machine.cgroups.size() == 2);
  REQUIRE(snapshot.processes.size() == 1);
  CHECK(snapshot.processes[0].cgroup == "v2:/ci/job-7");
  const auto& job = snapshot.machine.cgroups[1];
  CHECK(job.key == "v2:/ci/job-7");
  CHECK(job.stat.throttled_ns == 250000000ULL);
  CHECK(*job.quota.cpus == Approx(1.5));
}

TEST_CASE("watched processes that are gone are dropped, not errors", "[monitor]") {
  Sampler sampler(v1_tree, Scope::processes, {4242});
  CHECK(sampler.sample().processes.empty());
  CHECK(sampler.all_gone());
}

TEST_CASE("live sampling sees a busy thread's CPU time grow", "[monitor]") {
  std::atomic<bool> stop{false};
  std::thread busy([&stop] {
    volatile unsigned long sink = 0;
    while (!stop.load(std::memory_order_relaxed)) sink = sink + 1;
  });
  Sampler sampler(FsRoot(), Scope::processes, {::getpid()});
  const Snapshot first = sampler.sample();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const Snapshot second = sampler.sample();
  stop = true;
  busy.join();
  REQUIRE(first.processes.size() == 1);
  REQUIRE(second.processes.size() == 1);
  auto total = [](const Snapshot& s) {
    std::uint64_t sum = 0;
    for (const auto& t : s.processes[0].threads) sum += t.on_cpu_ns + t.wait_ns;
    return sum;
  };
  CHECK(total(second) > total(first) + 50'000'000);  // the busy thread wanted a CPU for most of 200 ms
  CHECK(second.processes[0].threads.size() >= 2);
}
