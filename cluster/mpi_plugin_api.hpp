// The C interface between mptrain and its MPI plugin (libmptrain_mpi.so,
// built from mpi_plugin.cpp against the system's MPI). mptrain loads the
// plugin with dlopen only under an MPI launcher, so a single-node run never
// maps libmpi or pays its start-up. Both sides include this header; a
// change to the table bumps mpi_plugin_api_version.
#pragma once

#include <cstdint>

namespace mptrain::cluster {

inline constexpr int mpi_plugin_api_version = 1;

// Every function returns 0 or an MPI error code (described by error_text).
struct MpiPluginApi {
  int version;
  // MPI_Init_thread (MPI_THREAD_SERIALIZED), then this process's rank and the world's size.
  int (*init)(int* rank, int* size);
  // Whether the MPI library is initialised and not yet finalised.
  int (*active)();
  // MPI_Bcast of `bytes` bytes at `data` from rank `root`.
  int (*broadcast)(void* data, std::int64_t bytes, int root);
  // MPI_Allreduce in place: elementwise sums of `count` floats, doubles, or maxima of int64s.
  int (*sum_floats)(float* data, std::int64_t count);
  int (*sum_doubles)(double* data, std::int64_t count);
  int (*max_int64s)(std::int64_t* data, std::int64_t count);
  // MPI_Barrier.
  int (*barrier)();
  // MPI_Abort of the whole job with `code`; does not return.
  void (*abort)(int code);
  // MPI_Finalize.
  int (*finalize)();
  // The text of MPI error `code` in `out` (NUL-terminated, at most `size` bytes).
  void (*error_text)(int code, char* out, int size);
};

// The symbol the plugin exports: its table (never null).
using MpiPluginEntry = const MpiPluginApi* (*)();
inline constexpr const char* mpi_plugin_entry = "mptrain_mpi_plugin";

}  // namespace mptrain::cluster
