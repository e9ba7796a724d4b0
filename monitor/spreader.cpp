#include "monitor/spreader.hpp"

#include <algorithm>
#include <optional>

namespace mptrain::monitor {

namespace {

// How a thread's CPUs came about, as the spreader sees them.
enum class Placement {
  pinned,     // the spreader's pin
  inherited,  // a pin of the spreader, copied from the thread that created it
  floating,   // the whole set of its process
  chosen,     // fewer CPUs, chosen by someone else (a runtime, the program): left alone
};

std::optional<CpuSet> allowed_of(const ThreadEvidence& thread) {
  auto parsed = CpuSet::parse(thread.cpus_allowed);
  if (!parsed.ok() || parsed->empty()) return std::nullopt;
  return *parsed;
}

}  // namespace

std::map<pid_t, int> ThreadSpreader::pins() const {
  std::map<pid_t, int> cpus;
  for (const auto& [tid, pin] : pins_) cpus[tid] = pin.cpu;
  return cpus;
}

void ThreadSpreader::failed(pid_t tid) { pins_.erase(tid); }

struct ThreadSpreader::ThreadView {
  pid_t tid = 0;
  CpuSet allowed;
  double demand = 0;
  Placement placement = Placement::chosen;
};

struct ThreadSpreader::ProcessView {
  CpuSet set;
  std::vector<ThreadView> threads;
};

struct ThreadSpreader::BusyThreads {
  std::vector<pid_t> movable;  // busy threads that float or hold an inherited pin
  int anywhere = 0;            // busy threads, however placed
  bool inherited = false;      // one of `movable` holds a pin it inherited
};

std::vector<ThreadMove> ThreadSpreader::next(const Evidence& evidence) {
  forget_pins(evidence);
  std::set<int> taken;
  for (const auto& [tid, pin] : pins_) taken.insert(pin.cpu);
  auto processes = view_processes(evidence, taken);
  std::vector<ThreadMove> moves;
  for (auto& [pid, process] : processes) spread(pid, process, evidence, taken, moves);
  return moves;
}

void ThreadSpreader::forget_pins(const Evidence& evidence) {
  // A thread that did not run shows the allowed list read when it last ran, which proves nothing.
  for (auto it = pins_.begin(); it != pins_.end();) {
    const auto found = evidence.threads.find(it->first);
    bool keep = found != evidence.threads.end();
    if (keep && found->second.ran()) {
      const auto allowed = allowed_of(found->second);
      if (allowed && *allowed != CpuSet({it->second.cpu})) {
        left_.insert(it->first);
        keep = false;
      }
    }
    it = keep ? std::next(it) : pins_.erase(it);
  }
  std::erase_if(left_, [&](pid_t tid) { return evidence.threads.count(tid) == 0; });  // gone: forgotten
}

std::map<pid_t, ThreadSpreader::ProcessView> ThreadSpreader::view_processes(const Evidence& evidence,
                                                                            std::set<int>& taken) {
  std::map<pid_t, ProcessView> processes;
  std::map<pid_t, Known> known;  // this interval's processes only: the others have gone
  for (const auto& [tid, thread] : evidence.threads) {
    if (known.count(thread.pid) == 0) known[thread.pid] = known_[thread.pid];
  }
  known_ = std::move(known);
  for (const auto& [tid, thread] : evidence.threads) {
    if (left_.count(tid) > 0) continue;
    const auto allowed = allowed_of(thread);
    if (!allowed) continue;
    auto& process = processes[thread.pid];
    const auto& history = known_[thread.pid];
    ThreadView view{tid, *allowed, thread.demand()};
    if (pins_.count(tid) > 0) {
      view.placement = Placement::pinned;
    } else if (allowed->size() == 1 && history.pinned_cpus.contains(allowed->cpus().front())) {
      view.placement = Placement::inherited;
    } else {
      process.set = process.set.unite(*allowed);
      if (allowed->size() == 1 && view.demand >= rule_.busy_demand) taken.insert(allowed->cpus().front());
    }
    process.threads.push_back(std::move(view));
  }
  for (auto& [pid, process] : processes) {
    auto& history = known_[pid];
    history.set = history.set.unite(process.set);
    process.set = history.set;
  }
  return processes;
}

ThreadSpreader::BusyThreads ThreadSpreader::busy_threads(pid_t pid, ProcessView& process,
                                                         std::vector<ThreadMove>& moves) const {
  BusyThreads busy;
  for (auto& thread : process.threads) {
    if (thread.placement == Placement::chosen && thread.allowed == process.set) thread.placement = Placement::floating;
    const bool movable = thread.placement == Placement::floating || thread.placement == Placement::inherited;
    busy.anywhere += thread.demand >= rule_.busy_demand ? 1 : 0;
    if (movable && thread.demand >= rule_.busy_demand) {
      busy.movable.push_back(thread.tid);
      busy.inherited = busy.inherited || thread.placement == Placement::inherited;
    } else if (thread.placement == Placement::inherited) {
      moves.push_back({pid, thread.tid, process.set});
    }
  }
  return busy;
}

std::vector<pid_t> ThreadSpreader::idle_pins(const Evidence& evidence, const CpuSet& set) const {
  std::vector<pid_t> idle;
  for (const auto& [tid, pin] : pins_) {
    const auto found = evidence.threads.find(tid);
    if (set.contains(pin.cpu) && found != evidence.threads.end() && found->second.demand() < rule_.idle_demand) {
      idle.push_back(tid);
    }
  }
  return idle;
}

void ThreadSpreader::spread(pid_t pid, ProcessView& process, const Evidence& evidence, std::set<int>& taken,
                            std::vector<ThreadMove>& moves) {
  const BusyThreads busy = busy_threads(pid, process, moves);
  // A process whose only busy thread floats and none of whose threads the
  // spreader pins runs no pool yet (a program starting up, importing):
  // one thread needs no spreading, and a runtime that starts on it later
  // sizes its pool from that thread's CPUs (OpenBLAS caps its thread count
  // at them), so a pin now would shrink the pool for good.
  const bool lone = busy.movable.size() == 1 && busy.anywhere == 1 && !busy.inherited &&
                    std::none_of(pins_.begin(), pins_.end(), [pid](const auto& pin) { return pin.second.pid == pid; });
  if (busy.movable.empty() || lone) return;
  std::vector<int> free;
  for (int cpu : process.set.cpus()) {
    if (taken.count(cpu) == 0) free.push_back(cpu);
  }
  const std::vector<pid_t> idle = idle_pins(evidence, process.set);
  if (busy.movable.size() <= free.size() + idle.size()) {
    pin(pid, process.set, busy.movable, free, idle, taken, moves);
    return;
  }
  // More busy threads than CPUs: none is pinned, and inherited pins give the set back.
  for (const auto& thread : process.threads) {
    if (thread.placement == Placement::inherited && thread.demand >= rule_.busy_demand) {
      moves.push_back({pid, thread.tid, process.set});
    }
  }
}

void ThreadSpreader::pin(pid_t pid, const CpuSet& set, const std::vector<pid_t>& busy, const std::vector<int>& free,
                         const std::vector<pid_t>& idle, std::set<int>& taken, std::vector<ThreadMove>& moves) {
  std::size_t next_free = 0;
  std::size_t next_idle = 0;
  for (const pid_t tid : busy) {
    int cpu = -1;
    if (next_free < free.size()) {
      cpu = free[next_free++];
    } else {
      const pid_t sleeper = idle[next_idle++];
      const Pin given_up = pins_.at(sleeper);
      pins_.erase(sleeper);
      moves.push_back({given_up.pid, sleeper, given_up.set});
      cpu = given_up.cpu;
    }
    pins_[tid] = Pin{pid, cpu, set};
    auto& history = known_[pid];
    history.pinned_cpus = history.pinned_cpus.unite(CpuSet({cpu}));
    taken.insert(cpu);
    ++pinned_total_;
    moves.push_back({pid, tid, CpuSet({cpu})});
  }
}

}  // namespace mptrain::monitor
