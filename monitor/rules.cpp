#include "monitor/rules.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "monitor/findings_users.hpp"
#include "monitor/sizing.hpp"
#include "util/text.hpp"

namespace mptrain::monitor {

namespace {

// A finding of `kind` with `severity`, its text and numbers to be filled.
Finding finding(FindingKind kind, Verdict severity) {
  Finding f;
  f.kind = kind;
  f.severity = severity;
  return f;
}

double outside_cpus(const JobFigures& c);

// The `mptrain run` the watched processes were started by, from their environment (the doctor
// watching a run's workers): its fixes must not propose that launch again.
Launch launch_of(const Evidence& e) {
  for (const auto& [pid, process] : e.processes) {
    const auto& env = process.env;
    if (env.mptrain_launched) return Launch{true, env.mptrain_workers, env.mptrain_children, env.mptrain_keep};
  }
  return {};
}

// The busy processes with pool threads: those whose pools run side by side.
std::vector<const ProcessEvidence*> pool_processes(const JobFigures& c) {
  std::vector<const ProcessEvidence*> out;
  for (const auto& [pid, pool] : c.busy_pools) out.push_back(&c.evidence.processes.at(pid));
  return out;
}

std::optional<Finding> check_demand(const JobFigures& c) {
  const double r = c.demand_ratio();
  const auto queueing = c.severity;
  if (r < c.t.warn_demand_ratio || !queueing) return std::nullopt;
  const bool severe = r >= c.t.max_demand_ratio && *queueing == Verdict::oversubscribed;
  Finding f = finding(FindingKind::demand_above_capacity, severe ? Verdict::oversubscribed : Verdict::warning);
  f.message = fmt::format(
      "on average {:.1f} working threads wanted a CPU on {} ({:.2f}× capacity), "
      "{:.2f} of them queued behind others",
      c.working, counted(c.n, "usable CPU"), r, c.queued);
  f.fix = fmt::format("bring the threads that want a CPU from {:.0f} down to {}: {}", std::ceil(c.working), c.n,
                      sizing_fix(pool_processes(c), c.n, c.evidence.processes, c.busy_pools, c.launch));
  f.numbers = {{"working_threads_avg", c.working},
               {"usable_cpus", c.n},
               {"demand_ratio", r},
               {"queued_threads_avg", c.queued},
               {"pool_threads", c.busy_pool_total}};
  return f;
}

// " (OMP_NUM_THREADS=4 in the environment of pid P)" when a pool process's environment asks for more than `per`.
std::string env_note(const JobFigures& c, int per) {
  for (const auto& [pid, pool] : c.busy_pools) {
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

std::optional<Finding> check_thread_pool(const JobFigures& c) {
  const int m = static_cast<int>(c.busy_pools.size());
  const auto queueing = c.severity;
  if (m == 0 || c.busy_pool_total <= c.n || !queueing) return std::nullopt;
  int most = 0, least = c.busy_pool_total;
  for (const auto& [pid, pool] : c.busy_pools) {
    most = std::max(most, pool);
    least = std::min(least, pool);
  }
  const int per = c.n / m;
  if (most <= std::max(1, per)) return std::nullopt;
  Finding f = finding(FindingKind::thread_pool_too_large, *queueing);
  const std::string each = most == least ? fmt::format("{}", most) : fmt::format("{}–{}", least, most);
  const auto processes = pool_processes(c);
  f.message = fmt::format("{} × {} pool threads = {} threads on {}{}; {:.2f} threads queued on average{}",
                          counted(m, "process"), each, c.busy_pool_total, counted(c.n, "usable CPU"),
                          env_note(c, std::max(1, per)), c.queued, runtimes_note(processes));
  f.fix = sizing_fix(processes, c.n, c.evidence.processes, c.busy_pools, c.launch);
  f.numbers = {{"processes", m},     {"threads_per_process_max", most}, {"pool_threads", c.busy_pool_total},
               {"usable_cpus", c.n}, {"threads_per_process_fit", per},  {"queued_threads_avg", c.queued}};
  return f;
}
// The pool threads whose last CPU is `cpu`.
std::vector<const ThreadEvidence*> pool_threads_on(const JobFigures& c, int cpu) {
  std::vector<const ThreadEvidence*> threads;
  for (const auto& [tid, thread] : c.evidence.threads) {
    if (thread.last_cpu == cpu && c.is_pool_thread(thread)) threads.push_back(&thread);
  }
  return threads;
}

double job_demand_on(const JobFigures& c, int cpu) {
  auto it = c.evidence.cpus.find(cpu);
  return it == c.evidence.cpus.end() ? 0 : ratio(it->second.job_on_s + it->second.job_wait_s, c.duration);
}

// The share of the window others (not the job) kept `cpu` busy; 0 where /proc/stat did not show it.
double others_busy_on(const JobFigures& c, int cpu) {
  const auto it = c.evidence.cpus.find(cpu);
  if (it == c.evidence.cpus.end()) return 0;
  return ratio(std::max(0.0, it->second.busy_s - it->second.job_on_s), it->second.total_s);
}

// True when the affinity of every thread of `threads` keeps it off `spare`; `allowed`: the first one's list.
bool kept_off(const std::vector<const ThreadEvidence*>& threads, const CpuSet& spare, std::string& allowed) {
  bool pinned = true;
  for (const auto* thread : threads) {
    auto set = CpuSet::parse(thread->cpus_allowed);
    if (!set.ok() || !set->intersect(spare).empty()) pinned = false;
    if (set.ok() && allowed.empty()) allowed = set->to_short_string();
  }
  return pinned;
}

// The fix for pool threads sharing CPUs while `spare` is left: depends on whether affinity keeps them there.
std::string overlap_fix(bool pinned, const std::string& allowed, const CpuSet& spare, int n) {
  if (pinned) {
    return fmt::format(
        "their affinity (Cpus_allowed_list {}) keeps them off CPU {}: give each worker its own CPUs, "
        "e.g. `mptrain run -n {}` (one CPU set per worker) or `taskset -c {}` for one of them",
        allowed, spare.to_short_string(), n, spare.cpus().front());
  }
  return fmt::format(
      "the scheduler keeps them together although CPU {} is free to them: pin them apart "
      "(`mptrain run -n {}`, or `taskset -c {}` for one of them)",
      spare.to_short_string(), n, spare.cpus().front());
}

// The finding for the contended CPU `cpu` (its evidence `e`) while `spare` is left (the job uses it at most
// spare-cpu-demand), or nullopt. Threads the job's own affinity keeps off `spare` are its doing whatever else
// runs there; threads free to move that the scheduler kept together are only while a spare CPU is also
// free of others' load (others busy there below idle-cpu-busy): a CPU that other load fills is no place to
// move a thread to, and the queueing is then the outside load's, a warning, never a sure oversubscription.
std::optional<Finding> overlap_on(const JobFigures& c, int cpu, const CpuEvidence& e, const CpuSet& spare) {
  const auto threads = pool_threads_on(c, cpu);
  const double demand = job_demand_on(c, cpu);
  const double waiting = ratio(e.job_queued_s, c.duration);  // threads queued there, on average
  if (threads.size() < 2 || demand < c.t.contended_cpu_demand || waiting < c.t.warn_queued_share || !c.severity)
    return std::nullopt;
  std::string allowed;
  const bool pinned = kept_off(threads, spare, allowed);
  std::vector<int> free;
  for (int candidate : spare.cpus()) {
    if (pinned || others_busy_on(c, candidate) < c.t.idle_cpu_busy) free.push_back(candidate);
  }
  if (free.empty()) return std::nullopt;
  const CpuSet left(free);
  Finding f = finding(FindingKind::overlapping_affinity, *c.severity);
  const auto other = c.evidence.cpus.find(left.cpus().front());
  const double spare_busy = other == c.evidence.cpus.end() ? 0 : ratio(other->second.busy_s, other->second.total_s);
  f.message = fmt::format(
      "{} share CPU {} (they want {:.1f} CPUs there; {:.2f} of them queue on average) while usable CPU {} is left "
      "({:.0f}% idle)",
      counted(static_cast<int>(threads.size()), "pool thread"), cpu, demand, waiting, left.to_short_string(),
      100 * (1 - spare_busy));
  f.fix = overlap_fix(pinned, allowed, left, c.n);
  f.numbers = {{"cpu", cpu},
               {"pool_threads", static_cast<double>(threads.size())},
               {"demand_cpus", demand},
               {"queued_threads_avg", waiting},
               {"spare_cpus", left.size()}};
  return f;
}

std::optional<Finding> check_overlap(const JobFigures& c) {
  std::vector<int> spare_cpus;
  for (int cpu : c.usable.cpus()) {
    if (job_demand_on(c, cpu) <= c.t.spare_cpu_demand) spare_cpus.push_back(cpu);
  }
  if (spare_cpus.empty()) return std::nullopt;
  const CpuSet spare(spare_cpus);
  std::optional<Finding> worst;
  for (const auto& [cpu, evidence] : c.evidence.cpus) {
    auto f = overlap_on(c, cpu, evidence, spare);
    if (f && (!worst || f->numbers["demand_cpus"] > worst->numbers["demand_cpus"])) worst = std::move(f);
  }
  return worst;
}

// Pool threads of processes inside cgroup `key` (or below it).
int pool_threads_in_cgroup(const JobFigures& c, const std::string& key) {
  int threads = 0;
  for (const auto& [pid, pool] : c.pools) {
    const auto& group = c.evidence.processes.at(pid).cgroup;
    if (cgroup_within(group, key)) threads += pool;
  }
  return threads;
}

// The pool processes inside cgroup `key` (or below it).
std::vector<const ProcessEvidence*> pool_processes_in_cgroup(const JobFigures& c, const std::string& key) {
  std::vector<const ProcessEvidence*> processes;
  for (const auto& [pid, pool] : c.pools) {
    const auto& process = c.evidence.processes.at(pid);
    if (cgroup_within(process.cgroup, key)) processes.push_back(&process);
  }
  return processes;
}

// The fix for `threads` pool threads in cgroup `key` that want more than its quota (`fit` whole CPUs, a
// `period_us` period): fewer threads where a process runs more than one (never the launch already running),
// fewer processes where each runs one already (no variable helps then: issue 55), or a quota raised to the
// CPUs the threads wanted (their time on CPU and queued, over the watch), not one per thread.
std::string over_quota_fix(const JobFigures& c, const std::string& key, int threads, int fit, std::uint64_t period_us) {
  const auto processes = pool_processes_in_cgroup(c, key);
  double wanted_s = 0;
  int widest = 0;
  for (const auto* process : processes) {
    wanted_s += process->on_cpu_s + process->wait_s;
    widest = std::max(widest, c.pools.at(process->pid));
  }
  const int wanted = static_cast<int>(std::ceil(ratio(wanted_s, c.duration) - 0.05));
  const int raise = std::clamp(wanted, fit + 1, std::max(fit + 1, threads));
  const std::string quota = fmt::format("raise the quota to {} ({} µs per {} µs period)", counted(raise, "CPU"),
                                        static_cast<unsigned long long>(raise) * period_us, period_us);
  if (widest <= 1 && processes.size() > 1) {
    return fmt::format(
        "{} want more than the quota allows, one thread each already (no thread-count variable helps): run at "
        "most {} at once (the program's own count of workers or processes), or {}",
        counted(static_cast<int>(processes.size()), "process"), fit, quota);
  }
  const std::string launch =
      c.launch.inside_mptrain ? std::string() : fmt::format(", or `mptrain run -n 1 -t {}`", fit);
  return fmt::format("{} want more than the quota allows: run at most {} ({}{}), or {}", counted(threads, "thread"),
                     counted(fit, "thread"), knob_settings(processes, fit), launch, quota);
}

std::vector<Finding> check_throttling(const JobFigures& c) {
  std::vector<Finding> findings;
  for (const auto& [key, group] : c.evidence.cgroups) {
    const double r = ratio(static_cast<double>(group.throttled_periods), static_cast<double>(group.periods));
    if (group.periods == 0 || r < c.t.warn_throttle_ratio) continue;
    const double share = ratio(group.throttled_s, c.duration);
    if (share < c.t.min_throttled_share) continue;
    const double quota = group.quota.cpus.value_or(0);
    const int threads = std::max(1, pool_threads_in_cgroup(c, key));
    // Pools that fit the quota, throttled for less of the time than a warning's loss: the rest of the cgroup's
    // work (helper threads, a watcher's own sampling) tipped it over now and then, and no thread count helps.
    const bool pools_fit = quota > 0 && threads <= quota;
    if (pools_fit && share < c.t.warn_throughput_loss) continue;
    const auto severity = r >= c.t.max_throttle_ratio ? Verdict::oversubscribed : Verdict::warning;
    Finding f = finding(FindingKind::cgroup_throttling, severity);
    f.message = fmt::format(
        "cgroup {} was throttled in {:.0f}% of {} CFS periods ({:.2f} s throttled in {:.1f} s); "
        "its quota is {:.2f} CPU ({} µs per {} µs)",
        key, 100 * r, group.periods, group.throttled_s, c.duration, quota, group.quota.quota_us, group.quota.period_us);
    const int fit = std::max(1, static_cast<int>(std::floor(quota)));
    if (pools_fit) {
      f.fix = fmt::format(
          "the pools fit the quota ({} for {:.2f} CPU): the rest of the cgroup's work (other processes, threads "
          "outside the pools) wants more; move it out of the cgroup or raise the quota",
          counted(threads, "thread"), quota);
    } else {
      f.fix = over_quota_fix(c, key, threads, fit, group.quota.period_us);
    }
    f.numbers = {{"throttled_ratio", r},
                 {"periods", static_cast<double>(group.periods)},
                 {"throttled_seconds", group.throttled_s},
                 {"quota_cpus", quota},
                 {"pool_threads", threads}};
    findings.push_back(std::move(f));
  }
  return findings;
}

// The idle usable CPUs outside `job_cpus` (busy under half the window).
std::vector<int> idle_cpus_besides(const JobFigures& c, const CpuSet& job_cpus) {
  std::vector<int> idle;
  const CpuSet others = c.usable.minus(job_cpus);
  for (int cpu : others.cpus()) {
    const auto it = c.evidence.cpus.find(cpu);
    const bool idle_enough =
        it != c.evidence.cpus.end() && ratio(it->second.busy_s, it->second.total_s) < c.t.idle_cpu_busy;
    if (idle_enough) idle.push_back(cpu);
  }
  return idle;
}

std::optional<Finding> check_outside_load(const JobFigures& c) {
  double outside = 0;
  std::vector<int> cpus;
  for (const auto& [cpu, e] : c.evidence.cpus) {
    // The job's CPUs: those where it wanted at least a tenth of a CPU, and the usable ones others
    // kept busy (idle-cpu-busy), which the job could not move to.
    const bool used = ratio(e.job_on_s + e.job_wait_s, c.duration) >= c.t.job_cpu_demand;
    if (!used && !(c.usable.contains(cpu) && others_busy_on(c, cpu) >= c.t.idle_cpu_busy)) continue;
    outside += std::max(0.0, e.busy_s - e.job_on_s);
    cpus.push_back(cpu);
  }
  // The job's threads that came and went between samples are attributed to no CPU: not others' load.
  const double load = std::max(0.0, ratio(outside - c.evidence.short_lived_on_cpu_s, c.duration));
  if (load < c.t.outside_load_cpus || !c.severity) return std::nullopt;
  Finding f = finding(FindingKind::outside_load, Verdict::warning);
  const CpuSet job_cpus(cpus);
  f.message = fmt::format(
      "processes outside the watched set used {:.2f} CPUs on the job's CPUs {} while {:.2f} of the job's threads "
      "queued on average",
      load, job_cpus.to_short_string(), c.queued);
  const auto idle = idle_cpus_besides(c, job_cpus);
  f.fix = idle.empty() ? std::string("stop or move the other load (`mptrain doctor` without options shows it)")
                       : fmt::format(
                             "move the job to the idle CPUs {} or stop the other load "
                             "(`mptrain doctor` without options shows it)",
                             CpuSet(idle).to_short_string());
  f.numbers = {{"outside_load_cpus", load}, {"queued_threads_avg", c.queued}};
  f.cpus = job_cpus;
  return f;
}

// Info where the loss would earn a finding but fewer than min-queued-threads
// queued: a share of a small demand (the wake-ups of threads that mostly
// sleep), which the report's loss shows without it costing the job a CPU.
std::optional<Finding> check_slight_queueing(const JobFigures& c) {
  if (c.queued >= c.t.min_queued_threads || !loss_severity(c.loss.decides_range, c.t)) return std::nullopt;
  Finding f = finding(FindingKind::queueing, Verdict::healthy);
  f.message = fmt::format(
      "{:.2f} threads were queued on average: an estimated {} of the job's throughput, but of a demand of {:.2f} "
      "CPUs, so at most {:.2f} of one CPU's work, below --min-queued-threads {:g} and no finding (threads that "
      "mostly sleep wait about this long to wake up)",
      c.queued, percent(c.loss.decides), c.working, c.queued, c.t.min_queued_threads);
  f.numbers = {{"queued_threads_avg", c.queued}, {"estimated_throughput_loss", c.loss.job}};
  return f;
}

// What the queueing cost, as severe as the worst of the job's own causes in `causes` (a warning without one).
std::optional<Finding> check_queueing(const JobFigures& c, const std::vector<Finding>& causes) {
  if (!c.severity) return check_slight_queueing(c);
  Verdict severity = Verdict::warning;
  for (const auto& cause : causes) {
    if (cause.kind != FindingKind::outside_load) severity = std::max(severity, cause.severity);
  }
  Finding f = finding(FindingKind::queueing, severity);
  const double slowdown = ratio(c.queued, c.working - c.queued);
  const LossEstimate& loss = c.loss;
  f.message = fmt::format(
      "{:.2f} of the {:.2f} working threads that wanted a CPU were queued behind other threads on average "
      "({:.2f} per usable CPU): CPU-bound work takes about {:.0f}% longer than on free CPUs; estimated throughput "
      "lost: {} by the job, {} by its processes' own work (over the intervals {}–{}; warning from {}, "
      "oversubscribed from {} with a cause above)",
      c.queued, c.working, c.queued_share(), 100 * slowdown, percent(loss.job), percent(loss.processes),
      percent(loss.low), percent(loss.high), percent(c.t.warn_throughput_loss), percent(c.t.max_throughput_loss));
  f.fix = causes.empty()
              ? fmt::format("keep at most {} on the {}", counted(c.n, "CPU-bound thread"), counted(c.n, "usable CPU"))
              : std::string("remove the causes above");
  f.numbers = {{"queued_threads_avg", c.queued},        {"queued_share", c.queued_share()},
               {"estimated_throughput_loss", loss.job}, {"processes_throughput_loss", loss.processes},
               {"wait_seconds", c.evidence.wait_s},     {"cpu_seconds", c.evidence.on_cpu_s}};
  return f;
}

// The job's CPU-bound threads over the window: what they wanted (CPUs, on
// average) and what they ran (CPU-seconds).
struct BusyThreads {
  double demand = 0;
  double cpu_seconds = 0;
};

BusyThreads busy_threads(const JobFigures& c) {
  BusyThreads busy;
  for (const auto& [tid, thread] : c.evidence.threads) {
    if (thread.demand() < c.t.cpu_bound_demand) continue;
    busy.demand += ratio(thread.on_cpu_s + thread.wait_s, c.duration);
    busy.cpu_seconds += thread.on_cpu_s;
  }
  return busy;
}

// The CPUs others used on the usable CPUs, on average: all load (/proc/stat) less the job's.
double outside_cpus(const JobFigures& c) {
  double busy = 0;
  for (const auto& [cpu, e] : c.evidence.cpus) {
    if (c.usable.contains(cpu)) busy += e.busy_s;
  }
  return std::max(0.0, ratio(busy - c.evidence.on_cpu_s, c.duration));
}

int job_cpus(const JobFigures& c) { return job_cpus(c.evidence, c.n); }

// What findings_users.hpp's checks read of `c`.
JobView job_view(const JobFigures& c) { return JobView{c.evidence, c.t, c.n, c.pools, c.busy_pools, c.severity}; }

// True when the job is CPU-bound, wants far fewer than the `n` CPUs it may
// use over the whole window and nobody else wants the rest (every condition
// but the pools').
bool leaves_cpus_idle(const JobFigures& c, int n) {
  const Thresholds& t = c.t;
  const BusyThreads busy = busy_threads(c);
  if (ratio(c.queued, c.working) >= t.warn_queued_share) return false;  // its threads queue: the CPUs are not idle
  if (busy.cpu_seconds < t.idle_min_cpu_seconds || busy.demand < t.idle_min_busy_share * c.working) return false;
  const double spare = n - c.working;
  if (c.working > t.idle_max_demand_share * n || spare < t.idle_min_spare_cpus) return false;
  if (c.evidence.peak_working > c.t.idle_max_peak_share * n) return false;
  return outside_cpus(c) <= c.t.idle_max_outside_share * spare;
}

// What sizes the busy pools, each once: "OMP_NUM_THREADS=1 (GNU OpenMP, libgomp.so.1)", ….
std::string pool_limits(const JobFigures& c) {
  std::vector<std::string> limits;
  for (const auto& [pid, pool] : c.busy_pools) {
    auto limit = pool_limit(c.evidence.processes.at(pid), pool);
    if (!limit.empty() && std::find(limits.begin(), limits.end(), limit) == limits.end()) limits.push_back(limit);
  }
  return fmt::format("{}", fmt::join(limits, "; "));
}

std::optional<Finding> check_idle_capacity(const JobFigures& c) {
  const int n = job_cpus(c);
  if (c.busy_pools.empty() || !leaves_cpus_idle(c, n)) return std::nullopt;
  const int m = static_cast<int>(c.busy_pools.size());
  const int per = n / m;
  int most = 0, least = n;
  for (const auto& [pid, pool] : c.busy_pools) {
    most = std::max(most, pool);
    least = std::min(least, pool);
  }
  if (least >= per) return std::nullopt;  // the pools are the plan's size: they wait, they are not too small
  const auto processes = pool_processes(c);
  const double spare = n - c.working;
  const double outside = outside_cpus(c);
  const std::string each = most == least ? fmt::format("{}", most) : fmt::format("{}–{}", least, most);
  const std::string limits = pool_limits(c);
  Finding f = finding(FindingKind::idle_capacity, Verdict::healthy);
  f.message = fmt::format(
      "{} × {} busy thread{} on {}: {} keeps {:.1f} CPUs idle (the job wanted {:.2f} CPUs on average, "
      "at most {:.2f} in any interval; others used {:.2f} of the rest); the plan for {} is {} × {}",
      counted(m, "process"), each, most == 1 ? "" : "s", counted(n, "usable CPU"),
      limits.empty() ? std::string("its program, not a runtime or a thread-count variable,") : limits, spare, c.working,
      c.evidence.peak_working, outside, counted(n, "usable CPU"), counted(m, "process"), counted(per, "thread"));
  f.fix = widening_fix(processes, most, n, c.evidence.processes);
  f.numbers = {{"processes", m},
               {"busy_threads_max", most},
               {"usable_cpus", n},
               {"demand_cpus", c.working},
               {"peak_demand_cpus", c.evidence.peak_working},
               {"idle_cpus", spare},
               {"outside_load_cpus", outside},
               {"threads_per_process_fit", per}};
  explain_blocked(job_view(c), f);
  return f;
}

}  // namespace

bool JobFigures::is_pool_thread(const ThreadEvidence& thread) const {
  const double ran = thread.observed_s > 0 ? thread.on_cpu_s / thread.observed_s : 0;
  return queue_rule(t).working(ran, thread.demand());
}

JobFigures job_figures(const Evidence& evidence, const Capacity& capacity, const Thresholds& thresholds) {
  const Evidence& e = evidence;
  const Thresholds& t = thresholds;
  JobFigures c{e, t, 1, 0, 0, 0, 0, {}, std::nullopt, {}, {}, 0, {}, {}};
  c.n = std::max(1, capacity.usable_cpus);
  c.launch = capacity.launch;
  c.duration = e.duration_s;
  c.runnable = ratio(e.on_cpu_s + e.wait_s, e.duration_s);
  c.queued = ratio(e.queued_s, e.duration_s);
  c.working = ratio(e.working_s, e.duration_s);
  std::map<pid_t, double> working;  // per process: its threads' working time
  for (const auto& [tid, thread] : e.threads) {
    working[thread.pid] += thread.working_s;
    if (c.is_pool_thread(thread)) ++c.pools[thread.pid];
  }
  for (const auto& [pid, process] : e.processes) {
    // Threads that came and went between samples (a pool started inside each call) are pool threads too:
    // as many at a time as the CPUs they used on average, each counted from working-cpu-share of one.
    const int short_lived = static_cast<int>(
        std::ceil(std::max(0.0, ratio(process.short_lived_on_cpu_s, e.duration_s) - t.working_cpu_share)));
    if (short_lived == 0) continue;
    c.pools[pid] += short_lived;
    working[pid] += process.short_lived_on_cpu_s;
  }
  for (const auto& [pid, pool] : c.pools) {
    if (ratio(working[pid], e.duration_s) < t.busy_process_demand) continue;
    c.busy_pools[pid] = pool;
    c.busy_pool_total += pool;
  }
  c.usable = capacity.usable_cpu_list;
  if (c.usable.empty()) {
    std::vector<int> seen;
    for (const auto& [cpu, times] : e.cpus) seen.push_back(cpu);
    c.usable = CpuSet(seen);
  }
  c.loss = estimate_loss(e, t, job_cpus(e, c.n), outside_cpus(c) * c.duration);
  // Fewer than min-queued-threads queued cost too little to be a finding, whatever share of a small demand they are.
  if (c.queued >= t.min_queued_threads) c.severity = loss_severity(c.loss.decides_range, t);
  if (!c.launch.inside_mptrain) c.launch = launch_of(e);
  return c;
}

// The findings: the job's own causes, then outside load, then what the queueing cost, then (for a job) idle CPUs.
std::vector<Finding> find_causes(const JobFigures& c, Subject subject) {
  std::vector<Finding> findings;
  auto add = [&findings](std::optional<Finding> f) {
    if (f) findings.push_back(std::move(*f));
  };
  add(check_demand(c));
  add(check_thread_pool(c));
  add(check_overlap(c));
  for (auto& f : check_throttling(c)) findings.push_back(std::move(f));
  add(check_outside_load(c));
  const JobView job = job_view(c);
  for (auto* check : {check_two_openmp_runtimes, check_nested_pools, check_allocation_mismatch}) {
    for (auto& f : check(job)) findings.push_back(std::move(f));
  }
  settle_pool_fixes(findings);
  add(check_queueing(c, findings));
  // Idle CPUs are advice for a job with nothing worse (never beside a cause of queueing or throttling),
  // and not where a launcher's binding is what keeps them idle.
  const bool advice_only = std::all_of(findings.begin(), findings.end(), [](const Finding& f) {
    return f.severity == Verdict::healthy && f.kind != FindingKind::allocation_mismatch;
  });
  if (subject == Subject::job && advice_only) add(check_idle_capacity(c));
  return findings;
}

}  // namespace mptrain::monitor
