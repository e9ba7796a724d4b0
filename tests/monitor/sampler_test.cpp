#include "monitor/sampler.hpp"

#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

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

bool has_thread(const ProcessSample& process, pid_t tid) {
  return std::any_of(process.threads.begin(), process.threads.end(), [tid](auto& t) { return t.tid == tid; });
}

// The descriptors this process has open.
std::size_t open_fds() {
  std::size_t count = 0;
  DIR* dir = ::opendir("/proc/self/fd");
  while (dir != nullptr && ::readdir(dir) != nullptr) ++count;
  if (dir != nullptr) ::closedir(dir);
  return count;
}

// Threads of this process that sleep until the pool is destroyed.
class SleepingThreads {
 public:
  // Starts `count` threads, returning once each has published its tid.
  explicit SleepingThreads(int count) {
    for (int i = 0; i < count; ++i) threads_.emplace_back([this] { run(); });
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return tids_.size() == threads_.size(); });
  }
  ~SleepingThreads() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    changed_.notify_all();
    for (auto& thread : threads_) thread.join();
  }
  std::vector<pid_t> tids() {
    std::lock_guard lock(mutex_);
    return tids_;
  }

 private:
  void run() {
    std::unique_lock lock(mutex_);
    tids_.push_back(::gettid());
    changed_.notify_all();
    changed_.wait(lock, [&] { return stop_; });
  }
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<pid_t> tids_;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

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

TEST_CASE("a process with more threads than a quarter of a 1,024-fd limit keeps every thread's files open",
          "[monitor]") {
  rlimit limit{};
  REQUIRE(::getrlimit(RLIMIT_NOFILE, &limit) == 0);
  const rlimit original = limit;
  if (limit.rlim_max < 4096) return;  // the hard limit leaves no room to show it
  limit.rlim_cur = 1024;
  REQUIRE(::setrlimit(RLIMIT_NOFILE, &limit) == 0);
  SleepingThreads pool(400);
  {
    const std::size_t before = open_fds();
    Sampler sampler(FsRoot(), Scope::processes, {::getpid()});
    const Snapshot snapshot = sampler.sample();
    REQUIRE(snapshot.processes.size() == 1);
    for (const pid_t tid : pool.tids()) CHECK(has_thread(snapshot.processes[0], tid));
    // Each new thread's schedstat, stat and status, all kept open for the next sample.
    CHECK(open_fds() >= before + 3 * 400);
  }
  ::setrlimit(RLIMIT_NOFILE, &original);
}

TEST_CASE("a thread that replaced one that exited is sampled at once though the thread count is unchanged",
          "[monitor]") {
  Sampler sampler(FsRoot(), Scope::processes, {::getpid()});
  auto first = std::make_unique<SleepingThreads>(1);
  const pid_t gone = first->tids()[0];
  REQUIRE(has_thread(sampler.sample().processes.at(0), gone));
  first.reset();
  SleepingThreads second(1);
  const pid_t fresh = second.tids()[0];
  const Snapshot snapshot = sampler.sample();
  CHECK(has_thread(snapshot.processes.at(0), fresh));
  CHECK_FALSE(has_thread(snapshot.processes.at(0), gone));
}

TEST_CASE("a new thread is sampled at the next sample", "[monitor]") {
  Sampler sampler(FsRoot(), Scope::processes, {::getpid()});
  const std::size_t threads = sampler.sample().processes.at(0).threads.size();
  SleepingThreads pool(3);
  const Snapshot snapshot = sampler.sample();
  // At least the 3 new ones: a sanitizer's runtime may start a thread of its own meanwhile.
  CHECK(snapshot.processes.at(0).threads.size() >= threads + 3);
  for (const pid_t tid : pool.tids()) CHECK(has_thread(snapshot.processes.at(0), tid));
}
