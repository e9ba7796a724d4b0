// Placement of the processes a worker's program starts itself (`run --
// CMD`, SPEC "Process trees"): the slices of a worker's CPUs for its
// working children (`--children K`), the variables that tell the preloaded
// placement library (procmgr/place_preload.c, libmptrain_place.so) what to
// do, and the shared table in which the children claim their slices.
#pragma once

#include <string>
#include <vector>

#include "util/cpu_set.hpp"
#include "util/fd.hpp"
#include "util/result.hpp"

namespace mptrain::procmgr {

// The threads each of `children` working children gets from a worker of
// `threads`: floor(threads / children), at least 1.
int child_threads(int threads, int children);

// The `children` slices of `cpus` (in the set's order, the planner's "close
// together"): child i gets the i-th run of child_threads(threads, children)
// CPUs; with more children than CPUs the runs wrap around and share CPUs.
// Empty when `children` is 0 or `cpus` is empty.
std::vector<CpuSet> child_slices(const CpuSet& cpus, int threads, int children);

// The slices as the library reads them: "0-1;2-3".
std::string slices_text(const std::vector<CpuSet>& slices);

// The variables that tell the placement library (preloaded by the caller,
// procmgr::preload_environment) what to do for a worker on `cpus`:
// MPTRAIN_PLACE_CPUS and, with slices, MPTRAIN_PLACE_SLICES,
// MPTRAIN_PLACE_THREADS (`threads_per_child`) and MPTRAIN_PLACE_TABLE
// (`table`, the path of the worker's slot table).
std::vector<std::string> tree_placement_environment(const CpuSet& cpus, const std::vector<CpuSet>& slices,
                                                    int threads_per_child, const std::string& table);

// The placement library: libmptrain_place.so next to the running mptrain
// (the build tree) or in ../lib/mptrain (the install tree); an Error naming
// both places otherwise.
Result<std::string> find_place_library();

// A worker's slot table: `slots` pids (0: free) in a memory file of this
// process (a memfd, close-on-exec, gone when mptrain is), which the
// worker's processes open by path and map shared.
class SlotTable {
 public:
  // A table of `slots` free slots; an Error with errno otherwise.
  static Result<SlotTable> create(int slots);
  // The path the worker's processes open it by: /proc/PID/fd/FD of this process.
  const std::string& path() const { return path_; }

 private:
  UniqueFd fd_;
  std::string path_;
};

}  // namespace mptrain::procmgr
