// The monitor's two performance figures (SPEC "Performance bar"):
//  1. cost: the CPU time the live monitor spends watching a process with
//     THREADS threads at the default 500 ms interval (target < 1% of one CPU);
//  2. latency: the time from the start of an oversubscription (8 busy threads
//     pinned to one CPU) to the live verdict "oversubscribed" (target < 2 s).
// Usage: mptrain_monitor_bench [THREADS=200] [SECONDS=10]
//   3. scopes: the sampler's cost in each scope (--pid, a tree, the whole
//      machine) watching a process of 200 and of 5,000 mostly sleeping
//      threads, sampled as `mptrain doctor` does (sample_now() when due).
// Usage: mptrain_monitor_bench scopes [SECONDS=4] [THREADS...=200 5000]
#include <fmt/core.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string_view>
#include <thread>
#include <vector>

#include "monitor/live.hpp"

using namespace mptrain;
using namespace std::chrono_literals;

namespace {

double cpu_seconds() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  auto s = [](timeval t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; };
  return s(usage.ru_utime) + s(usage.ru_stime);
}

// Forks a child that waits for a byte on a pipe, then runs `threads` threads
// (busy when `busy`, pinned to `cpu` when >= 0) until killed. Returns its pid and the pipe's write end.
std::pair<pid_t, int> start_child(int threads, bool busy, int cpu) {
  int fds[2];
  if (::pipe(fds) != 0) std::exit(1);
  const pid_t pid = ::fork();
  if (pid != 0) {
    ::close(fds[0]);
    return {pid, fds[1]};
  }
  ::close(fds[1]);
  char byte;
  if (::read(fds[0], &byte, 1) != 1) ::_exit(0);
  if (cpu >= 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    ::sched_setaffinity(0, sizeof set, &set);
  }
  std::vector<std::thread> pool;
  for (int i = 0; i < threads; ++i) {
    pool.emplace_back([busy] {
      volatile unsigned long sink = 0;
      while (true) {
        if (busy) {
          sink = sink + 1;
        } else {
          std::this_thread::sleep_for(1h);
        }
      }
    });
  }
  for (auto& t : pool) t.join();
  ::_exit(0);
}

void stop_child(pid_t pid) {
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
}

monitor::MonitorOptions options_for(pid_t pid) {
  monitor::MonitorOptions options;
  options.scope = monitor::Scope::trees;
  options.pids = {pid};
  cpu_set_t set;
  CPU_ZERO(&set);
  ::sched_getaffinity(0, sizeof set, &set);
  options.capacity.usable_cpus = CPU_COUNT(&set);
  return options;
}

// The number of threads of process `pid` now.
int thread_count(pid_t pid) {
  auto stat = monitor::read_process_stat(FsRoot(), pid);
  return stat.ok() ? stat->num_threads : 0;
}

// Watches a process with `threads` threads (spinning when `busy`, else
// sleeping) for `seconds` with on_tick-style calls every 100 ms.
void measure_cost(int threads, bool busy, double seconds) {
  auto [pid, go] = start_child(threads, busy, -1);
  if (::write(go, "g", 1) != 1) std::exit(1);
  std::this_thread::sleep_for(300ms);
  monitor::LiveMonitor live(options_for(pid));
  int samples = 0;
  const double before = cpu_seconds();
  const auto start = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - start < std::chrono::duration<double>(seconds)) {
    const bool due = live.seconds_until_due() <= 0;
    live.observe({pid});
    samples += due;
    std::this_thread::sleep_for(100ms);
  }
  const double used = cpu_seconds() - before;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const int watched = thread_count(pid);
  stop_child(pid);
  fmt::print(
      "monitor cost: {} {} threads watched for {:.1f} s at 500 ms: {} samples, {:.1f} ms CPU in total, "
      "{:.3f} ms per sample, {:.2f}% of one CPU; at 2 samples/s {:.2f}% (target < 1%)\n",
      watched, busy ? "busy" : "sleeping", elapsed, samples, used * 1e3, samples ? used * 1e3 / samples : 0.0,
      100 * used / elapsed, samples ? 100 * 2 * used / samples : 0.0);
}

// Starts 8 busy threads pinned to the last usable CPU and times the live verdict.
void measure_latency() {
  cpu_set_t set;
  CPU_ZERO(&set);
  ::sched_getaffinity(0, sizeof set, &set);
  int cpu = 0;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) cpu = c;
  }
  auto [pid, go] = start_child(8, true, cpu);
  monitor::LiveMonitor live(options_for(pid));
  for (int i = 0; i < 10; ++i) {  // one idle second first (inconclusive)
    live.observe({pid});
    std::this_thread::sleep_for(100ms);
  }
  const auto before = live.current_verdict();
  // Start the load at an arbitrary phase of the sampling interval, as real load would.
  std::this_thread::sleep_for(
      std::chrono::milliseconds(50 + std::chrono::steady_clock::now().time_since_epoch().count() % 400));
  const auto start = std::chrono::steady_clock::now();
  if (::write(go, "g", 1) != 1) std::exit(1);
  double latency = -1;
  while (std::chrono::steady_clock::now() - start < 10s) {
    live.observe({pid});
    if (live.current_verdict() == monitor::Verdict::oversubscribed) {
      latency = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      break;
    }
    std::this_thread::sleep_for(100ms);
  }
  stop_child(pid);
  fmt::print(
      "time to verdict: before {}, 8 busy threads pinned to CPU {} -> oversubscribed after {:.2f} s "
      "(target < 2 s; interval 500 ms, observe() every 100 ms)\n",
      monitor::to_string(before), cpu, latency);
}

}  // namespace

// The thread body of a scopes target: `arg` non-null wakes every 20 ms and spins 0.5 ms, otherwise it sleeps.
void* target_thread(void* arg) {
  timespec nap{arg != nullptr ? 0 : 3600, arg != nullptr ? 20'000'000 : 0};
  while (true) {
    ::nanosleep(&nap, nullptr);
    const auto end = std::chrono::steady_clock::now() + 500us;
    while (std::chrono::steady_clock::now() < end) {
    }
  }
  return nullptr;
}

// Forks a process of `threads` threads on 64 KiB stacks at nice 19, `busy` of
// them briefly busy every 20 ms and the rest asleep; returns once all exist.
pid_t start_target(int threads, int busy) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpriority(PRIO_PROCESS, 0, 19);
    pthread_attr_t attr;
    ::pthread_attr_init(&attr);
    ::pthread_attr_setstacksize(&attr, 64 * 1024);
    for (int i = 0; i < threads; ++i) {
      pthread_t thread;
      static char busy_marker;
      void* mode = i < busy ? &busy_marker : nullptr;
      if (::pthread_create(&thread, &attr, target_thread, mode) != 0) ::_exit(1);
    }
    while (true) ::pause();
  }
  while (thread_count(pid) < threads + 1) std::this_thread::sleep_for(10ms);
  return pid;
}

// The threads a fresh sampler of `scope` sees with root `pid`.
std::size_t watched_threads(monitor::Scope scope, pid_t pid) {
  monitor::Sampler probe(FsRoot(), scope, {pid});
  std::size_t count = 0;
  for (const auto& process : probe.sample().processes) count += process.threads.size();
  return count;
}

// One row of the scopes table: a LiveMonitor of `scope` on `pid` sampling as
// `mptrain doctor` does for `seconds`; the first sample (which opens every
// file) is shown apart from the steady cost of the samples after it.
void measure_scope(monitor::Scope scope, std::string_view name, pid_t pid, int threads, double seconds) {
  monitor::MonitorOptions options = options_for(pid);
  options.scope = scope;
  const double first_cpu = cpu_seconds();
  monitor::LiveMonitor live(std::move(options));
  live.sample_now();
  const double before = cpu_seconds();
  const double start = monitor::monotonic_seconds();
  int samples = 0;
  while (monitor::monotonic_seconds() - start < seconds) {
    std::this_thread::sleep_for(std::chrono::duration<double>(live.seconds_until_due()));
    live.sample_now();
    ++samples;
  }
  const double used = cpu_seconds() - before;
  const double elapsed = monitor::monotonic_seconds() - start;
  fmt::print("| {:>6} | {:<9} | {:>7} | {:>10.1f} | {:>7} | {:>9.3f} | {:>7.2f}% |\n", threads, name,
             watched_threads(scope, pid), (before - first_cpu) * 1e3, samples, used * 1e3 / samples,
             100 * used / elapsed);
}

// The scopes table: each of `counts` threads watched in every scope for `seconds`.
void measure_scopes(double seconds, const std::vector<int>& counts) {
  rlimit files{};
  ::getrlimit(RLIMIT_NOFILE, &files);
  fmt::print("== sampler cost by scope (interval 500 ms, {:.0f} s each, RLIMIT_NOFILE soft {} hard {})\n", seconds,
             files.rlim_cur, files.rlim_max);
  fmt::print("| target | scope     | watched | first (ms) | samples | ms/sample | CPU/wall |\n");
  fmt::print("|-------:|-----------|--------:|-----------:|--------:|----------:|---------:|\n");
  for (const int threads : counts) {
    const pid_t pid = start_target(threads, 4);
    measure_scope(monitor::Scope::processes, "processes", pid, threads, seconds);
    measure_scope(monitor::Scope::trees, "trees", pid, threads, seconds);
    measure_scope(monitor::Scope::machine, "machine", pid, threads, seconds);
    stop_child(pid);
  }
}

int main(int argc, char** argv) {
  if (argc > 1 && std::string_view(argv[1]) == "scopes") {
    std::vector<int> counts;
    for (int i = 3; i < argc; ++i) counts.push_back(std::atoi(argv[i]));
    if (counts.empty()) counts = {200, 5000};
    measure_scopes(argc > 2 ? std::atof(argv[2]) : 4, counts);
    return 0;
  }
  const int threads = argc > 1 ? std::atoi(argv[1]) : 200;
  const double seconds = argc > 2 ? std::atof(argv[2]) : 10;
  measure_cost(threads, false, seconds);
  measure_cost(threads, true, seconds);
  measure_latency();
  return 0;
}
