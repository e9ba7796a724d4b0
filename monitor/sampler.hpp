// The sampler: takes Snapshots of a watched set — the whole machine, given
// processes, or process trees (children started later included) — cheaply:
// each thread's /proc files stay open and are re-read with pread.
#pragma once

#include <sys/types.h>

#include <memory>
#include <vector>

#include "monitor/sample.hpp"
#include "util/fs.hpp"

namespace mptrain::monitor {

// What the sampler watches.
enum class Scope {
  machine,    // every process (but the sampler's own)
  processes,  // the given pids and their threads
  trees,      // the given pids, their threads and all their descendants (never the sampler's own process)
};

// Which files are read for a thread: schedstat every sample; stat and status
// (state, last CPU, switch counters, allowed CPUs) only when schedstat moved,
// since a thread that did not run cannot have switched or changed CPU. The
// switch counters are therefore exact at every sample.
struct SamplerOptions {};

// Takes Snapshots of a watched set; keeps open files between samples.
class Sampler {
 public:
  // A sampler of `scope` reading under `root`; `pids` are the roots for
  // Scope::processes and Scope::trees (ignored for Scope::machine).
  Sampler(FsRoot root, Scope scope, std::vector<pid_t> pids, SamplerOptions options = {});
  ~Sampler();
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;

  // Replaces the root pids (e.g. the live workers of a group); known descendants stay watched while alive.
  void set_roots(std::vector<pid_t> pids);
  // A snapshot of the watched set now; processes and threads that vanish are left out. Never fails:
  // machine files that cannot be read are left empty.
  Snapshot sample();
  // True when none of the watched processes exists any more (after at least one sample).
  bool all_gone() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The current monotonic time in seconds.
double monotonic_seconds();

}  // namespace mptrain::monitor
