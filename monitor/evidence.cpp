#include "monitor/evidence.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <tuple>
#include <unordered_map>
#include <utility>

namespace mptrain::monitor {

namespace {

// Every merge of a later window into an earlier one is a list of rows, one per member: a member
// added to a struct breaks the build (merge_members) until its row says how it merges.

// Converts to any member's type: what counts an aggregate's members.
struct AnyMember {
  template <class M>
  operator M() const {
    return M{};
  }
};

// True when T can be brace-initialized from `sizeof...(I)` values.
template <class T, std::size_t... I>
constexpr bool initializable_with(std::index_sequence<I...>) {
  return requires { T{(void(I), AnyMember{})...}; };
}

// How many members the aggregate T has.
template <class T, std::size_t N = 0>
constexpr std::size_t member_count() {
  if constexpr (initializable_with<T>(std::make_index_sequence<N + 1>{})) {
    return member_count<T, N + 1>();
  } else {
    return N;
  }
}

// One member of T and how a later window's value of it merges into the earlier one's.
template <class T, class M, class How>
struct Row {
  M T::*member;
  How how;
};

// The row of `member`, merged by `how`.
template <class T, class M, class How>
constexpr Row<T, M, How> row(M T::*member, How how) {
  return {member, how};
}

// Merges `more`, a later window, into `into` by `rows`, one per member of T.
template <class T, class... Rows>
void merge_members(T& into, const T& more, const Rows&... rows) {
  static_assert(sizeof...(Rows) == member_count<T>(), "each member of the struct needs a row saying how it merges");
  (rows.how(into.*rows.member, more.*rows.member), ...);
}

constexpr auto kept = [](auto& /*into*/, const auto& /*more*/) {};
constexpr auto summed = [](auto& into, const auto& more) { into += more; };
constexpr auto largest = [](auto& into, const auto& more) { into = std::max(into, more); };
constexpr auto latest = [](auto& into, const auto& more) { into = more; };
constexpr auto latest_seen = [](auto& into, const auto& more) {
  if (more) into = more;
};
constexpr auto summed_seen = [](auto& into, const auto& more) {
  if (more) into = into.value_or(0) + *more;
};

void merge_window(ThreadEvidence& into, const ThreadEvidence& more);
void merge_window(ProcessEvidence& into, const ProcessEvidence& more);
void merge_window(CpuEvidence& into, const CpuEvidence& more);
void merge_window(CgroupEvidence& into, const CgroupEvidence& more);
void merge_window(WorkSeries::Entry& into, const WorkSeries::Entry& more);
void merge_window(Work& into, const Work& more) { merge(into, more); }
void merge_window(WorkSeries& into, const WorkSeries& more) { into.merge(more); }
void merge_window(SliceWaitHistogram& into, const SliceWaitHistogram& more) { into.merge(more); }

// Merges each entry of `more` into the entry of `into` with its key; an entry `into` lacks is copied.
template <class Key, class Value>
void merge_window(std::map<Key, Value>& into, const std::map<Key, Value>& more) {
  for (const auto& [key, value] : more) {
    auto [it, fresh] = into.try_emplace(key, value);
    if (!fresh) merge_window(it->second, value);
  }
}

// A part with a merge of its own (merge_window).
struct Merged {
  template <class V>
  void operator()(V& into, const V& more) const {
    merge_window(into, more);
  }
};
constexpr Merged merged;

// A thread's later window: its latest name, CPU and mask win.
void merge_window(ThreadEvidence& into, const ThreadEvidence& more) {
  using T = ThreadEvidence;
  merge_members(into, more, row(&T::pid, kept), row(&T::tid, kept), row(&T::comm, latest), row(&T::on_cpu_s, summed),
                row(&T::wait_s, summed), row(&T::queued_s, summed), row(&T::working_s, summed),
                row(&T::observed_s, summed), row(&T::timeslices, summed), row(&T::voluntary_switches, summed),
                row(&T::nonvoluntary_switches, summed), row(&T::last_cpu, latest), row(&T::cpus_allowed, latest));
}

// A process's later window: the latest identity wins (a process that exec'd is reported as what it became).
void merge_window(ProcessEvidence& into, const ProcessEvidence& more) {
  using P = ProcessEvidence;
  merge_members(into, more, row(&P::pid, kept), row(&P::ppid, latest), row(&P::comm, latest), row(&P::cmdline, latest),
                row(&P::parent_cmdline, latest), row(&P::env, latest), row(&P::cgroup, latest),
                row(&P::runtimes, latest), row(&P::max_threads, largest), row(&P::on_cpu_s, summed),
                row(&P::short_lived_on_cpu_s, summed), row(&P::wait_s, summed), row(&P::queued_s, summed),
                row(&P::work, merged), row(&P::voluntary_switches, summed), row(&P::nonvoluntary_switches, summed));
}

// A CPU's later window.
void merge_window(CpuEvidence& into, const CpuEvidence& more) {
  using C = CpuEvidence;
  merge_members(into, more, row(&C::busy_s, summed), row(&C::total_s, summed), row(&C::job_on_s, summed),
                row(&C::job_wait_s, summed), row(&C::job_queued_s, summed));
}

// A cgroup's later window: its latest place and quota win.
void merge_window(CgroupEvidence& into, const CgroupEvidence& more) {
  using G = CgroupEvidence;
  merge_members(into, more, row(&G::version, latest), row(&G::path, latest), row(&G::dir, latest),
                row(&G::periods, summed), row(&G::throttled_periods, summed), row(&G::throttled_s, summed),
                row(&G::quota, latest));
}

// The interval after `into` in a WorkSeries, summed into it.
void merge_window(WorkSeries::Entry& into, const WorkSeries::Entry& more) {
  using E = WorkSeries::Entry;
  merge_members(into, more, row(&E::duration_s, summed), row(&E::work, merged), row(&E::others_s, summed));
}

}  // namespace

void merge(Work& into, const Work& more) {
  using W = Work;
  merge_members(into, more, row(&W::working_s, summed), row(&W::wanted_s, summed), row(&W::progress_s, summed),
                row(&W::useful_s, summed), row(&W::apart_progress_s, summed), row(&W::apart_useful_s, summed),
                row(&W::together_progress_s, summed), row(&W::together_useful_s, summed));
}

void merge(Evidence& into, const Evidence& more) {
  using E = Evidence;
  merge_members(into, more, row(&E::duration_s, summed), row(&E::intervals, summed), row(&E::on_cpu_s, summed),
                row(&E::short_lived_on_cpu_s, summed), row(&E::wait_s, summed), row(&E::queued_s, summed),
                row(&E::working_s, summed), row(&E::peak_working, largest), row(&E::work, merged),
                row(&E::work_series, merged), row(&E::timeslices, summed), row(&E::slice_waits, merged),
                row(&E::voluntary_switches, summed), row(&E::nonvoluntary_switches, summed), row(&E::threads, merged),
                row(&E::processes, merged), row(&E::cpus, merged), row(&E::cgroups, merged),
                row(&E::pressure_some_s, summed_seen), row(&E::load, latest_seen));
}

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
// A CPU quota's throttling (`throttled_part` of the interval, per CPU) holds
// every member back, and a right-sized job held to the same quota loses
// that time too: apart, it is taken out of each member's queued time before
// the share denied is reckoned, so threads that never wait for each other
// lose nothing to a quota they together fill. A team keeps its point and its
// `together` bound: how much the quota costs a team depends on how well it
// scales (measured on 2 CPUs under a 1-CPU quota, 2 threads against 1: BLIS
// dgemm 11% slower, GNU OpenMP short regions 55-72%), which the kernel's
// accounting does not show.
Work process_work(const std::vector<Member>& members, bool team, double dt, const QueueRule& rule,
                  double throttled_part) {
  Work work;
  double on = 0, independent = 1, queued_shares = 0, wanted_beyond_quota = 0;
  std::uint64_t voluntary = 0, nonvoluntary = 0;
  const double throttled = std::clamp(throttled_part, 0.0, 1.0) * dt;
  for (const auto& m : members) {
    work.working_s += m.working_s;
    work.wanted_s += m.on_s + m.queued_s;
    wanted_beyond_quota += m.on_s + std::max(0.0, m.queued_s - throttled);
    on += m.on_s;
    const double queued_share = m.working_s > 0 ? m.queued_s / m.working_s : 0;
    independent *= 1 - queued_share;
    queued_shares += queued_share;
    voluntary += m.voluntary_switches;
    nonvoluntary += m.nonvoluntary_switches;
  }
  const double reachable =
      rule.usable_cpus > 0 ? std::min(wanted_beyond_quota, rule.usable_cpus * dt) : wanted_beyond_quota;
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
      merge_window(entry, entries_[i + 1]);
    }
    coarse.push_back(entry);
  }
  entries_ = std::move(coarse);
}

namespace {

// Below this the process's CPU time and its threads' differ by the rounding of
// two readings in clock ticks (utime + stime, each truncated to a tick: at
// most 10 ms each at USER_HZ 100), not by threads no sample saw.
constexpr double tick_rounding_s = 0.02;

// The processes of `snapshot` by pid.
std::unordered_map<pid_t, const ProcessSample*> index_processes(const Snapshot& snapshot) {
  std::unordered_map<pid_t, const ProcessSample*> index;
  for (const auto& process : snapshot.processes) index.emplace(process.pid, &process);
  return index;
}

// The CPU time of `process`'s threads that came and went since `before` (its
// reading in the earlier snapshot, nullptr when none): its process-wide CPU
// time grew by more than its threads' `seen`; 0 when either reading is
// missing or the process exec'd.
double short_lived_cpu(const ProcessSample* before, const ProcessSample& process, double seen) {
  if (before == nullptr || !before->cpu_s || !process.cpu_s || before->comm != process.comm) return 0;
  const double unseen = *process.cpu_s - *before->cpu_s - seen;
  return unseen > tick_rounding_s ? unseen : 0;
}

// The share of the interval `dt` that `process`'s CPU cgroup (or an ancestor
// with a quota) held each of the CPUs its `threads` working threads ran on
// throttled: a cgroup's throttled time is summed over its CPUs.
double throttled_share(const Evidence& evidence, const ProcessEvidence& process, std::size_t threads, double dt,
                       const QueueRule& rule) {
  if (dt <= 0 || threads == 0 || process.cgroup.empty()) return 0;
  const auto cpus =
      static_cast<double>(rule.usable_cpus > 0 ? std::min<std::size_t>(threads, rule.usable_cpus) : threads);
  double share = 0;
  for (const auto& [key, group] : evidence.cgroups) {
    if (cgroup_within(process.cgroup, key)) share = std::max(share, group.throttled_s / (dt * cpus));
  }
  return std::min(1.0, share);
}

}  // namespace

bool cgroup_within(const std::string& inner, const std::string& outer) {
  return inner == outer ||
         (inner.size() > outer.size() && inner.compare(0, outer.size(), outer) == 0 && inner[outer.size()] == '/');
}

Evidence between(const Snapshot& before, const Snapshot& after, const QueueRule& rule) {
  Evidence evidence;
  const double dt = std::max(0.0, after.time_s - before.time_s);
  evidence.duration_s = dt;
  evidence.intervals = 1;
  add_machine(evidence, before.machine, after.machine);
  const auto previous = index_threads(before);
  const auto earlier = index_processes(before);
  for (const auto& sample : after.processes) {
    auto& process = evidence.processes[sample.pid] = process_identity(sample);
    std::vector<Member> members;
    for (const auto& thread : sample.threads) {
      const auto it = previous.find(thread.tid);
      const auto d = thread_delta(thread, it == previous.end() ? nullptr : it->second, dt);
      if (!d) continue;
      if (auto member = add_thread(evidence, process, *d, dt, rule)) members.push_back(*member);
    }
    const double held = throttled_share(evidence, process, members.size(), dt, rule);
    process.work = process_work(members, meets_at_barriers(process.runtimes), dt, rule, held);
    merge(evidence.work, process.work);
    const auto was = earlier.find(sample.pid);
    const double unseen = short_lived_cpu(was == earlier.end() ? nullptr : was->second, sample, process.on_cpu_s);
    process.short_lived_on_cpu_s += unseen;
    process.on_cpu_s += unseen;
    evidence.short_lived_on_cpu_s += unseen;
    evidence.on_cpu_s += unseen;
  }
  evidence.peak_working = dt > 0 ? evidence.working_s / dt : 0;
  double busy = 0;
  for (const auto& [cpu, times] : evidence.cpus) busy += times.busy_s;
  evidence.work_series.add({dt, evidence.work, std::max(0.0, busy - evidence.on_cpu_s)});
  return evidence;
}

Evidence accumulate(const std::vector<Snapshot>& series, const QueueRule& rule) {
  Evidence total;
  for (std::size_t i = 1; i < series.size(); ++i) merge(total, between(series[i - 1], series[i], rule));
  return total;
}

}  // namespace mptrain::monitor
