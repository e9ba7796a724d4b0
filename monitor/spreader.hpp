// The thread spreader of `mptrain run -- CMD` (SPEC "Every thread placed"):
// from each sampling interval's evidence it decides which threads to move,
// so that the busy threads of runtimes that do not read OMP_PLACES
// (OpenBLAS's pthreads, oneTBB, std::thread pools) each get a CPU of their
// own inside their process's CPUs, as likwid-pin places any program's. Pure:
// the caller applies the moves (util/pinning.hpp) and reports back those
// that failed.
//
// The rules, per process (its *set*: the CPUs its threads may run on,
// the union of their allowed lists, counting the spreader's pins as the set
// they came from):
// - a *busy* thread (it ran or waited for a CPU at least `busy_demand` of
//   the interval) that floats over the set is pinned to the first CPU of
//   the set that no busy thread holds alone and no pin of the spreader has;
//   a pin of the spreader whose thread has been idle (below `idle_demand`)
//   is given up for it when no CPU is free;
// - when a process has more floating busy threads than such CPUs, none of
//   them is pinned: their oversubscription is the detector's to report, and
//   the kernel balances floating threads better than a partial pinning;
// - a process whose one busy thread floats, with no pin of the spreader,
//   is left alone: it runs no pool yet, and a runtime that starts on that
//   thread later sizes its pool from the thread's CPUs;
// - threads that mostly sleep keep the whole set; a thread that inherited a
//   pin of the spreader from the thread that created it gets the set back;
// - a thread whose CPUs someone else chose (an OpenMP runtime from
//   OMP_PLACES, the program's own call) is left where it is, and so is a
//   pinned thread whose CPUs changed after the spreader pinned it.
#pragma once

#include <sys/types.h>

#include <map>
#include <set>
#include <vector>

#include "monitor/evidence.hpp"
#include "util/cpu_set.hpp"

namespace mptrain::monitor {

// When a thread is busy or idle over an interval, by its demand (time on a
// CPU plus run-queue wait, over the time watched).
struct SpreadRule {
  double busy_demand = 0.5;
  double idle_demand = 0.1;
};

// One thread to move and the CPUs to give it.
struct ThreadMove {
  pid_t pid = 0;
  pid_t tid = 0;
  CpuSet cpus;
  bool operator==(const ThreadMove&) const = default;
};

// Decides, interval by interval, where the busy threads of the watched processes run.
class ThreadSpreader {
 public:
  explicit ThreadSpreader(SpreadRule rule = {}) : rule_(rule) {}

  // The moves the interval `evidence` calls for, in process and thread
  // order; they count as done until failed() says otherwise.
  std::vector<ThreadMove> next(const Evidence& evidence);
  // A move of `tid` could not be made (the thread has gone): forget it.
  void failed(pid_t tid);
  // How many threads have been pinned to a CPU of their own so far.
  int pinned_total() const { return pinned_total_; }
  // The threads pinned now: tid → CPU.
  std::map<pid_t, int> pins() const;

 private:
  struct Pin {
    pid_t pid = 0;
    int cpu = -1;
    CpuSet set;  // the process's set when it was pinned, given back on release
  };
  // What the spreader remembers of a process: its set (the union of what
  // its threads were allowed, wider only) and the CPUs it pinned threads to.
  struct Known {
    CpuSet set;
    CpuSet pinned_cpus;
  };
  struct ThreadView;
  struct ProcessView;
  struct BusyThreads;

  // Forgets the pins of threads that have gone, and leaves alone those whose CPUs someone else changed since.
  void forget_pins(const Evidence& evidence);
  // Each process's threads and set; adds to `taken` the CPUs a pin or a busy thread alone holds.
  std::map<pid_t, ProcessView> view_processes(const Evidence& evidence, std::set<int>& taken);
  // Adds to `moves` what process `pid` calls for: its floating busy threads pinned when they all fit.
  void spread(pid_t pid, ProcessView& process, const Evidence& evidence, std::set<int>& taken,
              std::vector<ThreadMove>& moves);
  // The busy threads of `process` that may move; adds to `moves` the inherited pins of its sleepers, given back.
  BusyThreads busy_threads(pid_t pid, ProcessView& process, std::vector<ThreadMove>& moves) const;
  // The pins of threads that slept (below idle_demand), on CPUs of `set`.
  std::vector<pid_t> idle_pins(const Evidence& evidence, const CpuSet& set) const;
  // Pins each of `busy` (of process `pid`, set `set`) to the next of `free`, then of `idle` (given up for it).
  void pin(pid_t pid, const CpuSet& set, const std::vector<pid_t>& busy, const std::vector<int>& free,
           const std::vector<pid_t>& idle, std::set<int>& taken, std::vector<ThreadMove>& moves);

  SpreadRule rule_;
  std::map<pid_t, Pin> pins_;  // by tid
  std::map<pid_t, Known> known_;
  std::set<pid_t> left_;  // threads whose CPUs someone else changed after the spreader pinned them
  int pinned_total_ = 0;
};

}  // namespace mptrain::monitor
