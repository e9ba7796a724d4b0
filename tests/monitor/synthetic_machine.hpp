// Synthetic sample series for the detector's tests: a machine of threads
// with fixed rates per second, sampled into snapshots (plain structs, no
// processes), and the diagnosis of it.
#pragma once

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "monitor/detector.hpp"

namespace mptrain::monitor::synthetic {

// A thread that, every second, spends `on` s on CPU `cpu`, `wait` s on its run
// queue, and is put on a CPU `slices` times (so it waits wait ÷ slices per slice).
struct ThreadSpec {
  pid_t pid;
  pid_t tid;
  int cpu;
  double on;
  double wait;
  std::string allowed = "0-1";
  double slices = 100;    // 100/s: a thread waiting 0.5 s/s waits 5 ms per slice, queued behind others
  double voluntary = 10;  // voluntary switches per second (it slept)
  std::optional<double> nonvoluntary = std::nullopt;  // per second; default 100 × wait (preempted)
};

// What the synthetic machine looks like.
struct Machine {
  std::vector<ThreadSpec> threads;
  std::vector<double> cpu_busy = {0, 0};  // busy fraction of each CPU (all load)
  std::map<pid_t, ThreadEnv> env;
  std::map<pid_t, std::string> cmdline;
  std::map<pid_t, pid_t> ppid;
  std::map<pid_t, std::vector<Runtime>> runtimes;
  // Per process: CPU-seconds per second of threads that start and end between two snapshots (no
  // snapshot lists them; only the process's own CPU time, /proc/PID/stat, counts them).
  std::map<pid_t, double> short_lived;
  std::optional<double> throttled_fraction;  // of 10 periods per second, in cgroup v1:/job
  double throttled_per_period = 0.05;        // seconds held back in each throttled period
  double quota_cpus = 0.5;
  int intervals = 4;
  double dt = 0.5;
};

constexpr double history_s = 10;  // counters before the first snapshot

inline ThreadSample thread_at(const ThreadSpec& spec, double t) {
  ThreadSample thread;
  thread.tid = spec.tid;
  thread.comm = "worker";
  thread.state = 'R';
  thread.last_cpu = spec.cpu;
  thread.on_cpu_ns = static_cast<std::uint64_t>(spec.on * t * 1e9);
  thread.wait_ns = static_cast<std::uint64_t>(spec.wait * t * 1e9);
  thread.timeslices = static_cast<std::uint64_t>(spec.slices * t);
  thread.voluntary_switches = static_cast<std::uint64_t>(spec.voluntary * t);
  thread.nonvoluntary_switches = static_cast<std::uint64_t>(spec.nonvoluntary.value_or(100 * spec.wait) * t);
  thread.cpus_allowed = spec.allowed;
  return thread;
}

inline Snapshot snapshot_at(const Machine& m, int k) {
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
    if (auto it = m.cmdline.find(spec.pid); it != m.cmdline.end()) p.cmdline = it->second;
    if (auto it = m.ppid.find(spec.pid); it != m.ppid.end()) p.ppid = it->second;
    if (auto it = m.runtimes.find(spec.pid); it != m.runtimes.end()) p.runtimes = it->second;
    p.threads.push_back(thread_at(spec, t));
    p.cpu_s = p.cpu_s.value_or(0) + spec.on * t;
  }
  for (const auto& [pid, rate] : m.short_lived)
    processes.at(pid).cpu_s = processes.at(pid).cpu_s.value_or(0) + rate * t;
  for (auto& [pid, p] : processes) s.processes.push_back(p);
  for (int cpu = 0; cpu < static_cast<int>(m.cpu_busy.size()); ++cpu) {
    s.machine.cpus.push_back(CpuTimes{cpu, m.cpu_busy[cpu] * t, t});
  }
  if (m.throttled_fraction) {
    CgroupSample group{"v1:/job", CgroupVersion::v1, "/job", "/sys/fs/cgroup/cpu/job", {}, {}};
    group.stat.nr_periods = static_cast<std::uint64_t>(10 * t);
    group.stat.nr_throttled = static_cast<std::uint64_t>(10 * t * *m.throttled_fraction);
    group.stat.throttled_ns = static_cast<std::uint64_t>(10 * t * *m.throttled_fraction * m.throttled_per_period * 1e9);
    group.quota = CpuQuota{m.quota_cpus, static_cast<std::uint64_t>(m.quota_cpus * 100000), 100000};
    s.machine.cgroups.push_back(group);
  }
  return s;
}

inline std::vector<Snapshot> series(const Machine& m) {
  std::vector<Snapshot> out;
  for (int k = 0; k <= m.intervals; ++k) out.push_back(snapshot_at(m, k));
  return out;
}

// The diagnosis of `m` on its CPUs (cpu_busy's count of them, at least 2 usable).
inline Diagnosis run(const Machine& m, const Thresholds& t = {}) {
  const int n = std::max(2, static_cast<int>(m.cpu_busy.size()));
  return diagnose(accumulate(series(m), queue_rule(t, n)), Capacity{n, CpuSet::range(0, n - 1), {}}, t);
}

// A copy of the finding of `kind` in `d` (a copy, so a temporary diagnosis can be asked), or nullopt.
inline std::optional<Finding> find(const Diagnosis& d, FindingKind kind) {
  auto it = std::find_if(d.findings.begin(), d.findings.end(), [&](const Finding& f) { return f.kind == kind; });
  if (it == d.findings.end()) return std::nullopt;
  return *it;
}

inline bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

// `count` threads of one process that each run `on` s, wait `wait` s over `slices` slices per second.
inline Machine pool(pid_t pid, int count, double on, double wait, double slices) {
  Machine m;
  for (int i = 0; i < count; ++i) m.threads.push_back({pid, pid * 100 + i, i % 2, on, wait, "0-1", slices});
  m.cpu_busy = {std::min(1.0, on * count / 2), std::min(1.0, on * count / 2)};
  return m;
}

}  // namespace mptrain::monitor::synthetic
