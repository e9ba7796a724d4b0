// Placement of the processes a worker's program starts itself (`run --
// CMD`, SPEC "Process trees"): the slices of a worker's CPUs for its
// working children (`--children K`), the variables that tell the preloaded
// placement library (procmgr/place_preload.c, libmptrain_place.so) what to
// do, and the shared table in which the children claim their slices.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "util/cpu_set.hpp"
#include "util/fd.hpp"
#include "util/place_variables.h"
#include "util/result.hpp"

namespace mptrain::procmgr {

// The most working children a worker may have (--children): the slices its tree table holds.
inline constexpr int max_children = 1024;

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

// Whether a pool may hold more threads than its process's CPUs
// (`--keep-program-threads`): by default a runtime call or parallel region
// that asks for more gets the CPU count.
enum class ProgramThreads { cap, keep };

// The placement library's file name (beside mptrain, or in ../lib/mptrain).
inline constexpr std::string_view place_library_name = "libmptrain_place.so";

// The variables of tree_placement_environment that name the launching
// mptrain process (its pid, its table under /proc/PID/fd): meaningless
// outside that run, so a dry run leaves them out.
inline const std::vector<std::string> launcher_bound_variables = {PLACE_VAR_LAUNCHER, PLACE_VAR_TABLE};

// What the placement library is told for one worker.
struct TreePlacement {
  CpuSet cpus;                 // the worker's CPUs
  std::vector<CpuSet> slices;  // with --children K: each working child's; empty: none
  int threads = 1;             // T, the worker's threads
  int threads_per_child = 0;   // floor(T/K) with slices
  std::string table;           // the path of the worker's tree table (PlaceTable::path)
  int launcher = 0;            // mptrain's pid: its child is the worker itself
  ProgramThreads program_threads = ProgramThreads::cap;
};

// The variables that tell the placement library (preloaded by the caller,
// procmgr::preload_environment) what to do for a worker:
// MPTRAIN_PLACE_CPUS, MPTRAIN_PLACE_POOL (T), MPTRAIN_PLACE_TABLE,
// MPTRAIN_PLACE_LAUNCHER, MPTRAIN_PLACE_KEEP=1 with ProgramThreads::keep,
// and with slices MPTRAIN_PLACE_SLICES and MPTRAIN_PLACE_THREADS.
std::vector<std::string> tree_placement_environment(const TreePlacement& placement);

// Whether the pools of a launch may hold more threads than their CPUs:
// the program keeps its own counts (`program_threads`), the plan
// oversubscribes on purpose (`oversubscribed`), or a worker of `threads`
// threads has more working children (`children`). Then the OpenMP
// runtimes should wait passively (procmgr::passive_wait_environment).
bool pools_may_exceed_cpus(ProgramThreads program_threads, bool oversubscribed, int threads, int children);

// Whether a preloaded library reaches a program: the dynamic loader runs
// it for dynamically linked programs (and scripts, through their
// interpreter), not for static ones nor those it runs in secure mode.
enum class PreloadReach { reaches, static_binary, set_id };

// Whether executing a file of `mode`, owned by `owner` and `group`, as real
// user `uid` and group `gid` puts the loader in secure mode (AT_SECURE),
// where it ignores LD_PRELOAD: a set-user-ID bit naming another user, or a
// set-group-ID bit (with group execute) naming another group. Root running
// a set-user-ID-root program, or a user their own, stays itself.
bool secure_exec(unsigned mode, unsigned owner, unsigned group, unsigned uid, unsigned gid);

// What `head` (the first bytes of a program file, at least its ELF header
// and program headers) says, and whether the loader runs it in `secure`
// mode: a secure exec is set_id; a 64- or 32-bit ELF without a PT_INTERP
// header is static; anything else (a script, a dynamic ELF, bytes too
// short to tell) reaches.
PreloadReach preload_reach(std::string_view head, bool secure);

// preload_reach of the program file at `path` (its first 64 KiB); reaches when it cannot be read.
PreloadReach preload_reach_of_file(const std::string& path);

// The placement library: libmptrain_place.so next to the running mptrain
// (the build tree) or in ../lib/mptrain (the install tree), its real path;
// an Error naming both places otherwise, or saying why the one found may
// not go into the workers (a path LD_PRELOAD would split; a file or folder
// on its path that another user than root may change).
Result<std::string> find_place_library();

// One process of a worker's tree as the placement library recorded it.
struct PlacedProcess {
  int pid = 0;
  std::string comm;           // its name when it asked for threads ("" if it never did)
  int slice = -1;             // the --children slice it ran in; -1: the worker's CPUs
  CpuSet cpus;                // where it was placed
  int asked = 0;              // the threads it asked for; 0: no request seen
  int got = 0;                // what it got
  std::string call;           // the call that asked ("omp_set_num_threads", "parallel region", …)
  bool main = false;          // the worker's own process
  bool holder = false;        // it held its slice (a working child)
  bool own_affinity = false;  // it set its own affinity: left alone, pools uncapped
  bool helper = false;        // a shell, wrapper or Python helper
};

// A worker's tree table (procmgr/place_table.h) in a memory file of this
// process (a memfd, close-on-exec, gone when mptrain is), which the
// worker's processes open by path and map shared.
class PlaceTable {
 public:
  // A table with `slices` free slices (0 without --children); an Error with errno otherwise.
  static Result<PlaceTable> create(int slices);
  // The path the worker's processes open it by: /proc/PID/fd/FD of this process.
  const std::string& path() const { return path_; }
  // Its descriptor, FD of the path: the worker inherits it under that number
  // (WorkerSpec::inherit_fds), for a program that cannot open the path (run
  // as another user: setpriv, runuser).
  int fd() const { return fd_.get(); }
  // The processes recorded so far, in the order of their entries; an Error when it cannot be read.
  Result<std::vector<PlacedProcess>> read() const;

 private:
  UniqueFd fd_;
  std::string path_;
};

}  // namespace mptrain::procmgr
