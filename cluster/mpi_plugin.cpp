// libmptrain_mpi.so: the only file that includes mpi.h. It forwards the
// calls of mpi_plugin_api.hpp to the MPI library it was built against;
// counts beyond MPI's int are sent in pieces.
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdint>

#include "cluster/mpi_plugin_api.hpp"

namespace {

using mptrain::cluster::MpiPluginApi;

// The largest count one MPI call takes.
constexpr std::int64_t max_piece = INT_MAX / 8;

// Calls `call(offset, count)` for consecutive pieces of `total` elements; the first error, or 0.
template <class Call>
int in_pieces(std::int64_t total, Call call) {
  for (std::int64_t offset = 0; offset < total; offset += max_piece) {
    const int count = static_cast<int>(std::min(max_piece, total - offset));
    if (const int error = call(offset, count); error != MPI_SUCCESS) return error;
  }
  return MPI_SUCCESS;
}

int init(int* rank, int* size) {
  int provided = 0;
  int error = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
  if (error != MPI_SUCCESS) return error;
  // Errors come back as codes, for mptrain to report, instead of aborting the job.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  error = MPI_Comm_rank(MPI_COMM_WORLD, rank);
  if (error != MPI_SUCCESS) return error;
  return MPI_Comm_size(MPI_COMM_WORLD, size);
}

int active() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  return initialized && !finalized;
}

int broadcast(void* data, std::int64_t bytes, int root) {
  auto* base = static_cast<char*>(data);
  return in_pieces(bytes, [&](std::int64_t offset, int count) {
    return MPI_Bcast(base + offset, count, MPI_BYTE, root, MPI_COMM_WORLD);
  });
}

template <class T>
int reduce(T* data, std::int64_t count, MPI_Datatype type, MPI_Op op) {
  return in_pieces(count, [&](std::int64_t offset, int n) {
    return MPI_Allreduce(MPI_IN_PLACE, data + offset, n, type, op, MPI_COMM_WORLD);
  });
}

int sum_floats(float* data, std::int64_t count) { return reduce(data, count, MPI_FLOAT, MPI_SUM); }
int sum_doubles(double* data, std::int64_t count) { return reduce(data, count, MPI_DOUBLE, MPI_SUM); }
int max_int64s(std::int64_t* data, std::int64_t count) { return reduce(data, count, MPI_INT64_T, MPI_MAX); }
int barrier() { return MPI_Barrier(MPI_COMM_WORLD); }
void abort_job(int code) { MPI_Abort(MPI_COMM_WORLD, code); }
int finalize() { return MPI_Finalize(); }

void error_text(int code, char* out, int size) {
  if (size <= 0) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) length = 0;
  length = std::min(length, size - 1);
  std::copy(text, text + length, out);
  out[length] = '\0';
}

constexpr MpiPluginApi table = {mptrain::cluster::mpi_plugin_api_version,
                                init,
                                active,
                                broadcast,
                                sum_floats,
                                sum_doubles,
                                max_int64s,
                                barrier,
                                abort_job,
                                finalize,
                                error_text};

}  // namespace

extern "C" __attribute__((visibility("default"))) const MpiPluginApi* mptrain_mpi_plugin() { return &table; }
