// Evidence: what happened between snapshots — per-thread, per-process,
// per-CPU and per-cgroup deltas of the kernel's counters, in seconds. Pure
// and additive: the evidence of a long run is the merge of its intervals.
#pragma once

#include <sys/types.h>

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "monitor/sample.hpp"

namespace mptrain::monitor {

// The distribution of wait per time slice over (thread, interval) pairs in
// which the thread ran, in log-spaced buckets (10 per decade, 1 µs to 10 s):
// mergeable and fixed in size. Quantiles are a bucket's geometric middle,
// within 12% of the true value.
class SliceWaitHistogram {
 public:
  static constexpr int per_decade = 10;
  static constexpr double lowest_s = 1e-6;            // below: counted in the first bucket
  static constexpr int buckets = 7 * per_decade + 1;  // 1 µs … 10 s, and one above
  // Counts one interval of one thread whose mean wait per slice was `per_slice_s`.
  void add(double per_slice_s);
  // Adds the counts of `other` (a later window's) to these.
  void merge(const SliceWaitHistogram& other);
  // How many (thread, interval) pairs were counted.
  std::uint64_t count() const { return count_; }
  // The wait per slice (s) below which a fraction `q` of the counted pairs lie; 0 when none were counted.
  double quantile(double q) const;

 private:
  static double middle(std::size_t bucket);  // the geometric middle of a bucket, in seconds
  std::array<std::uint64_t, buckets> counts_{};
  std::uint64_t count_ = 0;
};

// How a thread's interval is classed (see loss_model.hpp, THE MODEL). It is
// *working* when it ran on a CPU at least `working_cpu_share` of the
// interval or wanted one at least `cpu_bound_demand` of it (a CPU-bound
// thread, however many it shares a CPU with); a thread that sleeps and
// wakes up now and then is neither. A working interval's run-queue wait is
// *queued* — CPU it lacked behind other threads — when its wait per slice
// reached `wait_per_slice_s` (it waited for another thread's slice, not for
// a wake-up) or when it was CPU-bound (its wait is CPU it lacks even in short
// slices, as OpenBLAS's yielding workers show).
struct QueueRule {
  double wait_per_slice_s;   // a slice that waited this long queued behind another (queue-wait-per-slice-ms)
  double cpu_bound_demand;   // wanting a CPU this share of the time is CPU-bound (cpu-bound-demand)
  double working_cpu_share;  // running this share of the time is working, not sleeping (working-cpu-share)
  int usable_cpus = 0;       // N: a process's threads beyond it queue behind each other (0: unknown, no cap)

  // The working-thread test, for an interval or a whole window: it ran at
  // least working_cpu_share of it, or wanted a CPU at least cpu_bound_demand of it.
  bool working(double cpu_share, double demand) const {
    return demand >= cpu_bound_demand || cpu_share >= working_cpu_share;
  }
};

// What the working threads of a job or process got done, in seconds, for
// the throughput estimate (THROUGHPUT LOSS in loss_model.hpp):
//   working   Σ on CPU + wait of the working intervals
//   wanted    Σ on CPU + queued wait: the CPU they wanted (a wake-up's
//             short wait is latency, not CPU wanted)
//   progress  the part of `working` that moved their work on, as if they
//             had run unimpeded: the `apart` figure for threads that work
//             alone, the `together` one for a team that meets at barriers
//   useful    the CPU time that did work: the same choice of the two
// and the two bounds the scheduling evidence cannot choose between for
// threads of one process whose runtime does not say (THE RANGE):
//   apart     the threads never wait for each other: the process loses
//             the share it was denied of the CPU it could have had,
//             min(wanted, N × dt) (its own threads beyond N queue behind
//             each other at no cost to it); all its CPU time is useful
//   together  they move only while all of them run (a barrier at every
//             step): progress is working × Π (1 − queued ÷ working) over
//             them, and a spinning team's CPU time while a member is
//             queued is no work (useful: on CPU × the same product)
struct Work {
  double working_s = 0;
  double wanted_s = 0;
  double progress_s = 0;
  double useful_s = 0;
  double apart_progress_s = 0;
  double apart_useful_s = 0;
  double together_progress_s = 0;
  double together_useful_s = 0;
};

// The job's Work interval by interval, for the estimate's spread: mergeable,
// and bounded — past `capacity` entries neighbours are summed pairwise, so a
// long watch keeps its whole span in coarser intervals.
class WorkSeries {
 public:
  static constexpr std::size_t capacity = 4096;
  // One interval: its length, the job's Work in it, and other load.
  struct Entry {
    double duration_s = 0;
    Work work;
    double others_s = 0;  // CPU time others used on the machine's CPUs (all load less the job's)
  };
  // Appends `entry`, the next interval; past `capacity` entries, neighbours are summed pairwise.
  void add(const Entry& entry);
  // Appends the entries of `other`, a later window, one by one as add() does.
  void merge(const WorkSeries& other);
  // The intervals, oldest first.
  const std::vector<Entry>& entries() const { return entries_; }

 private:
  void coarsen();
  std::vector<Entry> entries_;
};

// One thread over the evidence window.
struct ThreadEvidence {
  pid_t pid = 0;
  pid_t tid = 0;
  std::string comm;
  double on_cpu_s = 0;
  double wait_s = 0;             // run-queue wait
  double queued_s = 0;           // the part of wait_s that queued behind others (QueueRule)
  double working_s = 0;          // on CPU + wait in the intervals it was working (QueueRule)
  double observed_s = 0;         // how long it was watched
  std::uint64_t timeslices = 0;  // times it was put on a CPU
  std::uint64_t voluntary_switches = 0;
  std::uint64_t nonvoluntary_switches = 0;
  int last_cpu = -1;
  std::string cpus_allowed;

  // True when it spent any time on a CPU in the window.
  bool ran() const { return on_cpu_s > 0 || timeslices > 0; }
  // Mean run-queue wait per time slice in seconds (0 without slices).
  double wait_per_slice() const { return timeslices > 0 ? wait_s / static_cast<double>(timeslices) : 0; }

  // (time on CPU + wait) ÷ time watched: 1.0 for a thread that always wants a CPU.
  double demand() const { return observed_s > 0 ? (on_cpu_s + wait_s) / observed_s : 0; }
};

// One process over the evidence window.
struct ProcessEvidence {
  pid_t pid = 0;
  pid_t ppid = 0;
  std::string comm;
  std::string cmdline;
  std::string parent_cmdline;  // its parent's command line, watched or not ("" when unknown)
  ThreadEnv env;
  std::string cgroup;
  std::vector<Runtime> runtimes;
  int max_threads = 0;              // most threads seen at once
  double on_cpu_s = 0;              // its threads' time on CPU, those that came and went between samples included
  double short_lived_on_cpu_s = 0;  // … of which threads no sample saw (the process's CPU time less its threads')
  double wait_s = 0;
  double queued_s = 0;
  Work work;
  std::uint64_t voluntary_switches = 0;
  std::uint64_t nonvoluntary_switches = 0;
};

// One CPU over the evidence window.
struct CpuEvidence {
  double busy_s = 0;        // all load on it (/proc/stat)
  double total_s = 0;       // elapsed CPU time (/proc/stat)
  double job_on_s = 0;      // watched threads' time on CPU, attributed to their last CPU
  double job_wait_s = 0;    // watched threads' run-queue wait, attributed the same way
  double job_queued_s = 0;  // the part of it that queued behind others
};

// One cgroup's throttling over the evidence window.
struct CgroupEvidence {
  CgroupVersion version = CgroupVersion::none;
  std::string path;  // in its hierarchy
  std::string dir;   // the directory holding its cpu.stat
  std::uint64_t periods = 0;
  std::uint64_t throttled_periods = 0;
  double throttled_s = 0;
  CpuQuota quota;  // the latest quota seen
};

// Everything measured over a window of one or more sampling intervals.
struct Evidence {
  double duration_s = 0;
  int intervals = 0;
  double on_cpu_s = 0;              // Σ over watched threads, and short_lived_on_cpu_s
  double short_lived_on_cpu_s = 0;  // Σ over watched processes: CPU of threads that lived between two samples
  double wait_s = 0;                // Σ over watched threads
  double queued_s = 0;              // Σ over watched threads
  double working_s = 0;             // Σ over watched threads
  double peak_working = 0;          // the most working threads wanting a CPU in one interval (working_s ÷ its length)
  Work work;                        // Σ over watched processes
  WorkSeries work_series;           // the same, interval by interval
  std::uint64_t timeslices = 0;     // Σ over watched threads
  SliceWaitHistogram slice_waits;   // one entry per thread and interval it ran in
  std::uint64_t voluntary_switches = 0;
  std::uint64_t nonvoluntary_switches = 0;
  std::map<pid_t, ThreadEvidence> threads;  // by tid
  std::map<pid_t, ProcessEvidence> processes;
  std::map<int, CpuEvidence> cpus;
  std::map<std::string, CgroupEvidence> cgroups;  // by CgroupSample::key
  std::optional<double> pressure_some_s;          // Σ time some task waited for a CPU (PSI); nullopt: no PSI
  std::optional<LoadAvg> load;                    // the latest load average
};

// True when the cgroup of key `inner` ("v1:/a/b") is the cgroup of key
// `outer` ("v1:/a") or lies below it.
bool cgroup_within(const std::string& inner, const std::string& outer);

// The evidence of the interval from `before` to `after`, its queueing told
// apart by `rule`. A thread seen only in `after` counts from its birth when
// its counters fit in the interval (it started meanwhile), otherwise from
// `after` on (it was just discovered).
Evidence between(const Snapshot& before, const Snapshot& after, const QueueRule& rule);
// Adds `more` (a later window) to `into`, member by member, each as its kind says (summed, latest, …).
void merge(Evidence& into, const Evidence& more);
// Adds `more` (a later window's Work) to `into`, member by member.
void merge(Work& into, const Work& more);
// The evidence of a whole series of snapshots (empty for fewer than two).
Evidence accumulate(const std::vector<Snapshot>& series, const QueueRule& rule);

}  // namespace mptrain::monitor
