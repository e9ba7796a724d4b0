// MPI for the node leaders (SPEC "Beyond one machine"): the few collective
// calls mptrain makes, through its MPI plugin (mpi_plugin_api.hpp), which is
// loaded only when a launcher says this is an MPI job. Linux code in
// mpi_linux.cpp.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "util/result.hpp"

namespace mptrain::cluster {

struct MpiPluginApi;

// This process's MPI session: started by start(), finalised on destruction.
// Calls are serialised by the caller (one thread at a time).
class Mpi {
 public:
  // Loads the plugin — MPTRAIN_MPI_PLUGIN when set, else libmptrain_mpi.so
  // beside the executable, else in the installed library directory — and
  // initialises MPI; an Error saying which step failed and why otherwise.
  static Result<std::unique_ptr<Mpi>> start();
  ~Mpi();
  Mpi(const Mpi&) = delete;
  Mpi& operator=(const Mpi&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }

  // `text` of rank `root`, on every rank; an Error with MPI's message otherwise.
  Result<std::string> broadcast(const std::string& text, int root);
  // `values` of rank `root`, on every rank (same length everywhere).
  Status broadcast(std::span<float> values, int root);
  // Replaces each element of `values` by its sum over all ranks, in place.
  Status sum(std::span<float> values);
  Status sum(std::span<double> values);
  // Replaces each element of `values` by its maximum over all ranks, in place.
  Status max(std::span<std::int64_t> values);
  // Waits until every rank has called barrier().
  Status barrier();
  // Ends every process of the job, this one with exit code `code`.
  [[noreturn]] void abort(int code);

 private:
  Mpi(void* library, const MpiPluginApi* api) : library_(library), api_(api) {}
  // MPI's text for error code `error`.
  std::string error_text(int error) const;
  // Ok for `error` 0; else an Error naming `call`, this rank and MPI's text.
  Status check(int error, const char* call) const;

  // The plugin's handle, held for the life of the process (it is never closed).
  [[maybe_unused]] void* library_;
  const MpiPluginApi* api_;
  int rank_ = 0;
  int size_ = 1;
};

// The file start() loads, or an Error saying none was found and where it looked.
Result<std::string> find_mpi_plugin();

}  // namespace mptrain::cluster
