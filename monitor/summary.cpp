#include "monitor/summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace mptrain::monitor {

namespace {

// Whether `a` took more of the window (on CPU and waiting) than `b`: the order busiest first.
template <class Summary>
bool busier(const Summary& a, const Summary& b) {
  return a.cpu_seconds + a.wait_seconds > b.cpu_seconds + b.wait_seconds;
}

}  // namespace

EvidenceSummary judge_evidence(const Evidence& evidence, const Thresholds& thresholds) {
  const Evidence& e = evidence;
  const Thresholds& t = thresholds;
  if (e.intervals == 0) return {false, "nothing ran through a whole sampling interval"};
  if (e.on_cpu_s >= t.min_cpu_seconds) return {true, ""};
  // A job that wanted CPU and was denied it is evidence too: threads that
  // kept wanting a CPU (working, mostly waiting) or a cgroup that held them back.
  if (e.working_s >= t.min_cpu_seconds) return {true, ""};
  for (const auto& [key, group] : e.cgroups) {
    if (group.throttled_s >= t.min_cpu_seconds) return {true, ""};
  }
  // Watched long enough, the job mostly slept and nothing it ran wanted a CPU for long: healthy.
  const std::string intervals = e.intervals == 1 ? "1 interval" : fmt::format("{} intervals", e.intervals);
  const bool slept = e.on_cpu_s < quiet_max_share * e.duration_s && e.wait_s < quiet_max_share * e.duration_s;
  if (slept && e.intervals >= quiet_min_intervals && e.duration_s >= quiet_min_seconds) {
    return {true,
            fmt::format("the job mostly slept ({:.3f} CPU-seconds over {:.1f} s, {}): nothing wanted a CPU it did "
                        "not get",
                        e.on_cpu_s, e.duration_s, intervals),
            true};
  }
  return {false,
          fmt::format("the watched threads ran {:.3f} CPU-seconds over {:.1f} s ({}) and wanted little more: "
                      "a job that works is judged from {:g} CPU-seconds, one that mostly sleeps from {} whole "
                      "sampling intervals and {:g} s of watching (so that a thread denied a CPU shows its wait "
                      "in more than one sample); watch longer",
                      e.on_cpu_s, e.duration_s, intervals, t.min_cpu_seconds, quiet_min_intervals, quiet_min_seconds)};
}

std::vector<ProcessSummary> summarize_processes(const Evidence& evidence, const std::map<pid_t, int>& pools) {
  std::vector<ProcessSummary> out;
  for (const auto& [pid, p] : evidence.processes) {
    if (p.on_cpu_s + p.wait_s <= 0) continue;
    ProcessSummary s;
    s.pid = pid;
    s.comm = p.comm;
    s.cmdline = p.cmdline;
    s.threads = p.max_threads;
    s.cpu_seconds = p.on_cpu_s;
    s.wait_seconds = p.wait_s;
    s.run_delay_ratio = ratio(p.wait_s, p.on_cpu_s);
    if (auto it = pools.find(pid); it != pools.end()) s.pool_threads = it->second;
    s.env = p.env;
    s.runtimes = p.runtimes;
    double busiest = -1;
    std::uint64_t slices = 0;
    for (const auto& [tid, thread] : evidence.threads) {
      if (thread.pid != pid) continue;
      s.threads_ran += thread.ran();
      slices += thread.timeslices;
      if (thread.demand() > busiest) {
        busiest = thread.demand();
        s.cpus_allowed = thread.cpus_allowed;
      }
    }
    s.wait_per_slice_ms = 1e3 * ratio(p.wait_s, static_cast<double>(slices));
    s.estimated_throughput_loss = progress_loss(p.work);
    s.estimated_throughput_loss_range = progress_range(p.work);
    s.team = meets_at_barriers(p.runtimes);
    out.push_back(std::move(s));
  }
  std::sort(out.begin(), out.end(), busier<ProcessSummary>);
  return out;
}

std::vector<ThreadSummary> summarize_threads(const Evidence& evidence) {
  std::vector<ThreadSummary> out;
  for (const auto& [tid, t] : evidence.threads) {
    if (!t.ran()) continue;
    out.push_back(ThreadSummary{t.pid, tid, t.comm, t.on_cpu_s, t.wait_s, t.timeslices, 1e3 * t.wait_per_slice(),
                                t.voluntary_switches, t.nonvoluntary_switches, t.last_cpu, t.cpus_allowed});
  }
  std::sort(out.begin(), out.end(), busier<ThreadSummary>);
  return out;
}

std::vector<CgroupSummary> summarize_cgroups(const Evidence& evidence) {
  std::vector<CgroupSummary> out;
  for (const auto& [key, group] : evidence.cgroups) {
    const double throttled = ratio(static_cast<double>(group.throttled_periods), static_cast<double>(group.periods));
    out.push_back(CgroupSummary{group.version, group.path, group.dir, group.quota.cpus, throttled});
  }
  return out;
}

}  // namespace mptrain::monitor
