#include "monitor/detector.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <span>

#include "util/text.hpp"

namespace mptrain::monitor {

namespace {

// Shared, precomputed figures for the checks.
struct Context {
  const Evidence& evidence;
  const Thresholds& t;
  int n = 1;
  double duration = 0;
  double runnable = 0;                // average runnable threads
  double delay_ratio = 0;             // Σ wait ÷ Σ on CPU
  std::map<pid_t, int> busy_threads;  // per process with at least one
  int busy_total = 0;
  CpuSet usable;  // the usable CPUs (those seen when unknown)
};

// A finding of `kind` with `severity`, its text and numbers to be filled.
Finding finding(std::string kind, Verdict severity) {
  Finding f;
  f.kind = std::move(kind);
  f.severity = severity;
  return f;
}

double ratio(double a, double b) { return b > 0 ? a / b : 0; }

Context make_context(const Evidence& e, const Capacity& capacity, const Thresholds& t) {
  Context c{e, t, 1, 0, 0, 0, {}, 0, {}};
  c.n = std::max(1, capacity.usable_cpus);
  c.duration = e.duration_s;
  c.runnable = ratio(e.on_cpu_s + e.wait_s, e.duration_s);
  c.delay_ratio = ratio(e.wait_s, e.on_cpu_s);
  for (const auto& [tid, thread] : e.threads) {
    if (thread.demand() < t.busy_thread_demand) continue;
    ++c.busy_threads[thread.pid];
    ++c.busy_total;
  }
  c.usable = capacity.usable_cpu_list;
  if (c.usable.empty()) {
    std::vector<int> seen;
    for (const auto& [cpu, evidence] : e.cpus) seen.push_back(cpu);
    c.usable = CpuSet(seen);
  }
  return c;
}

// The fix that sizes M processes to floor(N/M) threads each.
std::string sizing_fix(int processes, int n) {
  const int per = n / std::max(1, processes);
  if (per == 0) {
    return fmt::format("set OMP_NUM_THREADS=1 and run at most {} (`mptrain run -n {}`)", counted(n, "process"), n);
  }
  const auto others = std::span(thread_count_variables).subspan(1);
  return fmt::format("set {}={} (and {}) or use `mptrain run -n {}`, which gives each process {} and pins it",
                     thread_count_variables[0], per, fmt::join(others, ", "), processes, counted(per, "CPU"));
}

std::optional<Finding> check_demand(const Context& c) {
  const double r = c.runnable / c.n;
  if (r < c.t.warn_demand_ratio) return std::nullopt;
  Finding f = finding("demand_above_capacity", r >= c.t.max_demand_ratio ? Verdict::oversubscribed : Verdict::warning);
  f.message =
      fmt::format("on average {:.1f} threads wanted a CPU on {} usable CPUs ({:.1f}× capacity)", c.runnable, c.n, r);
  const int processes = static_cast<int>(c.busy_threads.size());
  f.fix = fmt::format("bring the busy threads from {} down to {}: ", c.busy_total, c.n) +
          (processes > c.n
               ? fmt::format("run at most {} (`mptrain run -n {}`) with one thread each", counted(c.n, "process"), c.n)
               : sizing_fix(std::max(1, processes), c.n));
  f.numbers = {
      {"runnable_threads_avg", c.runnable}, {"usable_cpus", c.n}, {"demand_ratio", r}, {"busy_threads", c.busy_total}};
  return f;
}

// " (OMP_NUM_THREADS=4 in its environment)" when a busy process's environment asks for more than `per`.
std::string env_note(const Context& c, int per) {
  for (const auto& [pid, busy] : c.busy_threads) {
    const auto& env = c.evidence.processes.at(pid).env;
    for (std::size_t i = 0; i < thread_count_variables.size(); ++i) {
      const auto value = env.counts[i];
      if (value && *value > per) {
        return fmt::format(" ({}={} in the environment of pid {})", thread_count_variables[i], *value, pid);
      }
    }
  }
  return "";
}

std::optional<Finding> check_thread_pool(const Context& c) {
  const int m = static_cast<int>(c.busy_threads.size());
  if (m == 0 || c.busy_total <= c.n) return std::nullopt;
  int most = 0, least = c.busy_total;
  for (const auto& [pid, busy] : c.busy_threads) {
    most = std::max(most, busy);
    least = std::min(least, busy);
  }
  const int per = c.n / m;
  if (most <= std::max(1, per)) return std::nullopt;
  const double r = c.runnable / c.n;
  Finding f = finding("thread_pool_too_large", r >= c.t.max_demand_ratio ? Verdict::oversubscribed : Verdict::warning);
  const std::string each = most == least ? fmt::format("{}", most) : fmt::format("{}–{}", least, most);
  f.message = fmt::format("{} × {} busy threads = {} threads on {} usable CPUs{}", counted(m, "process"), each,
                          c.busy_total, c.n, env_note(c, std::max(1, per)));
  f.fix = sizing_fix(m, c.n);
  f.numbers = {{"processes", m},
               {"threads_per_process_max", most},
               {"busy_threads", c.busy_total},
               {"usable_cpus", c.n},
               {"threads_per_process_fit", per}};
  return f;
}

// The busy threads whose last CPU is `cpu`.
std::vector<const ThreadEvidence*> busy_on(const Context& c, int cpu) {
  std::vector<const ThreadEvidence*> threads;
  for (const auto& [tid, thread] : c.evidence.threads) {
    if (thread.last_cpu == cpu && thread.demand() >= c.t.busy_thread_demand) threads.push_back(&thread);
  }
  return threads;
}

double job_demand_on(const Context& c, int cpu) {
  auto it = c.evidence.cpus.find(cpu);
  return it == c.evidence.cpus.end() ? 0 : ratio(it->second.job_on_s + it->second.job_wait_s, c.duration);
}

// The fix for busy threads sharing CPUs while `spare` is left: depends on whether affinity keeps them there.
std::string overlap_fix(const std::vector<const ThreadEvidence*>& threads, const CpuSet& spare, int n) {
  bool pinned = true;
  std::string allowed;
  for (const auto* thread : threads) {
    auto set = CpuSet::parse(thread->cpus_allowed);
    if (!set.ok() || !set->intersect(spare).empty()) pinned = false;
    if (set.ok() && allowed.empty()) allowed = thread->cpus_allowed;
  }
  if (pinned) {
    return fmt::format(
        "their affinity (Cpus_allowed_list {}) keeps them off CPU {}: give each worker its own CPUs, "
        "e.g. `mptrain run -n {}` (one CPU set per worker) or `taskset -c {}` for one of them",
        allowed, spare.to_string(), n, spare.cpus().front());
  }
  return fmt::format(
      "the scheduler keeps them together although CPU {} is free to them: pin them apart "
      "(`mptrain run -n {}`, or `taskset -c {}` for one of them)",
      spare.to_string(), n, spare.cpus().front());
}

std::optional<Finding> check_overlap(const Context& c) {
  std::vector<int> spare_cpus;
  for (int cpu : c.usable.cpus()) {
    if (job_demand_on(c, cpu) <= c.t.spare_cpu_demand) spare_cpus.push_back(cpu);
  }
  if (spare_cpus.empty()) return std::nullopt;
  const CpuSet spare(spare_cpus);
  std::optional<Finding> worst;
  for (const auto& [cpu, evidence] : c.evidence.cpus) {
    const auto threads = busy_on(c, cpu);
    const double demand = job_demand_on(c, cpu);
    if (threads.size() < 2 || demand < c.t.contended_cpu_demand) continue;
    const double delay = ratio(evidence.job_wait_s, evidence.job_on_s);
    Finding f =
        finding("overlapping_affinity", delay >= c.t.max_run_delay_ratio ? Verdict::oversubscribed : Verdict::warning);
    const auto& other =
        c.evidence.cpus.count(spare.cpus().front()) ? c.evidence.cpus.at(spare.cpus().front()) : CpuEvidence{};
    f.message = fmt::format(
        "{} share CPU {} (they want {:.1f} CPUs there; run-delay ratio {:.2f}) while usable CPU {} "
        "is left ({:.0f}% idle)",
        counted(static_cast<int>(threads.size()), "busy thread"), cpu, demand, delay, spare.to_string(),
        100 * (1 - ratio(other.busy_s, other.total_s)));
    f.fix = overlap_fix(threads, spare, c.n);
    f.numbers = {{"cpu", cpu},
                 {"busy_threads", static_cast<double>(threads.size())},
                 {"demand_cpus", demand},
                 {"run_delay_ratio", delay},
                 {"spare_cpus", spare.size()}};
    if (!worst || f.numbers["demand_cpus"] > worst->numbers["demand_cpus"]) worst = std::move(f);
  }
  return worst;
}

// True when cgroup key `inner` ("v1:/a/b") lies below `outer` ("v1:/a").
bool starts_with_path(const std::string& inner, const std::string& outer) {
  return inner.size() > outer.size() && inner.compare(0, outer.size(), outer) == 0 && inner[outer.size()] == '/';
}

// Busy threads of processes inside cgroup `key` (or below it).
int busy_in_cgroup(const Context& c, const std::string& key) {
  int busy = 0;
  for (const auto& [pid, threads] : c.busy_threads) {
    const auto& group = c.evidence.processes.at(pid).cgroup;
    if (group == key || starts_with_path(group, key)) busy += threads;
  }
  return busy;
}

std::vector<Finding> check_throttling(const Context& c) {
  std::vector<Finding> findings;
  for (const auto& [key, group] : c.evidence.cgroups) {
    const double r = ratio(static_cast<double>(group.throttled_periods), static_cast<double>(group.periods));
    if (group.periods == 0 || r < c.t.warn_throttle_ratio) continue;
    Finding f = finding("cgroup_throttling", r >= c.t.max_throttle_ratio ? Verdict::oversubscribed : Verdict::warning);
    const double quota = group.quota.cpus.value_or(0);
    const int busy = std::max(1, busy_in_cgroup(c, key));
    f.message = fmt::format(
        "cgroup {} was throttled in {:.0f}% of {} CFS periods ({:.2f} s throttled in {:.1f} s); "
        "its quota is {:.2f} CPU ({} µs per {} µs)",
        key, 100 * r, group.periods, group.throttled_s, c.duration, quota, group.quota.quota_us, group.quota.period_us);
    const int fit = std::max(1, static_cast<int>(std::floor(quota)));
    f.fix = fmt::format(
        "{} want more than the quota allows: run at most {} (set OMP_NUM_THREADS={}, "
        "`mptrain run -n 1 -t {}`), or raise the quota to {} CPUs ({} µs per {} µs period)",
        counted(busy, "busy thread"), counted(fit, "thread"), fit, fit, busy,
        static_cast<long long>(busy) * static_cast<long long>(group.quota.period_us), group.quota.period_us);
    f.numbers = {{"throttled_ratio", r},
                 {"periods", static_cast<double>(group.periods)},
                 {"throttled_seconds", group.throttled_s},
                 {"quota_cpus", quota},
                 {"busy_threads", busy}};
    findings.push_back(std::move(f));
  }
  return findings;
}

std::optional<Finding> check_outside_load(const Context& c) {
  double outside = 0, job_wait = 0, job_on = 0;
  std::vector<int> cpus;
  for (const auto& [cpu, e] : c.evidence.cpus) {
    if (ratio(e.job_on_s + e.job_wait_s, c.duration) < 0.1) continue;
    outside += std::max(0.0, e.busy_s - e.job_on_s);
    job_wait += e.job_wait_s;
    job_on += e.job_on_s;
    cpus.push_back(cpu);
  }
  const double load = ratio(outside, c.duration);
  const double delay = ratio(job_wait, job_on);
  if (load < c.t.outside_load_cpus || delay < c.t.warn_run_delay_ratio) return std::nullopt;
  Finding f = finding("outside_load", Verdict::warning);
  const CpuSet job_cpus(cpus);
  f.message = fmt::format(
      "processes outside the watched set used {:.2f} CPUs on the job's CPUs {} while the job "
      "waited (run-delay ratio {:.2f} there)",
      load, job_cpus.to_string(), delay);
  std::vector<int> idle;
  const CpuSet others = c.usable.minus(job_cpus);
  for (int cpu : others.cpus()) {
    const auto it = c.evidence.cpus.find(cpu);
    if (it != c.evidence.cpus.end() && ratio(it->second.busy_s, it->second.total_s) < 0.5) idle.push_back(cpu);
  }
  f.fix = idle.empty() ? std::string("stop or move the other load (`mptrain doctor` without options shows it)")
                       : fmt::format(
                             "move the job to the idle CPUs {} or stop the other load "
                             "(`mptrain doctor` without options shows it)",
                             CpuSet(idle).to_string());
  f.numbers = {{"outside_load_cpus", load}, {"run_delay_ratio", delay}};
  return f;
}

std::optional<Finding> check_run_delay(const Context& c, const std::vector<Finding>& causes) {
  if (c.delay_ratio < c.t.warn_run_delay_ratio || c.evidence.on_cpu_s <= 0) return std::nullopt;
  bool self_caused = causes.empty();
  for (const auto& cause : causes) {
    if (cause.kind != "outside_load") self_caused = true;
  }
  const bool severe = c.delay_ratio >= c.t.max_run_delay_ratio && self_caused;
  Finding f = finding("run_delay", severe ? Verdict::oversubscribed : Verdict::warning);
  f.message = fmt::format(
      "the watched threads waited {:.2f} s on run queues per second on a CPU (run-delay ratio "
      "{:.2f}; warning from {:.2f}, oversubscribed from {:.2f}): CPU-bound threads take {:.0f}% "
      "longer than on free CPUs",
      c.delay_ratio, c.delay_ratio, c.t.warn_run_delay_ratio, c.t.max_run_delay_ratio, 100 * c.delay_ratio);
  f.fix = causes.empty() ? fmt::format("keep at most {} busy threads on the {} usable CPUs", c.n, c.n)
                         : std::string("remove the causes above");
  f.numbers = {
      {"run_delay_ratio", c.delay_ratio}, {"wait_seconds", c.evidence.wait_s}, {"cpu_seconds", c.evidence.on_cpu_s}};
  return f;
}

std::vector<ProcessSummary> summarize_processes(const Context& c) {
  std::vector<ProcessSummary> out;
  for (const auto& [pid, p] : c.evidence.processes) {
    if (p.on_cpu_s + p.wait_s <= 0) continue;
    ProcessSummary s;
    s.pid = pid;
    s.comm = p.comm;
    s.cmdline = p.cmdline;
    s.threads = p.max_threads;
    s.cpu_seconds = p.on_cpu_s;
    s.wait_seconds = p.wait_s;
    s.run_delay_ratio = ratio(p.wait_s, p.on_cpu_s);
    if (auto it = c.busy_threads.find(pid); it != c.busy_threads.end()) s.busy_threads = it->second;
    s.env = p.env;
    double busiest = -1;
    for (const auto& [tid, thread] : c.evidence.threads) {
      if (thread.pid == pid && thread.demand() > busiest) {
        busiest = thread.demand();
        s.cpus_allowed = thread.cpus_allowed;
      }
    }
    out.push_back(std::move(s));
  }
  std::sort(out.begin(), out.end(), [](const ProcessSummary& a, const ProcessSummary& b) {
    return a.cpu_seconds + a.wait_seconds > b.cpu_seconds + b.wait_seconds;
  });
  return out;
}

std::vector<ThreadSummary> summarize_threads(const Context& c) {
  std::vector<ThreadSummary> out;
  for (const auto& [tid, t] : c.evidence.threads) {
    if (!t.ran()) continue;
    out.push_back(ThreadSummary{t.pid, tid, t.comm, t.on_cpu_s, t.wait_s, t.timeslices, 1e3 * t.wait_per_slice(),
                                t.voluntary_switches, t.nonvoluntary_switches, t.last_cpu, t.cpus_allowed});
  }
  std::sort(out.begin(), out.end(), [](const ThreadSummary& a, const ThreadSummary& b) {
    return a.cpu_seconds + a.wait_seconds > b.cpu_seconds + b.wait_seconds;
  });
  return out;
}

std::vector<CgroupSummary> summarize_cgroups(const Context& c) {
  std::vector<CgroupSummary> out;
  for (const auto& [key, group] : c.evidence.cgroups) {
    const double throttled = ratio(static_cast<double>(group.throttled_periods), static_cast<double>(group.periods));
    out.push_back(CgroupSummary{group.version, group.path, group.dir, group.quota.cpus, throttled});
  }
  return out;
}

double machine_utilization(const Context& c) {
  double busy = 0, total = 0;
  for (const auto& [cpu, e] : c.evidence.cpus) {
    if (!c.usable.contains(cpu)) continue;
    busy += e.busy_s;
    total += e.total_s;
  }
  return ratio(busy, total);
}

}  // namespace

std::string_view to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::healthy:
      return "healthy";
    case Verdict::warning:
      return "warning";
    case Verdict::oversubscribed:
      return "oversubscribed";
  }
  return "healthy";
}

Result<Verdict> parse_verdict(std::string_view text) {
  for (Verdict v : {Verdict::healthy, Verdict::warning, Verdict::oversubscribed}) {
    if (text == to_string(v)) return v;
  }
  return Error{"unknown verdict '" + std::string(text) + "'; use healthy, warning or oversubscribed"};
}

Diagnosis diagnose(const Evidence& evidence, const Capacity& capacity, const Thresholds& thresholds) {
  const Context c = make_context(evidence, capacity, thresholds);
  Diagnosis d;
  d.capacity = Capacity{c.n, c.usable};
  d.duration_s = c.duration;
  d.intervals = evidence.intervals;
  d.runnable_threads_avg = c.runnable;
  d.run_delay_ratio = c.delay_ratio;
  d.evidence.sufficient = evidence.intervals > 0;
  if (!d.evidence.sufficient) d.evidence.note = "nothing ran through a whole sampling interval";
  d.waiting_threads_avg = ratio(evidence.wait_s, c.duration);
  d.wait_per_slice_ms_mean = 1e3 * ratio(evidence.wait_s, static_cast<double>(evidence.timeslices));
  d.wait_per_slice_ms_p95 = 1e3 * evidence.slice_waits.quantile(0.95);
  d.voluntary_switches_per_second = ratio(static_cast<double>(evidence.voluntary_switches), c.duration);
  d.nonvoluntary_switches_per_second = ratio(static_cast<double>(evidence.nonvoluntary_switches), c.duration);
  d.cpu_utilization = ratio(evidence.on_cpu_s, c.n * c.duration);
  d.machine_cpu_utilization = machine_utilization(c);
  if (evidence.pressure_some_s && c.duration > 0) d.cpu_pressure = *evidence.pressure_some_s / c.duration;
  auto add = [&d](std::optional<Finding> f) {
    if (f) d.findings.push_back(std::move(*f));
  };
  add(check_demand(c));
  add(check_thread_pool(c));
  add(check_overlap(c));
  for (auto& f : check_throttling(c)) d.findings.push_back(std::move(f));
  add(check_outside_load(c));
  add(check_run_delay(c, d.findings));
  for (const auto& f : d.findings) d.verdict = std::max(d.verdict, f.severity);
  d.processes = summarize_processes(c);
  d.cgroups = summarize_cgroups(c);
  d.threads = summarize_threads(c);
  return d;
}

}  // namespace mptrain::monitor
