#include "monitor/evidence.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <unordered_map>
#include <utility>

namespace mptrain::monitor {

namespace {

constexpr double ns = 1e-9;

// `after` − `before`, or 0 when the counter went backwards (a reused id).
std::uint64_t delta(std::uint64_t before, std::uint64_t after) { return after >= before ? after - before : 0; }

// The threads of `snapshot` by tid.
std::unordered_map<pid_t, const ThreadSample*> index_threads(const Snapshot& snapshot) {
  std::unordered_map<pid_t, const ThreadSample*> index;
  for (const auto& process : snapshot.processes) {
    for (const auto& thread : process.threads) index.emplace(thread.tid, &thread);
  }
  return index;
}

// The change of `thread` since `previous` (nullptr: since its birth); nullopt
// when it has no baseline (discovered now, older than the interval `dt`).
std::optional<ThreadSample> thread_delta(const ThreadSample& thread, const ThreadSample* previous, double dt) {
  ThreadSample zero;
  if (previous == nullptr) {
    const double lived = static_cast<double>(thread.on_cpu_ns + thread.wait_ns) * ns;
    if (lived > dt * 1.05) return std::nullopt;
    previous = &zero;
  }
  ThreadSample d = thread;
  d.on_cpu_ns = delta(previous->on_cpu_ns, thread.on_cpu_ns);
  d.wait_ns = delta(previous->wait_ns, thread.wait_ns);
  d.timeslices = delta(previous->timeslices, thread.timeslices);
  d.voluntary_switches = delta(previous->voluntary_switches, thread.voluntary_switches);
  d.nonvoluntary_switches = delta(previous->nonvoluntary_switches, thread.nonvoluntary_switches);
  return d;
}

// How one thread's interval of `dt` s counts under `rule` (QueueRule): its
// working time (on CPU + wait, 0 unless working) and its queued wait.
struct IntervalClass {
  double working_s = 0;
  double queued_s = 0;
};

IntervalClass classify(double on, double wait, std::uint64_t slices, double dt, const QueueRule& rule) {
  if (dt <= 0) return {};
  const bool cpu_bound = (on + wait) / dt >= rule.cpu_bound_demand;
  if (!rule.working(on / dt, (on + wait) / dt)) return {};
  const bool long_waits = slices > 0 && wait / static_cast<double>(slices) >= rule.wait_per_slice_s;
  return {on + wait, long_waits || cpu_bound ? wait : 0};
}

// One working thread's interval, as its process's Work needs it.
struct Member {
  double on_s = 0;
  double queued_s = 0;
  double working_s = 0;
  std::uint64_t voluntary_switches = 0;
  std::uint64_t nonvoluntary_switches = 0;
};

// What the working threads `members` of one process got done in an
// interval of `dt` s under `rule` (Work, with its two bounds); `team`: its
// pool meets at barriers (meets_at_barriers), so the point is the team's
// estimate below, otherwise the `apart` bound. Each member runs a share
// 1 − queued ÷ working of the time it wanted. Together, a team moves only
// while all of them run: queued independently (behind other threads), about
// the product of those shares, the team's point; at worst, each queued while
// the others run (as members taking turns on one CPU are), only 1 − the sum
// of the queued shares, the `together` bound, the least the shares allow.
// While one is queued the others spin at the next barrier — when they are
// preempted more often than they sleep (nonvoluntary switches ≥ voluntary)
// their CPU time is lost with it; waiters that sleep give their CPU to
// others, who use it. Apart, the process loses the share of min(wanted,
// N × dt) it was denied.
Work process_work(const std::vector<Member>& members, bool team, double dt, const QueueRule& rule) {
  Work work;
  double on = 0, independent = 1, queued_shares = 0;
  std::uint64_t voluntary = 0, nonvoluntary = 0;
  for (const auto& m : members) {
    work.working_s += m.working_s;
    work.wanted_s += m.on_s + m.queued_s;
    on += m.on_s;
    const double queued_share = m.working_s > 0 ? m.queued_s / m.working_s : 0;
    independent *= 1 - queued_share;
    queued_shares += queued_share;
    voluntary += m.voluntary_switches;
    nonvoluntary += m.nonvoluntary_switches;
  }
  const double reachable = rule.usable_cpus > 0 ? std::min(work.wanted_s, rule.usable_cpus * dt) : work.wanted_s;
  const double denied = reachable > 0 ? std::max(0.0, reachable - on) / reachable : 0;  // share of what it could get
  work.apart_progress_s = work.working_s * (1 - denied);
  work.apart_useful_s = on;
  const bool several = members.size() >= 2;
  const bool spinning = nonvoluntary >= voluntary;
  // The share of the time all members run: the team's point, and the bound.
  const auto moving = [&](double all_run) {
    return std::pair{several ? work.working_s * all_run : work.apart_progress_s,
                     several && spinning ? on * all_run : on};
  };
  std::tie(work.together_progress_s, work.together_useful_s) = moving(std::max(0.0, 1 - queued_shares));
  const auto [team_progress, team_useful] = moving(independent);
  work.progress_s = team ? team_progress : work.apart_progress_s;
  work.useful_s = team ? team_useful : work.apart_useful_s;
  return work;
}

// Adds one thread's interval `d` to `evidence` (its process `process`,
// interval length `dt`); returns it as a Member when it was working.
std::optional<Member> add_thread(Evidence& evidence, ProcessEvidence& process, const ThreadSample& d, double dt,
                                 const QueueRule& rule) {
  const double on = static_cast<double>(d.on_cpu_ns) * ns;
  const double wait = static_cast<double>(d.wait_ns) * ns;
  const IntervalClass counted = classify(on, wait, d.timeslices, dt, rule);
  const double queued = counted.queued_s;
  evidence.on_cpu_s += on;
  evidence.wait_s += wait;
  evidence.queued_s += queued;
  evidence.working_s += counted.working_s;
  evidence.timeslices += d.timeslices;
  if (d.timeslices > 0) evidence.slice_waits.add(wait / static_cast<double>(d.timeslices));
  evidence.voluntary_switches += d.voluntary_switches;
  evidence.nonvoluntary_switches += d.nonvoluntary_switches;
  process.on_cpu_s += on;
  process.wait_s += wait;
  process.queued_s += queued;
  process.voluntary_switches += d.voluntary_switches;
  process.nonvoluntary_switches += d.nonvoluntary_switches;
  evidence.threads[d.tid] = ThreadEvidence{process.pid,
                                           d.tid,
                                           d.comm,
                                           on,
                                           wait,
                                           queued,
                                           counted.working_s,
                                           dt,
                                           d.timeslices,
                                           d.voluntary_switches,
                                           d.nonvoluntary_switches,
                                           d.last_cpu,
                                           d.cpus_allowed};
  if (d.last_cpu >= 0) {
    auto& cpu = evidence.cpus[d.last_cpu];
    cpu.job_on_s += on;
    cpu.job_wait_s += wait;
    cpu.job_queued_s += queued;
  }
  if (counted.working_s <= 0) return std::nullopt;
  return Member{on, queued, counted.working_s, d.voluntary_switches, d.nonvoluntary_switches};
}

// The process-level identity of `sample`, with no counters yet.
ProcessEvidence process_identity(const ProcessSample& sample) {
  ProcessEvidence process;
  process.pid = sample.pid;
  process.comm = sample.comm;
  process.ppid = sample.ppid;
  process.cmdline = sample.cmdline;
  process.parent_cmdline = sample.parent_cmdline;
  process.env = sample.env;
  process.cgroup = sample.cgroup;
  process.runtimes = sample.runtimes;
  process.max_threads = static_cast<int>(sample.threads.size());
  return process;
}

// Adds the machine counters' change from `before` to `after` to `evidence`.
void add_machine(Evidence& evidence, const MachineSample& before, const MachineSample& after) {
  for (const auto& cpu : after.cpus) {
    auto it = std::find_if(before.cpus.begin(), before.cpus.end(), [&](const CpuTimes& c) { return c.cpu == cpu.cpu; });
    if (it == before.cpus.end()) continue;
    auto& out = evidence.cpus[cpu.cpu];
    out.busy_s += std::max(0.0, cpu.busy_s - it->busy_s);
    out.total_s += std::max(0.0, cpu.total_s - it->total_s);
  }
  if (before.pressure && after.pressure) {
    evidence.pressure_some_s =
        static_cast<double>(delta(before.pressure->some_total_us, after.pressure->some_total_us)) * 1e-6;
  }
  evidence.load = after.load;
  for (const auto& group : after.cgroups) {
    auto it = std::find_if(before.cgroups.begin(), before.cgroups.end(),
                           [&](const CgroupSample& g) { return g.key == group.key; });
    if (it == before.cgroups.end()) continue;
    auto& out = evidence.cgroups[group.key];
    out.version = group.version;
    out.path = group.path;
    out.dir = group.dir;
    out.periods = delta(it->stat.nr_periods, group.stat.nr_periods);
    out.throttled_periods = delta(it->stat.nr_throttled, group.stat.nr_throttled);
    out.throttled_s = static_cast<double>(delta(it->stat.throttled_ns, group.stat.throttled_ns)) * ns;
    out.quota = group.quota;
  }
}

}  // namespace

void SliceWaitHistogram::add(double per_slice_s) {
  int bucket = 0;
  if (per_slice_s > lowest_s)
    bucket = static_cast<int>(std::ceil(std::log10(per_slice_s / lowest_s) * per_decade - 1e-9));
  ++counts_[static_cast<std::size_t>(std::clamp(bucket, 0, buckets - 1))];
  ++count_;
}

void SliceWaitHistogram::merge(const SliceWaitHistogram& other) {
  for (std::size_t i = 0; i < counts_.size(); ++i) counts_[i] += other.counts_[i];
  count_ += other.count_;
}

// Bucket i > 0 holds (lowest·10^((i−1)/d), lowest·10^(i/d)]; bucket 0 everything up to `lowest`.
double SliceWaitHistogram::middle(std::size_t bucket) {
  if (bucket == 0) return lowest_s;
  return lowest_s * std::pow(10.0, (static_cast<double>(bucket) - 0.5) / per_decade);
}

double SliceWaitHistogram::quantile(double q) const {
  if (count_ == 0) return 0;
  const auto rank = static_cast<std::uint64_t>(std::ceil(std::clamp(q, 0.0, 1.0) * static_cast<double>(count_)));
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    seen += counts_[i];
    if (seen >= std::max<std::uint64_t>(rank, 1)) return middle(i);
  }
  return middle(counts_.size() - 1);
}

void WorkSeries::add(const Entry& entry) {
  entries_.push_back(entry);
  if (entries_.size() > capacity) coarsen();
}

void WorkSeries::merge(const WorkSeries& other) {
  for (const auto& entry : other.entries_) add(entry);
}

void WorkSeries::coarsen() {
  std::vector<Entry> coarse;
  coarse.reserve(entries_.size() / 2 + 1);
  for (std::size_t i = 0; i < entries_.size(); i += 2) {
    Entry entry = entries_[i];
    if (i + 1 < entries_.size()) {
      entry.duration_s += entries_[i + 1].duration_s;
      entry.work.add(entries_[i + 1].work);
      entry.others_s += entries_[i + 1].others_s;
    }
    coarse.push_back(entry);
  }
  entries_ = std::move(coarse);
}

Evidence between(const Snapshot& before, const Snapshot& after, const QueueRule& rule) {
  Evidence evidence;
  const double dt = std::max(0.0, after.time_s - before.time_s);
  evidence.duration_s = dt;
  evidence.intervals = 1;
  const auto previous = index_threads(before);
  for (const auto& sample : after.processes) {
    auto& process = evidence.processes[sample.pid] = process_identity(sample);
    std::vector<Member> members;
    for (const auto& thread : sample.threads) {
      const auto it = previous.find(thread.tid);
      const auto d = thread_delta(thread, it == previous.end() ? nullptr : it->second, dt);
      if (!d) continue;
      if (auto member = add_thread(evidence, process, *d, dt, rule)) members.push_back(*member);
    }
    process.work = process_work(members, meets_at_barriers(process.runtimes), dt, rule);
    evidence.work.add(process.work);
  }
  add_machine(evidence, before.machine, after.machine);
  evidence.peak_working = dt > 0 ? evidence.working_s / dt : 0;
  double busy = 0;
  for (const auto& [cpu, times] : evidence.cpus) busy += times.busy_s;
  evidence.work_series.add({dt, evidence.work, std::max(0.0, busy - evidence.on_cpu_s)});
  return evidence;
}

namespace {

// Each merge below binds every member of what it merges (a structured
// binding names them all, or does not compile): a member added to the
// struct cannot be forgotten here, it breaks the build until merged.

// Adds `more`, a later window of the same thread, to `into`; its latest name, CPU and mask win.
void merge_thread(ThreadEvidence& into, const ThreadEvidence& more) {
  [[maybe_unused]] auto& [pid, tid, comm, on_cpu_s, wait_s, queued_s, working_s, observed_s, timeslices,
                          voluntary_switches, nonvoluntary_switches, last_cpu, cpus_allowed] = into;
  comm = more.comm;
  on_cpu_s += more.on_cpu_s;
  wait_s += more.wait_s;
  queued_s += more.queued_s;
  working_s += more.working_s;
  observed_s += more.observed_s;
  timeslices += more.timeslices;
  voluntary_switches += more.voluntary_switches;
  nonvoluntary_switches += more.nonvoluntary_switches;
  last_cpu = more.last_cpu;
  cpus_allowed = more.cpus_allowed;
}

// Adds `more`, a later window of the same process, to `into`. The latest
// identity wins: a process that exec'd is reported as what it became.
void merge_process(ProcessEvidence& into, const ProcessEvidence& more) {
  [[maybe_unused]] auto& [pid, ppid, comm, cmdline, parent_cmdline, env, cgroup, runtimes, max_threads, on_cpu_s,
                          wait_s, queued_s, work, voluntary_switches, nonvoluntary_switches] = into;
  ppid = more.ppid;
  comm = more.comm;
  cmdline = more.cmdline;
  parent_cmdline = more.parent_cmdline;
  env = more.env;
  cgroup = more.cgroup;
  runtimes = more.runtimes;
  max_threads = std::max(max_threads, more.max_threads);
  on_cpu_s += more.on_cpu_s;
  wait_s += more.wait_s;
  queued_s += more.queued_s;
  work.add(more.work);
  voluntary_switches += more.voluntary_switches;
  nonvoluntary_switches += more.nonvoluntary_switches;
}

// Adds `more`, a later window of the same CPU, to `into`.
void merge_cpu(CpuEvidence& into, const CpuEvidence& more) {
  auto& [busy_s, total_s, job_on_s, job_wait_s, job_queued_s] = into;
  busy_s += more.busy_s;
  total_s += more.total_s;
  job_on_s += more.job_on_s;
  job_wait_s += more.job_wait_s;
  job_queued_s += more.job_queued_s;
}

// Adds `more`, a later window of the same cgroup, to `into`; its latest place and quota win.
void merge_cgroup(CgroupEvidence& into, const CgroupEvidence& more) {
  auto& [version, path, dir, periods, throttled_periods, throttled_s, quota] = into;
  version = more.version;
  path = more.path;
  dir = more.dir;
  periods += more.periods;
  throttled_periods += more.throttled_periods;
  throttled_s += more.throttled_s;
  quota = more.quota;
}

// Merges each entry of `more` into the entry of `into` with its key by
// `merge_one`; an entry `into` lacks is copied (`fresh_copies`) or merged
// into a default one.
template <class Map, class MergeOne>
void merge_each(Map& into, const Map& more, MergeOne merge_one, bool fresh_copies) {
  for (const auto& [key, value] : more) {
    auto [it, fresh] = fresh_copies ? into.try_emplace(key, value) : into.try_emplace(key);
    if (!fresh || !fresh_copies) merge_one(it->second, value);
  }
}

}  // namespace

void merge(Evidence& into, const Evidence& more) {
  auto& [duration_s, intervals, on_cpu_s, wait_s, queued_s, working_s, peak_working, work, work_series, timeslices,
         slice_waits, voluntary_switches, nonvoluntary_switches, threads, processes, cpus, cgroups, pressure_some_s,
         load] = into;
  duration_s += more.duration_s;
  intervals += more.intervals;
  on_cpu_s += more.on_cpu_s;
  wait_s += more.wait_s;
  queued_s += more.queued_s;
  working_s += more.working_s;
  peak_working = std::max(peak_working, more.peak_working);
  work.add(more.work);
  work_series.merge(more.work_series);
  timeslices += more.timeslices;
  slice_waits.merge(more.slice_waits);
  voluntary_switches += more.voluntary_switches;
  nonvoluntary_switches += more.nonvoluntary_switches;
  merge_each(threads, more.threads, merge_thread, true);
  merge_each(processes, more.processes, merge_process, true);
  merge_each(cpus, more.cpus, merge_cpu, false);
  merge_each(cgroups, more.cgroups, merge_cgroup, false);
  if (more.pressure_some_s) pressure_some_s = pressure_some_s.value_or(0) + *more.pressure_some_s;
  if (more.load) load = more.load;
}

Evidence accumulate(const std::vector<Snapshot>& series, const QueueRule& rule) {
  Evidence total;
  for (std::size_t i = 1; i < series.size(); ++i) merge(total, between(series[i - 1], series[i], rule));
  return total;
}

}  // namespace mptrain::monitor
