// The threading runtimes a process has loaded, named from the shared
// objects in /proc/PID/maps, and the knob that sizes each one's pool: the
// doctor's findings name them ("libgomp.so.1 sizes its pool from
// OMP_NUM_THREADS").
//
// How a mapped file is recognised. Only the pathname's base name counts
// (a directory called libgomp is no library); it must be a shared object,
// NAME.so or NAME.so.N[.N…] (so libgomp.so.1.txt is not). The library's
// name is NAME up to its first '-' or '.', which drops versions and the
// hashes pip wheels add: libgomp-a34b3233.so.1 is libgomp,
// libopenblasp-r0.3.21.so is libopenblasp, libomp-14.so.5 is libomp.
//   libgomp → GNU OpenMP; libomp → LLVM OpenMP; libiomp5 → Intel OpenMP;
//   libmkl_* → MKL; libtbb → oneTBB (not libtbbmalloc, libtbbbind);
//   libblis → BLIS; libtorch_cpu, libtorch, libc10 → PyTorch;
//   numba's threading layers workqueue*, omppool*, tbbpool* (its
//   numba/np/ufunc/*.cpython-*.so) → numba; polars* (polars.abi3.so) →
//   Polars; libjulia* → Julia; libtensorflow_framework,
//   _pywrap_tensorflow_internal → TensorFlow; and Go, whose programs are
//   linked statically (no library to map), from the process's executable:
//   the ELF note Go's linker writes (owner "Go", type 4, the build ID).
//   libopenblas* → OpenBLAS, the build decided as below.
// Debian's BLAS alternatives live in directories named for the build: any
// libblas, libcblas, liblapack, libopenblas* or libblis* file in
// openblas-pthread/ is OpenBLAS (pthreads), in openblas-openmp/ OpenBLAS
// (OpenMP), in blis-pthread/ or blis-openmp/ BLIS; the -serial builds run
// no pool and are not runtimes, and neither is the reference BLAS
// (blas/libblas.so.3) or a libblas.so.3 anywhere else.
//
// OpenBLAS's pthreads build versus its OpenMP build, first rule that decides:
//   1. the Debian directory (openblas-pthread/ or openblas-openmp/);
//   2. a name ending in 'o' (Debian's libopenblaso-r0.3.21.so) is OpenMP;
//   3. otherwise OpenMP when an OpenMP runtime (libgomp, libomp, libiomp5)
//      is mapped in the same process, which an OpenMP build needs, else
//      pthreads, the default build and what Python wheels ship. The 'p' of
//      libopenblasp-r0.3.21.so or libopenblas64_p-… cannot decide: upstream's
//      Makefile appends it to every threaded build, OpenMP ones included
//      (a USE_OPENMP=1 build is libopenblas_sandybridgep-r0.3.15).
// Rule 3 errs towards OpenMP, whose knob works for both builds.
// The OpenMP build sizes itself by OpenMP alone: each BLAS call resets its
// count to omp_get_max_threads() (num_cpu_avail in common_thread.h), and
// its README says it ignores OPENBLAS_NUM_THREADS; so its knob is
// OMP_NUM_THREADS. The pthreads build reads OPENBLAS_NUM_THREADS, then
// GOTO_NUM_THREADS, then OMP_NUM_THREADS.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "util/fs.hpp"
#include "util/result.hpp"

namespace mptrain::monitor {

// A threading runtime found in a process's memory map; the order of the
// enumerators is the order parse_runtimes reports them in.
enum class RuntimeKind {
  gnu_openmp,
  llvm_openmp,
  intel_openmp,
  openblas_pthreads,
  openblas_openmp,
  mkl,
  onetbb,
  blis,
  pytorch,
  numba,
  polars,
  julia,
  tensorflow,
  go,
  rayon,
  numexpr
};

// A threading runtime found in a process's memory map.
struct Runtime {
  RuntimeKind kind;
  // The mapped file's base name, e.g. "libgomp.so.1.0.0": the first seen of
  // its kind, a runtime's own name (libopenblasp-r0.3.21.so) before a
  // generic one from the same directory (libblas.so.3).
  std::string library;

  bool operator==(const Runtime&) const = default;
};

// The runtime's display name: "GNU OpenMP", "OpenBLAS (pthreads)", "oneTBB", ….
std::string_view to_string(RuntimeKind kind);
// What sizes `kind`'s pool, as a fix would tell a user to set it:
// "OMP_NUM_THREADS", "torch.set_num_threads", and for oneTBB, which reads no
// variable and sizes its pool from the process's CPU affinity mask, "CPU
// affinity (taskset) or tbb::global_control".
std::string_view knob(RuntimeKind kind);
// The environment variable `kind` reads for its pool size at start-up, or
// "" when none (oneTBB); PyTorch's intra-op pool defaults to OMP_NUM_THREADS.
std::string_view variable(RuntimeKind kind);
// True when `kind`'s pool works as a team that meets at barriers whose
// waiters spin before they sleep — OpenMP (GNU, LLVM, Intel, and OpenBLAS's
// OpenMP build), MKL, BLIS and PyTorch's intra-op pool — so one member
// queued stalls the others: the doctor's throughput estimate. OpenBLAS's
// pthreads workers yield the CPU while they wait (sched_yield) and oneTBB's
// steal independent tasks: no team.
bool meets_at_barriers(RuntimeKind kind);
// True when one of `runtimes` meets at barriers.
bool meets_at_barriers(const std::vector<Runtime>& runtimes);

// The runtimes mapped in `maps_text` (/proc/PID/maps), each kind once, in
// RuntimeKind order; lines that are not file mappings are skipped; never fails.
std::vector<Runtime> parse_runtimes(std::string_view maps_text);
// Reads and parses /proc/`pid`/maps under `root`, and adds Go when its
// executable (/proc/`pid`/exe) is a Go program and Rust's rayon when the
// executable embeds it; an Error naming the path and strerror when the maps
// cannot be read (process gone, another user's process).
Result<std::vector<Runtime>> read_runtimes(const FsRoot& root, pid_t pid);

// Whether the ELF file at `path` carries Go's build ID note in a PT_NOTE
// segment; false for anything that is not a readable 64-bit ELF file.
bool is_go_program(const std::filesystem::path& path);

// Whether the ELF file at `path` has rayon's thread pool compiled in: Rust
// links its crates statically, and the source paths of rayon-core's panic
// locations ("…/rayon-core-1.10.1/src/registry.rs") stay in the read-only
// data of a stripped release build. Scans the file's loadable segments that
// are not code (at most 256 MiB); false for anything that is not a readable
// 64-bit ELF file.
bool embeds_rayon(const std::filesystem::path& path);

}  // namespace mptrain::monitor
